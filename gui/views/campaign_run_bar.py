"""The Campaign tab's footer: the estimate before Run, Run and Pause with the progress bar,
the progress line (done/total, pass rate, time left) and the cost per LLM.

It never scrolls out of sight. The time left arrives formatted (``gui/run_clock``): this bar
only places text.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtWidgets import QFrame, QHBoxLayout, QProgressBar, QPushButton, QVBoxLayout, QWidget

from explaincheck.gui.support.safe_text import plain_label

if TYPE_CHECKING:
    from explaincheck.core.workspace.presentation.run_clock import TimeLeft


# The runner's states in the tab's words: Pause stops the runner ("cancelled" to it), and the
# next Run continues where it stopped, so the user reads what the button did and what comes next.
STATE_WORDS = {
    "cancelled": "paused (Run ▶ continues)",
    "finished": "finished",
    "stopped": "stopped",
}


def progress_parts(progress: Any, time_left: TimeLeft | None, cost: str) -> list[str]:
    """The progress line's parts: done/total, pass rate, invalid and errors, cost, then the
    time left while running (else the run's state) and its message."""
    rate = progress.pass_rate
    parts = [f"{progress.done}/{progress.total} done"]
    parts.append(f"pass rate {rate:.0%}" if rate is not None else "pass rate —")
    if progress.invalid:
        parts.append(f"{progress.invalid} invalid")
    if progress.errors:
        parts.append(f"{progress.errors} errors")
    if cost:
        parts.append(cost)
    if progress.state == "running":
        parts.append(f"ETA {time_left.eta if time_left is not None else '--:--'}")
    else:
        parts.append(STATE_WORDS.get(progress.state, progress.state))
    if progress.message:
        parts.append(progress.message)
    return parts


class RunBar(QFrame):
    """``run_button`` and ``pause_button`` are connected by the page to its signals."""

    def __init__(self, cost_lines: QWidget, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.estimate_text = plain_label("")
        self.estimate_text.setWordWrap(True)
        self.progress_text = plain_label("")
        self.progress_text.setWordWrap(True)
        run_row = QHBoxLayout()
        self.run_button = QPushButton("Run ▶")
        self.run_button.setToolTip("Run the campaign (F5); a stopped one resumes")
        run_row.addWidget(self.run_button)
        self.pause_button = QPushButton("Pause ❚❚")
        self.pause_button.setToolTip("Stop after the requests in flight; Run resumes")
        run_row.addWidget(self.pause_button)
        self.progress = QProgressBar(self)
        self.progress.setFormat("not started")
        self.progress.setValue(0)
        run_row.addWidget(self.progress, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 4, 6, 4)
        layout.addWidget(self.estimate_text)
        layout.addLayout(run_row)
        layout.addWidget(self.progress_text)
        layout.addWidget(cost_lines)  # the cost per LLM

    def set_running(self, running: bool) -> None:
        self.run_button.setEnabled(not running)
        self.pause_button.setEnabled(running)

    def show_progress(self, progress: Any, time_left: TimeLeft | None, cost: str) -> str:
        """Show the bar and the progress line; returns the line (for the status bar)."""
        self.progress.setFormat("%v / %m")
        self.progress.setMaximum(max(1, progress.total))
        self.progress.setValue(progress.done)
        if progress.state == "running" and time_left is not None and time_left.per_llm:
            self.progress_text.setToolTip(time_left.per_llm)
        self.progress_text.setText(" · ".join(progress_parts(progress, time_left, cost)))
        return self.progress_text.text()
