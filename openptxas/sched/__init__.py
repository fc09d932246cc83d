"""openptxas.sched."""
