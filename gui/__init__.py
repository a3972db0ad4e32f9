"""explaincheck desktop application (PySide6 views over ``explaincheck.core``)."""
