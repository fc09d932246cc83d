"""openptxas.tools."""
