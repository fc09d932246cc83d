"""openptxas.elf."""
