"""A campaign's few-shot settings (``run --shots K --shots-from split.json``), apart from the
code that picks and renders the shots (``shots.py``) so ``plan.Campaign`` can hold them.

Why in the campaign: the shots change every prompt, so two runs with other shots are two
campaigns (the identity holds K, the split file's sha256, the part asked and whether the values
are shown; not the file's path, so a moved split resumes).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from explaincheck.core.campaign.split_file import HELD_OUT, PARTS

ALL_PARTS = "all"  # --shots-on all: both parts of the split (over-fitting shows on train)
PART_CHOICES = (*PARTS, ALL_PARTS)


@dataclass(frozen=True)
class ShotSettings:
    """K solved training cases before each question of one part of a split."""

    k: int
    split: str  # the split file as given (where to read it; not part of the identity)
    split_sha256: str
    part: str = HELD_OUT  # the split part this campaign asks: held_out, train or all
    explain: bool = False  # each shot shows the oracle's values behind its answer

    def identity(self) -> dict[str, Any]:
        return {
            "k": self.k,
            "split_sha256": self.split_sha256,
            "part": self.part,
            "explain": self.explain,
        }

    @property
    def parts(self) -> tuple[str, ...]:
        return PARTS if self.part == ALL_PARTS else (self.part,)
