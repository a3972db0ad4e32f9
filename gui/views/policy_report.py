"""The Report tab's value-loss table: the loaded policy and every LLM used as a policy on the
open model (rows of ``explaincheck policy`` in the open results file), V^π(s0) against V*(s0)."""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QGroupBox, QHeaderView, QTableView, QVBoxLayout, QWidget

from explaincheck.gui.adapters.frame_model import FrameModel
from explaincheck.gui.support.safe_text import plain_label
from explaincheck.gui.views.selfcheck_box import SelfCheckBox
from explaincheck.gui.views.table_height import fit_rows

NOTE = (
    "value loss = V*(s0) − V^π(s0), exact where the oracle is; loses most at: the state with the "
    "largest share (expected visits × regret). LLM policies: the best-action replies stored by "
    "explaincheck policy, other states uniform."
)


class PolicyLossBox(QGroupBox):
    """Hidden until there is a policy to show."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("Value loss of policies", parent)
        layout = QVBoxLayout(self)
        self.view = QTableView(self)
        self.model = FrameModel()
        self.view.setModel(self.model)
        self.view.verticalHeader().setVisible(False)
        self.view.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        layout.addWidget(self.view)
        note = plain_label(NOTE)
        note.setWordWrap(True)
        layout.addWidget(note)
        self.selfcheck = SelfCheckBox(self)  # the LLMs' self-checks (gui/adapters/selfcheck.py)
        layout.addWidget(self.selfcheck)
        self.hide()

    def set_table(self, frame: Any) -> None:
        """Show ``frame`` (``core.policy.stored.loss_table``); None or empty hides the box."""
        if frame is None or frame.empty:
            self.model.set_frame(None)
            self.hide()
            return
        self.model.set_frame(frame)
        fit_rows(self.view, 300)
        self.show()
