"""``split.json``: a partition of a results file's cases into *train* and *held-out*.

Why a file: the split is made once (``explaincheck split``) and then read by everything that must
agree on it: ``train-set`` writes training data from the train part only, ``run --shots-from``
takes its shots from the train part and asks the held-out part, and ``compare --cases`` judges
on one part. Each entry is one case key as ``results --json`` gives it, with what a reader needs
without the results file: its environment and model hash, its category, states, δ, and its
*neighbourhood* (its states and their successors, ``neighbourhood.py``), so the no-leak rule can
be checked from the file alone (``check_rule``). The rule, the seed and the model hashes are in
the file; its sha256 names it in the campaigns that use it.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from explaincheck.core.atomic_files import write_bytes_atomically
from explaincheck.core.errors import ExplaincheckError
from explaincheck.core.taxonomy.base import TestCase
from explaincheck.core.taxonomy.metamorphic import key_parts

FORMAT = "explaincheck-split"
VERSION = 1
TRAIN, HELD_OUT = "train", "held_out"
PARTS = (TRAIN, HELD_OUT)
BY_STATE, BY_ENVIRONMENT, BY_MODEL = "state", "environment", "model"
BY_CHOICES = (BY_STATE, BY_ENVIRONMENT, BY_MODEL)
# How a part is named on the command line (``--cases split.json:held-out``) and in the file.
PART_NAMES = {"held-out": HELD_OUT, "held_out": HELD_OUT, "heldout": HELD_OUT, "train": TRAIN}

RULE_TEXT = {
    BY_STATE: (
        "no held-out question shares a state with a training question, neither one of its states"
        " nor one of their successors (the neighbourhood of a question is its states and every"
        " state one action away from them; absorbing states, whose value the task fixes, are"
        " left out of successors): neighbourhood(held-out) and neighbourhood(train) are"
        " disjoint for every pair"
    ),
    BY_ENVIRONMENT: "whole environments are held out: no environment has cases in both parts",
    BY_MODEL: (
        "whole models are held out (environment and model hash): no model has cases in both"
        " parts; two models of one environment (other constants) may fall on either side"
    ),
}


@dataclass(frozen=True)
class SplitCase:
    """One case key of the results file, on one side of the split."""

    environment: str
    model_hash: str
    case_key: str
    category: str
    states: tuple[int, ...]
    neighbourhood: tuple[int, ...]
    delta: float
    selection: str
    index: int
    positive: bool | None = None
    reading: bool = False
    gap: float | None = None

    @property
    def model(self) -> tuple[str, str]:
        return (self.environment, self.model_hash)

    @property
    def question(self) -> tuple[str, tuple[int, ...], int, str]:
        """What makes two case keys the same question (both selections may draw it)."""
        parts = key_parts(self.case_key)
        return (self.category, self.states, parts["wording"], parts["variant"])

    def test_case(self, keep_do_nothing: bool = False) -> TestCase:
        """The test case this entry names (what a prompt is rendered from and graded as)."""
        return TestCase(
            category=self.category,
            states=self.states,
            delta=self.delta,
            selection=self.selection,
            index=self.index,
            positive=self.positive,
            **key_parts(self.case_key),
            reading=self.reading,
            gap=self.gap,
            keep_do_nothing=keep_do_nothing,
        )

    def as_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["states"] = list(self.states)
        data["neighbourhood"] = list(self.neighbourhood)
        return data

    @classmethod
    def from_json(cls, data: Any) -> SplitCase:
        if not isinstance(data, dict):
            raise ValueError("an entry is not an object")
        missing = [name for name in ("environment", "model_hash", "case_key") if name not in data]
        if missing:
            raise ValueError(f"an entry has no {', '.join(missing)}")
        values = {name: data[name] for name in cls.__dataclass_fields__ if name in data}
        for name in ("states", "neighbourhood"):
            raw = data.get(name)
            if not isinstance(raw, list) or not all(
                isinstance(s, int) and not isinstance(s, bool) for s in raw
            ):
                raise ValueError(f"entry {data['case_key']!r}: {name} is not a list of state ids")
            values[name] = tuple(raw)
        for name in ("environment", "model_hash", "case_key", "category", "selection"):
            if not isinstance(values.get(name), str):
                raise ValueError(f"entry {data.get('case_key')!r}: {name} is not a text")
        if not isinstance(values.get("delta"), int | float) or isinstance(values["delta"], bool):
            raise ValueError(f"entry {data['case_key']!r}: delta is not a number")
        if not isinstance(values.get("index"), int) or isinstance(values["index"], bool):
            raise ValueError(f"entry {data['case_key']!r}: index is not a whole number")
        values["delta"] = float(values["delta"])
        values["reading"] = bool(values.get("reading"))
        return cls(**values)


@dataclass(frozen=True)
class Split:
    """The two parts, the rule that made them, and what was left out to keep the rule."""

    by: str
    held_out_share: float
    seed: int
    train: tuple[SplitCase, ...]
    held_out: tuple[SplitCase, ...]
    left_out: tuple[SplitCase, ...] = ()
    models: tuple[dict[str, Any], ...] = ()  # environment, model_hash, states, held-out region
    source: str = ""  # the results file it was made from
    made_with: str = ""  # explaincheck's version
    sha256: str = field(default="", compare=False)  # of the file as written or read

    def part(self, name: str) -> tuple[SplitCase, ...]:
        return {TRAIN: self.train, HELD_OUT: self.held_out}[name]

    def as_json(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "version": VERSION,
            "rule": {"by": self.by, "text": RULE_TEXT[self.by]},
            "held_out_share": self.held_out_share,
            "seed": self.seed,
            "source": self.source,
            "made_with": self.made_with,
            "models": list(self.models),
            "counts": {
                name: category_counts(cases)
                for name, cases in (
                    (TRAIN, self.train),
                    (HELD_OUT, self.held_out),
                    ("left_out", self.left_out),
                )
            },
            TRAIN: [c.as_json() for c in self.train],
            HELD_OUT: [c.as_json() for c in self.held_out],
            "left_out": [c.as_json() for c in self.left_out],
        }


def category_counts(cases: Iterable[SplitCase]) -> dict[str, int]:
    """Distinct questions per category (two case keys of one question count once)."""
    seen: dict[str, set[tuple[str, str, Any]]] = {}
    for case in cases:
        seen.setdefault(case.category, set()).add((*case.model, case.question))
    return {category: len(questions) for category, questions in sorted(seen.items())}


def split_text(split: Split) -> str:
    """The file's text: indented JSON, keys in a fixed order, strict (no NaN)."""
    return json.dumps(split.as_json(), indent=1, ensure_ascii=False, allow_nan=False) + "\n"


