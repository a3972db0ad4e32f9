"""The policy view's self-check: does the LLM used as a policy explain its own policy?
(``explaincheck selfcheck``, or File › Ask an LLM for its policy… with "then ask it about its
own policy"): say–do agreement, accuracy on its own policy against the optimal and the uniform
random policy, its value loss beside its best-action score."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtWidgets import QGroupBox, QHeaderView, QTableView, QVBoxLayout, QWidget

from explaincheck.gui.adapters.frame_model import FrameModel
from explaincheck.gui.support.safe_text import plain_label
from explaincheck.gui.views.table_height import fit_rows

if TYPE_CHECKING:
    import pandas as pd

NOTE = (
    "say–do: how often the action it calls best (asked in other words) is one its own policy "
    "takes, Wilson 95% interval; of the disagreements, how often the saying and how often the "
    "doing was right. Own / optimal / uniform: the same policy questions about its policy and "
    "the two controls (corrected for chance as RQ1), paired over the same questions."
)


class SelfCheckBox(QGroupBox):
    """Hidden until a self-check is stored for the open model."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("Self-check: does the LLM explain its own policy?", parent)
        layout = QVBoxLayout(self)
        self.view = QTableView(self)
        self.model = FrameModel()
        self.view.setModel(self.model)
        self.view.verticalHeader().setVisible(False)
        self.view.setWordWrap(True)
        header = self.view.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setStretchLastSection(True)
        layout.addWidget(self.view)
        note = plain_label(NOTE)
        note.setWordWrap(True)
        layout.addWidget(note)
        self.hide()

    def set_table(self, frame: pd.DataFrame | None) -> None:
        """Show ``frame`` (``core.analysis.selfcheck.figures_table``, one column per LLM);
        None or empty hides the box."""
        if frame is None or frame.empty:
            self.model.set_frame(None)
            self.hide()
            return
        self.model.set_frame(frame)
        fit_rows(self.view, 420)
        self.show()
