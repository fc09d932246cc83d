"""openptxas.ptx."""
