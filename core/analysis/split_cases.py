"""Keeping the executions of one part of a split (``compare --cases split.json:held-out``).

Why by question rather than by case key: the same question has a case key per selection that
drew it, and a few-shot run asks each held-out question once under the first of them; the
pairing of ``compare`` is by question too (``paired.question_identity``). The model hash is part
of the match, so a results file of another model of the environment keeps nothing.
"""

from __future__ import annotations

import pandas as pd

from explaincheck.core.analysis.paired import question_identity
from explaincheck.core.campaign.split_file import HELD_OUT, TRAIN, Split, part_name, read_split
from explaincheck.core.errors import ExplaincheckError

Question = tuple[str, str, str]  # environment, model hash, question identity


def read_cases_spec(spec: str) -> tuple[Split, tuple[str, ...]]:
    """``split.json:held-out`` -> (the split, ("held_out",)); ``split.json`` alone -> both
    parts, held-out first (a repair report: held-out, then train)."""
    path, colon, part = spec.rpartition(":")
    if not colon or not path or "/" in part or part.endswith(".json"):
        return read_split(spec), (HELD_OUT, TRAIN)
    return read_split(path), (part_name(part),)


def questions_of(split: Split, part: str) -> set[Question]:
    return {(c.environment, c.model_hash, question_identity(c.case_key)) for c in split.part(part)}


def keep_part(results: pd.DataFrame, split: Split, part: str) -> pd.DataFrame:
    """The executions of ``results`` whose question is in ``part`` of ``split``."""
    wanted = questions_of(split, part)
    keys = zip(
        results["environment"],
        results["model_hash"],
        (question_identity(k) for k in results["case_key"]),
        strict=True,
    )
    return results[[key in wanted for key in keys]]


def keep_part_of_both(
    base: pd.DataFrame, new: pd.DataFrame, split: Split, part: str, names: tuple[str, str]
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Both sides cut to ``part``; one line when a side keeps nothing (another model, or a file
    that never asked that part)."""
    kept = keep_part(base, split, part), keep_part(new, split, part)
    for side, frame in zip(names, kept, strict=True):
        if frame.empty:
            raise ExplaincheckError(
                f"{side} holds no case of the split's {part.replace('_', '-')} part"
                f" (made from {split.source or 'another file'})"
            )
    return kept