def write_split(split: Split, path: str | Path) -> str:
    """Write ``split`` (checked against its rule first) and return the file's sha256."""
    check_rule(split)
    data = split_text(split).encode()
    target = Path(path)
    try:
        write_bytes_atomically(target, data)
    except OSError as error:
        raise ExplaincheckError(f"{target}: cannot write it ({error.strerror or error})") from None
    return hashlib.sha256(data).hexdigest()


def read_split(path: str | Path) -> Split:
    """The split in ``path``; one line naming the file and the problem when it is not one (or
    when its parts break their rule: a hand-edited file is refused, not trusted)."""
    source = Path(path)
    try:
        data = source.read_bytes()
    except FileNotFoundError:
        raise ExplaincheckError(
            f"{source}: no such file (make one with explaincheck split)"
        ) from None
    except OSError as error:
        raise ExplaincheckError(f"{source}: cannot read it ({error.strerror or error})") from None
    try:
        found = json.loads(data.decode("utf-8"), parse_constant=_no_constant)
    except (UnicodeDecodeError, ValueError) as error:
        raise ExplaincheckError(f"{source}: not a split file (not JSON: {error})") from None
    if not isinstance(found, dict) or found.get("format") != FORMAT:
        raise ExplaincheckError(f'{source}: not a split file (no "format": "{FORMAT}")')
    try:
        rule = found["rule"]
        by = rule["by"] if isinstance(rule, dict) else None
        if by not in BY_CHOICES:
            raise ValueError(f"unknown rule {by!r}")
        parts = {}
        for name in (*PARTS, "left_out"):
            entries = found.get(name, [])
            if not isinstance(entries, list):
                raise ValueError(f"{name!r} is not a list")
            parts[name] = tuple(SplitCase.from_json(e) for e in entries)
        split = Split(
            by=by,
            held_out_share=float(found.get("held_out_share", 0.0)),
            seed=int(found.get("seed", 0)),
            train=parts[TRAIN],
            held_out=parts[HELD_OUT],
            left_out=parts["left_out"],
            models=tuple(m for m in found.get("models", []) if isinstance(m, dict)),
            source=str(found.get("source", "")),
            made_with=str(found.get("made_with", "")),
            sha256=hashlib.sha256(data).hexdigest(),
        )
    except (KeyError, TypeError, ValueError) as error:
        raise ExplaincheckError(f"{source}: not a readable split ({error})") from None
    try:
        check_rule(split)
    except ExplaincheckError as error:
        raise ExplaincheckError(f"{source}: {error}") from None
    return split


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def check_rule(split: Split) -> None:
    """Refuse a split whose parts break its rule (one line naming the two cases): by state, no
    training case's neighbourhood meets a held-out case's; by environment or model, no
    environment (model) has cases on both sides."""
    if split.by == BY_STATE:
        held: dict[tuple[str, str], dict[int, SplitCase]] = {}
        for case in split.held_out:
            for state in case.neighbourhood:
                held.setdefault(case.model, {}).setdefault(state, case)
        for case in split.train:
            near = held.get(case.model, {})
            for state in case.neighbourhood:
                if state in near:
                    other = near[state]
                    raise ExplaincheckError(
                        f"the split breaks its rule: training case {case.environment}/"
                        f"{case.case_key} and held-out case {other.environment}/{other.case_key}"
                        f" share state {state} in their neighbourhoods"
                    )
        return
    name = (lambda c: c.environment) if split.by == BY_ENVIRONMENT else (lambda c: c.model)
    held_units = {name(c): c for c in split.held_out}
    for case in split.train:
        if name(case) in held_units:
            raise ExplaincheckError(
                f"the split breaks its rule: {case.environment} ({case.model_hash[:12]}) has"
                f" cases in both parts ({case.case_key} and {held_units[name(case)].case_key})"
            )


def part_name(text: str) -> str:
    """``held-out``/``held_out``/``train`` -> the file's part name (one line if unknown)."""
    found = PART_NAMES.get(text.strip().lower())
    if found is None:
        raise ExplaincheckError(f"unknown part {text!r} of a split (held-out or train)")
    return found
