"""explaincheck core: the GUI-free library (oracle, environments, taxonomy, runner, analysis).

Nothing under this package imports PySide6, qasync or ``explaincheck.gui``; tests enforce it.
"""
