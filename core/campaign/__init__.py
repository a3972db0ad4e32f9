"""campaign stage of explaincheck.core."""
