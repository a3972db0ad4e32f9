"""analysis stage of explaincheck.core."""
