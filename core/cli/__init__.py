"""cli stage of explaincheck.core."""
