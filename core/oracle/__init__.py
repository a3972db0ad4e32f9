"""oracle stage of explaincheck.core."""
