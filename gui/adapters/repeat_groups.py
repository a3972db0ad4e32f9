"""The repeats of a case as one row: its k answers, whether they agree and how many passed.

With ``--repeat k`` each case is asked k times; a table of k near-identical rows hides what
matters (does the LLM give the same answer each time?). Agreement uses the analysis's own
rule (``core.analysis.robustness.agree``: same answer, probabilities within the tolerance).
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QBrush, QColor

from explaincheck.gui.adapters.results_model import _answer_text, states_text

Index = QModelIndex | QPersistentModelIndex
GROUP_KEYS = ("environment", "llm", "category", "selection", "case_key")
# The stability of a case's verdict over its repeats, as a mark (docs/method.md).
STABILITY_MARKS = {"stable-pass": "✓ stable", "stable-fail": "✗ stable", "flaky": "⚠ flaky"}
STABILITY_TIPS = {
    "stable-pass": "stable-pass: every repeat passed",
    "stable-fail": "stable-fail: every repeat failed",
    "flaky": "flaky: the repeats disagree (the exact 95% interval of the pass probability"
    " excludes both 0 and 1); quarantine the case or compare with --exclude-flaky",
}


def _canonical(row: dict[str, Any]) -> Any:
    from explaincheck.core.analysis.robustness import canonical

    try:
        return canonical(row)
    except (KeyError, TypeError, ValueError):
        return row.get("answer")


def _short_answer(answer: Any) -> str:
    """A one-field answer by its value alone (k of them side by side stay readable)."""
    if isinstance(answer, dict) and len(answer) == 1:
        answer = next(iter(answer.values()))
    if isinstance(answer, float):
        return f"{answer:.4g}"
    return _answer_text(answer)


def group_repeats(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One dict per case (environment, LLM, category, selection, case key): ``k``, ``passed``,
    ``agreement`` (None for a single answer or when a repeat has no readable answer),
    ``answers`` (text per repeat) and the first row (for the case detail)."""
    from explaincheck.core.analysis.robustness import agree

    groups: dict[tuple, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        key = tuple(str(row.get(k)) for k in GROUP_KEYS)
        if row.get("case_key") is None:  # an older row: the states stand in for the key
            key = (*key[:-1], states_text(row.get("states")))
        groups[key].append(row)
    found = []
    for members in groups.values():
        members = sorted(members, key=lambda r: r.get("repeat") or 0)
        answers = [_canonical(r) for r in members]
        readable = [a for a in answers if a is not None]
        agreement = agree(readable) if len(members) > 1 and len(readable) == len(members) else None
        passed = sum(1 for r in members if r.get("verdict") == "pass")
        found.append(
            {
                "row": members[0],
                "k": len(members),
                "passed": passed,
                "stability": group_stability(members, passed),
                "agreement": agreement,
                "answers": [_short_answer(r.get("answer")) for r in members],
            }
        )
    return found


def group_stability(members: list[dict[str, Any]], passed: int) -> str | None:
    """The case's stability over its scored repeats (core/analysis/stability.py's rule)."""
    from explaincheck.core.analysis.stability import UNSCORED, stability

    runs = sum(1 for r in members if r.get("verdict") not in UNSCORED)
    return stability(passed, runs)


class RepeatGroupsModel(QAbstractTableModel):
    """Grouped rows: case, LLM, k, passed of k, stability, agreement and the k answers."""

    HEADERS = (
        "Environment",
        "LLM",
        "Category",
        "State(s)",
        "k",
        "Passed",
        "Stability",
        "Agree",
        "Answers",
    )

    def __init__(self) -> None:
        super().__init__()
        self.groups: list[dict[str, Any]] = []
        self.flaky_only = False  # "Flaky only": the cases whose repeats disagree

    def set_rows(self, rows: list[dict[str, Any]]) -> None:
        self.beginResetModel()
        groups = group_repeats(rows)
        if self.flaky_only:
            groups = [g for g in groups if g["stability"] == "flaky"]
        self.groups = groups
        self.endResetModel()

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.groups)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.HEADERS)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        group = self.groups[index.row()]
        row = group["row"]
        column = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            agreement = group["agreement"]
            values = (
                row.get("environment"),
                row.get("llm"),
                row.get("category"),
                states_text(row.get("states")),
                group["k"],
                f"{group['passed']}/{group['k']}",
                STABILITY_MARKS.get(group["stability"], "—"),
                "—" if agreement is None else ("yes" if agreement else "no"),
                " | ".join(group["answers"]),
            )
            return "" if values[column] is None else str(values[column])
        if role == Qt.ItemDataRole.BackgroundRole and column == 7 and group["agreement"] is False:
            return QBrush(QColor(255, 200, 160, 160))
        if role == Qt.ItemDataRole.BackgroundRole and column == 6 and group["stability"] == "flaky":
            return QBrush(QColor(255, 220, 120, 170))
        if role == Qt.ItemDataRole.ToolTipRole and column == 6 and group["stability"]:
            return STABILITY_TIPS[group["stability"]]
        return None

    def headerData(
        self, section: int, orientation: Any, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return self.HEADERS[section]
        return None
