"""backends stage of explaincheck.core."""
