"""openptxas.testing."""
