"""openptxas.regalloc."""
