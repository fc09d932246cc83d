"""openptxas.emu."""
