"""The data behind Results › Make a training set… and the Compare dialog's split preset: a split
made, saved and read, a training set written, and two results frames cut to a split's part.

Why outside views/: views never import the campaign or store packages (the import contract);
these calls are blocking (an oracle per model, a results file read whole), so the dialogs run
them through ``in_thread``, never on the GUI thread.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from explaincheck.core.campaign.split_file import (
    BY_CHOICES,
    HELD_OUT,
    TRAIN,
    Split,
    category_counts,
    read_split,
    write_split,
)

FORMATS = ("sft", "openai-chat", "dpo")
PART_TITLES = {HELD_OUT: "Held-out", TRAIN: "Train", "left_out": "Left out"}
__all__ = ["BY_CHOICES", "FORMATS", "PART_TITLES", "Split", "SplitCounts"]


@dataclass(frozen=True)
class SplitCounts:
    """A split and its questions per category and part (what the dialog's table shows)."""

    split: Split
    rows: tuple[tuple[str, int, int, int], ...]  # category, train, held-out, left out

    @property
    def totals(self) -> tuple[int, int, int]:
        return (
            sum(r[1] for r in self.rows),
            sum(r[2] for r in self.rows),
            sum(r[3] for r in self.rows),
        )


def make_split(db: str, by: str, held_out: float, seed: int) -> SplitCounts:
    """The split of ``db`` with its counts (blocking: an oracle per model)."""
    from explaincheck.core.analysis.splitting import make_split as split_of

    split = split_of(db, by=by, held_out=held_out, seed=seed)
    parts = {
        TRAIN: category_counts(split.train),
        HELD_OUT: category_counts(split.held_out),
        "left_out": category_counts(split.left_out),
    }
    categories = sorted({c for counts in parts.values() for c in counts})
    rows = tuple(
        (c, parts[TRAIN].get(c, 0), parts[HELD_OUT].get(c, 0), parts["left_out"].get(c, 0))
        for c in categories
    )
    return SplitCounts(split, rows)


def save_split(found: SplitCounts, path: str) -> str:
    """Write the split; its sha256."""
    return write_split(found.split, path)


def write_training_set(
    db: str, split_path: str, fmt: str, explain: bool, out: str
) -> dict[str, Any]:
    """Write the training set of a saved split into ``out``; its dataset_info (blocking)."""
    import json

    from explaincheck.core.analysis.dataset_card import INFO_FILE
    from explaincheck.core.analysis.dataset_card import write_training_set as write
    from explaincheck.core.analysis.train_set import build_training_set

    split = read_split(split_path)
    found = build_training_set(db, split, fmt, explain=explain)
    folder = write(found, split, db, out)
    info: dict[str, Any] = json.loads((Path(folder) / INFO_FILE).read_text(encoding="utf-8"))
    return info


def cut_to_part(
    base: pd.DataFrame, new: pd.DataFrame, split_path: str, part: str
) -> tuple[pd.DataFrame, pd.DataFrame, Split]:
    """Both sides' executions of one part of a split (one line when a side has none)."""
    from explaincheck.core.analysis.split_cases import keep_part_of_both

    split = read_split(split_path)
    ours, theirs = keep_part_of_both(base, new, split, part, ("the base", "the new side"))
    return ours, theirs, split


def judgement(part: str, comparison: Any, base: pd.DataFrame) -> list[tuple[str, str]]:
    """(category, verdict) per line of a comparison judged both ways, ``all`` last."""
    from explaincheck.core.analysis.repair_report import judge

    return [(line.category, line.verdict) for line in judge(part, comparison, base).lines]
