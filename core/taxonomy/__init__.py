"""taxonomy stage of explaincheck.core."""
