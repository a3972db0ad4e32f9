"""The Campaign tab's money fields: the prices of the LLMs and the cost at which a campaign
stops, with the label that shows the cost per LLM.

Why a helper of its own: the campaign view only places these rows; reading them
(``gui.campaign_cost.CostSettings``) and remembering them (settings, campaign files) are one
place each. Keys are never asked for here: they come from the environment (``OPENAI_API_KEY``).
"""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QFormLayout, QLineEdit, QWidget

from explaincheck.core.workspace.presentation.campaign_cost import CostSettings
from explaincheck.gui.support.safe_text import plain_label

PRICES_TIP = (
    "Money per million prompt/completion tokens, MODEL=IN/OUT, several separated by commas"
    " (as run --price), e.g. gpt-4o-mini=0.15/0.6; they override the prices settings file"
    " (~/.config/explaincheck/prices.toml) and are kept with the campaign"
)
LIMIT_TIP = (
    "Stop the campaign cleanly once its replies cost this much (as run --max-cost; needs"
    " prices); what is stored stays, and Run with a higher amount continues. Empty: no limit"
)


class CostFields:
    """The Prices and Stop at cost rows of a form, and the cost-per-LLM label."""

    def __init__(self, form: QFormLayout, parent: QWidget) -> None:
        self.prices = QLineEdit(parent)
        self.prices.setPlaceholderText("MODEL=IN/OUT per million tokens, …")
        self.prices.setToolTip(PRICES_TIP)
        self.limit = QLineEdit(parent)
        self.limit.setPlaceholderText("no limit")
        self.limit.setToolTip(LIMIT_TIP)
        form.addRow("Prices:", self.prices)
        form.addRow("Stop at cost:", self.limit)
        self.lines = plain_label("")  # the cost per LLM (placed by the view)
        self.lines.setWordWrap(True)
        self.lines.setVisible(False)

    def settings(self) -> CostSettings:
        """The prices and limit a run takes (an ExplaincheckError of one line if unusable)."""
        return CostSettings.read(self.prices.text(), self.limit.text())

    def set_enabled(self, enabled: bool) -> None:
        """Fixed while a campaign runs: its guard has them already."""
        self.prices.setEnabled(enabled)
        self.limit.setEnabled(enabled)

    def show_lines(self, lines: list[str]) -> None:
        self.lines.setText("\n".join(lines))
        self.lines.setVisible(bool(lines))

    def choices(self) -> dict[str, Any]:
        return {"prices": self.prices.text(), "max_cost": self.limit.text()}

    def apply(self, choices: dict[str, Any]) -> None:
        """Restore ``choices()`` (settings or a campaign file); other types are skipped."""
        prices = choices.get("prices")
        if isinstance(prices, list):  # a campaign file's ``price = [...]``
            prices = ", ".join(str(p) for p in prices)
        if isinstance(prices, str):
            self.prices.setText(prices)
        limit = choices.get("max_cost")
        if isinstance(limit, int | float) and not isinstance(limit, bool):
            limit = f"{limit:g}"
        if isinstance(limit, str):
            self.limit.setText(limit)
