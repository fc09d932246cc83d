"""openptxas.isa."""
