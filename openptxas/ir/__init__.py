"""openptxas.ir."""
