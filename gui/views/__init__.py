"""The views of the main window (one module per panel or tab)."""
