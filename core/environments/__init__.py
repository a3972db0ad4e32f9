"""environments stage of explaincheck.core."""
