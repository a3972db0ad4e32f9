"""The state inspector's "Policy π" box: what a loaded policy does in the clicked state and what
it costs there (π(s), V^π(s), V*(s), the regret and its share of the value loss)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFormLayout, QGroupBox, QLabel, QWidget

from explaincheck.core.oracle.types import OracleResult
from explaincheck.core.policy.types import describe_choice, policy_chain
from explaincheck.gui.support.safe_text import plain_label

ROWS = (
    ("action", "π(s)"),
    ("V_policy", "V^π(s) = P^π[F goal]"),
    ("V", "V*(s)"),
    ("regret", "Regret V*(s) − Q*(s, π(s))"),
    ("share", "Share of the loss"),
    ("loss", "Value loss at s0"),
)


def _value(value: float, exact: Any) -> str:
    text = f"{value:.6g}"
    if exact is not None and "/" in str(exact):
        text += f"  (= {exact})"
    return text


class PolicyBox(QGroupBox):
    """Hidden until an oracle with a policy is shown."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("Policy π", parent)
        form = QFormLayout(self)
        self.fields: dict[str, QLabel] = {}
        for key, text in ROWS:
            label = plain_label("")
            label.setWordWrap(True)
            label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            self.fields[key] = label
            form.addRow(text + ":", label)
        self.hide()

    def show_state(self, oracle: OracleResult | None, state_id: int | None) -> None:
        chain = policy_chain(oracle) if oracle is not None else None
        if chain is None or state_id is None or not 0 <= state_id < len(chain.states):
            self.hide()
            return
        state = chain.state(state_id)
        self.setTitle(f"Policy π ({Path(chain.policy.source).name})")
        choice = describe_choice(state.action) if state.action else "— (no decision here)"
        self.fields["action"].setText(choice + ("  [default]" if state.defaulted else ""))
        self.fields["V_policy"].setText(_value(state.value, state.value_exact))
        self.fields["V"].setText(f"{state.optimal_value:.6g}")
        self.fields["regret"].setText(_value(state.regret, state.regret_exact))
        stranded = "  (stranded: π never reaches the goal from here)" if state.stranded else ""
        self.fields["share"].setText(f"{state.share:.4g}{stranded}")
        exact = chain.value_loss_exact
        self.fields["loss"].setText(_value(chain.value_loss, exact))
        self.show()
