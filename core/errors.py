"""User-facing errors.

Every problem a user can cause (a broken PRISM file, a missing label, a dead server) is raised as an
``ExplaincheckError`` whose message is one line that names the problem; the CLI prints it and exits
with status 2, the GUI shows it in the window. Anything else is a bug and may carry a traceback.
"""


class ExplaincheckError(Exception):
    """A problem with the user's input or environment, explained in one line."""


class ModelError(ExplaincheckError):
    """The PRISM model cannot be parsed, built or checked as asked."""

    def __init__(self, message: str, *, line: int | None = None, column: int | None = None):
        super().__init__(message)
        self.line = line
        self.column = column


class ModelTooLargeError(ModelError):
    """The state space exceeds the configured limit (or the memory/time given to the builder)."""


class OracleCancelled(ExplaincheckError):
    """The oracle computation was cancelled by the user."""
