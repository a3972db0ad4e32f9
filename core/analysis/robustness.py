"""How robust a score is: to the wording of the question, to metamorphic variants of a case, and
to sampling (repeats).

- Wording spread: the score of each LLM and category under each phrasing (variants left out);
  a large spread means the score measures the wording more than the explainer.
- Consistency: the share of case families (a case and its metamorphic variants, same LLM and
  repeat) whose answers all agree once the transformation is undone. It ignores correctness:
  a model can be consistently wrong.
- Repeats: agreement between the k repeats of a case, the majority-vote score (a case passes
  when more than half of its executions pass), pass^k (all k pass) and pass@k (at least one
  of k passes), the same cases and estimators as the stability table (``stability``: k the
  repeat count, a question both selections drew one case).

Answers are compared through ``metamorphic.canonical_answer`` (a state letter becomes the state
it names); two probabilities agree when they differ by at most the grading tolerance.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from explaincheck.core.analysis.layout import order_categories, order_llms
from explaincheck.core.analysis.paired import question_identity
from explaincheck.core.analysis.scores import case_scores
from explaincheck.core.analysis.stability import (
    CASE_KEYS,
    UNSCORED,
    independent_runs,
    pass_k_estimates,
    repeated_cases,
)
from explaincheck.core.backends.llama_binding import DETERMINISM
from explaincheck.core.taxonomy.base import ERROR
from explaincheck.core.taxonomy.metamorphic import canonical_answer, key_parts

PROBABILITY_TOLERANCE = 0.05  # two probability answers agree within this (the grading default)


def _with_identity(results: pd.DataFrame) -> pd.DataFrame:
    """``wording``, ``family`` and ``variant`` for every row (read from the case key when an
    older frame lacks the columns)."""
    parts = results["case_key"].map(key_parts)
    frame = results.assign(variant=[p["variant"] for p in parts])
    if "wording" not in frame.columns or frame["wording"].isna().any():
        frame["wording"] = [p["wording"] for p in parts]
    if "family" not in frame.columns or frame["family"].isna().any():
        frame["family"] = [
            p["origin"] or key for p, key in zip(parts, results["case_key"], strict=True)
        ]
    frame["wording"] = frame["wording"].astype(int)
    return frame


def canonical(row: dict[str, Any] | pd.Series) -> Any:
    """The row's answer with its metamorphic transformation undone (None when unreadable)."""
    answer = row["answer"]
    if not isinstance(answer, dict) or len(answer) != 1:
        return None
    key, value = next(iter(answer.items()))
    names: tuple[str, ...] | list[str] = ()
    if key == "state":
        schema = row.get("schema") or {}
        names = schema.get("properties", {}).get("state", {}).get("enum", ())
    return canonical_answer(key, value, list(row["states"]), names)


def agree(answers: Sequence[Any], tolerance: float = PROBABILITY_TOLERANCE) -> bool:
    """Whether all canonical answers are the same (probabilities: within ``tolerance``)."""
    if all(isinstance(a, (int, float)) and not isinstance(a, bool) for a in answers):
        return bool(max(answers) - min(answers) <= tolerance + 1e-12)
    first = answers[0]
    return all(a == first for a in answers[1:])


def wording_table(results: pd.DataFrame) -> pd.DataFrame:
    """Per LLM and category: the score under each wording (pooled over environments and
    selections, metamorphic variants left out), and the spread max − min."""
    frame = _with_identity(results)
    frame = frame[frame["variant"] == ""]
    if frame.empty:
        return pd.DataFrame()
    cases = case_scores(frame)
    cases["wording"] = cases["case_key"].map(lambda k: key_parts(k)["wording"])
    wide = cases.pivot_table(
        index=["llm", "category"], columns="wording", values="score", aggfunc="mean"
    )
    wide.columns = [f"wording {w}" for w in wide.columns]
    wide["spread"] = wide.max(axis=1) - wide.min(axis=1)
    counts = cases.groupby(["llm", "category"]).size().rename("cases")
    wide = wide.join(counts)
    return _ordered(wide)


