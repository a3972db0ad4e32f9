"""The state inspector's "Policy π" box: what a loaded policy does in the clicked state and what
it costs there (π(s), V^π(s), V*(s), the regret and its share of the value loss)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFormLayout, QGroupBox, QLabel, QWidget

from explaincheck.core.oracle.types import OracleResult
from explaincheck.core.policy.types import describe_choice, policy_chain
from explaincheck.core.taxonomy.property_units import PropertyUnits, units_of
from explaincheck.gui.support.safe_text import plain_label

ROWS = (
    ("action", "π(s)"),
    ("V_policy", "V^π(s) = P^π[F goal]"),
    ("V", "V*(s)"),
    ("regret", "Regret V*(s) − Q*(s, π(s))"),
    ("share", "Share of the loss"),
    ("loss", "Value loss at s0"),
)


def _value(value: float, exact: Any, units: PropertyUnits) -> str:
    """6 significant digits and the exact fraction, as the inspector's V; an infinite expected
    value in the property's words ("∞ (never reaches the goal for sure)"), never "inf"."""
    if math.isnan(value):  # ∞ − ∞: a regret where neither choice reaches the target for sure
        return "—"
    return units.value_text(value, str(exact) if exact is not None else None)


def row_titles(units: PropertyUnits) -> dict[str, str]:
    """The rows' titles under ``units``' property: V^π in its unit, the regret in its
    direction (Q − V when lower is better)."""
    if units.legacy:
        return dict(ROWS)
    maximising = units.words.maximising
    return {
        **dict(ROWS),
        "V_policy": f"V^π(s): π's {units.unit}",
        "regret": "Regret V*(s) − Q*(s, π(s))" if maximising else "Regret Q*(s, π(s)) − V*(s)",
    }


class PolicyBox(QGroupBox):
    """Hidden until an oracle with a policy is shown."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("Policy π", parent)
        form = QFormLayout(self)
        self.fields: dict[str, QLabel] = {}
        self.titles: dict[str, QLabel] = {}
        for key, text in ROWS:
            label = plain_label("")
            label.setWordWrap(True)
            label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            self.fields[key] = label
            self.titles[key] = plain_label(text + ":")
            form.addRow(self.titles[key], label)
        self.hide()

    def show_state(self, oracle: OracleResult | None, state_id: int | None) -> None:
        chain = policy_chain(oracle) if oracle is not None else None
        if chain is None or state_id is None or not 0 <= state_id < len(chain.states):
            self.hide()
            return
        state = chain.state(state_id)
        units = units_of(oracle)  # type: ignore[arg-type]  # (not None: it has a chain)
        for key, text in row_titles(units).items():
            self.titles[key].setText(text + ":")
        self.setTitle(f"Policy π ({Path(chain.policy.source).name})")
        choice = describe_choice(state.action) if state.action else "— (no decision here)"
        self.fields["action"].setText(choice + ("  [default]" if state.defaulted else ""))
        self.fields["V_policy"].setText(_value(state.value, state.value_exact, units))
        self.fields["V"].setText(_value(state.optimal_value, None, units))
        self.fields["regret"].setText(_value(state.regret, state.regret_exact, units))
        target = units.words.target if units.is_reward else "the goal"
        stranded = f"  (stranded: π never reaches {target} from here)" if state.stranded else ""
        share = (
            _value(state.share, None, units) if math.isinf(state.share) else f"{state.share:.4g}"
        )
        self.fields["share"].setText(share + stranded)
        exact = chain.value_loss_exact
        self.fields["loss"].setText(_value(chain.value_loss, exact, units))
        self.show()
