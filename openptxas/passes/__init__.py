"""openptxas.passes."""