def family_answers(results: pd.DataFrame) -> pd.DataFrame:
    """One row per case family (environment, LLM, family, repeat) that has at least one
    metamorphic variant: whether all answers agree, and per variant whether it agrees with the
    untransformed case. Executions without a reply (``error``) are left out."""
    frame = _with_identity(results)
    frame = frame[frame["verdict"] != ERROR]
    frame = frame.assign(answer_=[canonical(r) for _, r in frame.iterrows()])
    keys = ["environment", "llm", "category", "family", "repeat"]
    rows = []
    for key, group in frame.groupby(keys, sort=False):
        if len(group) < 2 or not (group["variant"] != "").any():
            continue
        answers = list(group["answer_"])
        row = dict(zip(keys, key, strict=True), members=len(group), consistent=agree(answers))
        original = group[group["variant"] == ""]["answer_"]
        for variant, answer in zip(group["variant"], group["answer_"], strict=True):
            if variant and len(original):
                row[variant] = agree([original.iat[0], answer])
        rows.append(row)
    return pd.DataFrame(rows)


def consistency_table(results: pd.DataFrame) -> pd.DataFrame:
    """Per LLM and category: families, the consistency score (share of families whose answers
    all agree) and, per variant, the share agreeing with the untransformed case."""
    families = family_answers(results)
    if families.empty:
        return pd.DataFrame()
    variants = [c for c in families.columns if c not in _FAMILY_COLUMNS]
    table = families.groupby(["llm", "category"]).agg(
        families=("consistent", "size"), consistency=("consistent", "mean")
    )
    for variant in variants:
        table[variant] = families.groupby(["llm", "category"])[variant].mean()
    return _ordered(table)


_FAMILY_COLUMNS = {"environment", "llm", "category", "family", "repeat", "members", "consistent"}


def repeat_cases(results: pd.DataFrame) -> pd.DataFrame:
    """One row per distinct case asked k ≥ 2 times (``stability.repeated_cases``: the same
    case, the same k as the stability table; a question both selections drew is one case):
    its runs, passes, k, and whether all its answers agree."""
    cases = repeated_cases(results)
    if cases.empty:
        return cases.assign(agreement=pd.Series(dtype=bool))
    scored = independent_runs(results)
    scored = scored[~scored["verdict"].isin(UNSCORED)]
    scored = scored.assign(
        case=[question_identity(k) for k in scored["case_key"]],
        answer_=[canonical(r) for _, r in scored.iterrows()],
    )
    answers = scored.groupby(CASE_KEYS, sort=False)["answer_"].agg(list)
    agreement = [agree(answers.loc[key]) for key in cases[CASE_KEYS].itertuples(index=False)]
    return cases.assign(agreement=agreement)


def repeat_table(results: pd.DataFrame) -> pd.DataFrame:
    """Per LLM and category over the cases asked k ≥ 2 times: agreement, the mean score, the
    majority-vote score, pass^k and pass@k (the stability table's estimators, at the same k)."""
    cases = repeat_cases(results)
    if cases.empty:
        return pd.DataFrame()
    rows = []
    for (llm, category), group in cases.groupby(["llm", "category"], sort=False):
        estimates = pass_k_estimates(group)
        rows.append(
            {
                "llm": llm,
                "category": category,
                "cases": len(group),
                "k": int(group["k"].iat[0]),
                "agreement": float(group["agreement"].mean()),
                "score": float((group["passes"] / group["runs"]).mean()),
                "majority_vote": float((group["passes"] > group["runs"] / 2).mean()),
                "pass^k": estimates["pass^k"],
                "pass@k": estimates["pass@k"],
            }
        )
    return _ordered(pd.DataFrame(rows).set_index(["llm", "category"]))


def _ordered(table: pd.DataFrame) -> pd.DataFrame:
    """Rows in the report's LLM and category order."""
    if table.empty:
        return table
    llms = order_llms(table.index.get_level_values("llm").unique())
    categories = order_categories(table.index.get_level_values("category").unique())
    rank = {name: i for i, name in enumerate(llms)}
    crank = {name: i for i, name in enumerate(categories)}
    order = sorted(table.index, key=lambda ix: (rank[ix[0]], crank.get(ix[1], np.inf)))
    return table.loc[order]


def determinism_note(results: pd.DataFrame) -> str:
    """What a local model's repeats can vary by (``llama_binding.DETERMINISM``), when one ran:
    a repeat-stability figure built on them must say whether the runs were reproducible."""
    if not results["llm"].astype(str).str.startswith("local").any():
        return ""
    return (
        f" Local models run reproducibly for a fixed seed ({DETERMINISM['threads']} threads, "
        f"batches of {DETERMINISM['batch']} tokens, no prefix cache; stored with each reply): "
        "their repeats differ only by each repeat's own seed and temperature."
    )
