"""Asks which LLM to use as a policy, within how many states, and where its replies go."""

from __future__ import annotations

from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLineEdit,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from explaincheck.gui.adapters.llm_policy import PolicyAsk
from explaincheck.gui.support.safe_text import plain_label
from explaincheck.gui.views.llm_choices import LlmChoices

DEFAULTS = (
    ("uniform", "uniform over the enabled actions"),
    ("optimal", "the optimal action"),
)


class LlmPolicyDialog(QDialog):
    """The LLM spec (the Campaign tab's choices, or any spec typed), the state budget, the
    default for states not asked and the results file."""

    def __init__(
        self,
        choices: LlmChoices,
        ask: PolicyAsk,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle("Ask an LLM for its policy")
        layout = QVBoxLayout(self)
        note = plain_label(
            "Ask the LLM the best-action question in the initial state and in every state its own"
            " choices lead to (most likely first), then draw the policy it defines on the graph"
            " with its exact value loss. Replies are stored in the results file: asking again"
            " resumes."
        )
        note.setWordWrap(True)
        layout.addWidget(note)
        form = QFormLayout()
        self.spec = QComboBox(self)
        self.spec.setEditable(True)  # any spec, e.g. ollama:llama3.2:1b
        for choice in choices.offered:
            if choice.enabled:
                self.spec.addItem(choice.text, choice.spec)
        self.spec.setCurrentIndex(self.spec.findData(ask.spec))
        self.spec.setEditText(ask.spec)
        self.budget = QSpinBox(self)
        self.budget.setRange(1, 1_000_000)
        self.budget.setValue(ask.budget)
        self.budget.setSuffix(" states")
        self.default = QComboBox(self)
        for key, text in DEFAULTS:
            self.default.addItem(text, key)
        self.default.setCurrentIndex(max(0, self.default.findData(ask.default)))
        self.database = QLineEdit(ask.database, self)
        form.addRow("LLM:", self.spec)
        form.addRow("Budget:", self.budget)
        form.addRow("States not asked:", self.default)
        form.addRow("Results file:", self.database)
        self.selfcheck = QCheckBox("then ask it about its own policy", self)
        self.selfcheck.setChecked(ask.selfcheck)
        self.selfcheck.setToolTip(
            "The self-check (explaincheck selfcheck): at the states it acted in, ask it the"
            " best-action, worst-action and ranking questions (does it say what it does?), then"
            " the policy questions about its own policy and, as controls, about the optimal and"
            " the uniform random policy; the budget also caps the questions per category"
        )
        form.addRow("", self.selfcheck)
        layout.addLayout(form)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.button(QDialogButtonBox.StandardButton.Ok).setText("Ask")
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)

    def chosen_spec(self) -> str:
        """The listed spec picked, else the text typed."""
        text = self.spec.currentText().strip()
        index = self.spec.findText(text)
        return str(self.spec.itemData(index)) if index >= 0 else text

    def request(self) -> PolicyAsk:
        return PolicyAsk(
            self.chosen_spec(),
            int(self.budget.value()),
            str(self.default.currentData()),
            self.database.text().strip(),
            self.selfcheck.isChecked(),
        )
