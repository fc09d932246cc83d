"""openptxas.isa.tables."""
