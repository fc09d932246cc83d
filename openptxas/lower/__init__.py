"""openptxas.lower."""
