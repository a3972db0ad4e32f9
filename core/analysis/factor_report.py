"""The report's factor section: the seed study's metrics per LLM and the says/does/true views.

``python -m explaincheck.core.analysis.factor_report DB [--out DIR]`` prints (or writes
``DIR/factors.md`` and ``DIR/factors.json``) from a results database alone: the ``factors``
executions hold the truth in their expected answer, ``factor_behaviour`` the behavioural probes.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import sys
from collections.abc import Mapping
from pathlib import Path
from statistics import mean
from typing import Any

from explaincheck.core.atomic_files import write_text_atomically
from explaincheck.core.store import Store
from explaincheck.core.taxonomy.factor_probes import BASELINE, SUFFICIENCY_MARK, TRIALS
from explaincheck.core.taxonomy.factors import KINDS, factor_metrics
from explaincheck.core.taxonomy.probes import trial_name

PAIRS = (("says", "does"), ("says", "true"), ("does", "true"))


def _trials(asked: Mapping[str, str | None], probe: str) -> list[str]:
    """The answered actions of every stored trial of ``probe``."""
    names = [trial_name(probe, t) for t in range(TRIALS)]
    return [a for a in (asked.get(n) for n in names) if a is not None]


def views(
    connection: sqlite3.Connection, executions: list[Mapping[str, Any]]
) -> list[dict[str, Any]]:
    """Per stored ``factors`` execution and factor: says (cited); pn, the share of the necessity
    probe's trials whose decision differs from the baseline's (its commonest answer over its
    trials), and does = pn > ½; ps, the share of the sufficiency probe's trials that keep the
    baseline decision, and keeps = ps > ½ (None where no trial answered); true (necessary) and
    sufficient (the truth)."""
    from collections import Counter

    rows = []
    for execution in executions:
        expected, answer = execution.get("expected") or {}, execution.get("answer") or {}
        asked = {
            probe: action
            for probe, action in connection.execute(
                "SELECT probe, action FROM factor_behaviour WHERE llm = ? AND exec_key = ?",
                (execution["llm"], execution["exec_key"]),
            )
        }
        baselines = _trials(asked, BASELINE)
        baseline = Counter(baselines).most_common(1)[0][0] if baselines else None
        for factor in expected.get("strength") or {}:
            changed = _trials(asked, factor)
            kept = _trials(asked, factor + SUFFICIENCY_MARK)
            pn = (
                sum(a != baseline for a in changed) / len(changed)
                if baseline is not None and changed
                else None
            )
            ps = (
                sum(a == baseline for a in kept) / len(kept)
                if baseline is not None and kept
                else None
            )
            rows.append(
                {
                    "llm": execution["llm"],
                    "case": execution["exec_key"],
                    "factor": factor,
                    "says": factor in (answer.get("factors") or []),
                    "pn": pn,
                    "does": None if pn is None else pn > 0.5,
                    "ps": ps,
                    "keeps": None if ps is None else ps > 0.5,
                    "true": factor in (expected.get("necessary") or []),
                    "sufficient": factor in (expected.get("sufficient") or []),
                }
            )
    return rows


def summary(db: str) -> dict[str, dict[str, Any]]:
    """Per environment and LLM (key "environment / llm"): cases, pass rate and, under necessity
    and under sufficiency apart (keys suffixed ``_sufficiency``), mean precision (and the best
    achievable), mean Spearman ρ (over answers where it is defined), share of answers where an
    uncited factor outranks a cited one, share whose order passes; the agreement of each pair of
    views (with its number of views), mean PN and PS of the behavioural probes."""
    with Store.open(db, create=False) as store:
        rows: list[Mapping[str, Any]] = [
            r for r in store.iter_executions(category="factors") if r["verdict"] != "error"
        ]
    connection = sqlite3.connect(f"{Path(db).resolve().as_uri()}?mode=ro", uri=True)
    try:  # read only: the store is the only writer (no --behavioural run: no probe table)
        probed = connection.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'factor_behaviour'"
        ).fetchone()
        seen = views(connection, rows) if probed else []
    finally:
        connection.close()
    result: dict[str, dict[str, Any]] = {}
    for environment, llm in sorted({(r["environment"], r["llm"]) for r in rows}):
        mine = [r for r in rows if r["llm"] == llm and r["environment"] == environment]
        keys = {r["exec_key"] for r in mine}
        graded = [r for r in mine if r["answer"]]
        metrics = [factor_metrics(list(r["answer"]["factors"]), r["expected"]) for r in graded]
        entry: dict[str, Any] = {
            "cases": len(mine),
            "pass": sum(r["verdict"] == "pass" for r in mine) / len(mine),
            "invalid": sum(r["verdict"] == "invalid" for r in mine),
        }
        entry["unreachable"] = max(
            (int(r["expected"].get("unreachable", 0)) for r in mine), default=0
        )
        for suffix in ("", "_sufficiency"):  # necessity (the verdict's criterion), sufficiency
            for kind in ("", *(f"_{k}" for k in KINDS)):  # one scale (graded), then per kind
                key = f"spearman{kind}{suffix}"
                rhos = [m[key] for m in metrics if m[key] is not None]
                entry[key], entry[f"{key}_n"] = _mean(rhos), len(rhos)
            entry.update(
                {
                    f"precision{suffix}": _mean([m[f"precision{suffix}"] for m in metrics]),
                    f"best_precision{suffix}": _mean(
                        [m[f"best_precision{suffix}"] for m in metrics]
                    ),
                    f"uncited_outranks{suffix}": _mean(
                        [float(m[f"uncited_outranks{suffix}"]) for m in metrics]
                    ),
                    f"passes{suffix}": _mean([float(m[f"passes{suffix}"]) for m in metrics]),
                }
            )
        every = [v for v in seen if v["case"] in keys]
        views_here = [v for v in every if v["does"] is not None]
        for a, b in PAIRS:
            pool = every if "does" not in (a, b) else views_here
            entry[f"{a}_{b}"] = float(mean(v[a] == v[b] for v in pool)) if pool else None
        entry["views"] = len(views_here)
        entry["does_changes"] = float(mean(v["does"] for v in views_here)) if views_here else None
        entry["pn"] = _mean([v["pn"] for v in views_here])
        kept = [v for v in every if v["keeps"] is not None]
        entry["sufficiency_views"] = len(kept)
        entry["ps"] = _mean([v["ps"] for v in kept])
        entry["keeps_sufficient"] = _mean([float(v["keeps"] == v["sufficient"]) for v in kept])
        result[f"{environment} / {llm}"] = entry
    return result


def _mean(values: list) -> float | None:
    return float(mean(values)) if values else None


def markdown(found: dict[str, dict[str, Any]]) -> str:
    def cell(value: Any) -> str:
        return "–" if value is None else f"{value:.2f}" if isinstance(value, float) else str(value)

    lines = [
        "## Why-questions (factors)",
        "",
        'Seed-study metrics per LLM (docs/method.md, "Why-questions (factors)"), under '
        "necessity (the verdict's criterion, the prompt's meaning of influence) and under "
        "sufficiency apart: precision of the cited set against the necessary (sufficient) set "
        "(best achievable in brackets), mean Spearman ρ between the cited order and the graded "
        "score over the cited factors (the one scale the verdict grades, model and state "
        "factors alike) and within each kind (n = answers where ρ is defined), share of answers "
        "where an uncited factor outranks a cited one (a higher score on that scale), share "
        "whose cited order passes under that criterion. Sufficiency is "
        "seed 002's PS: a tie of k optimal actions keeps the decision with 1/k per factual "
        "best action among them. unreachable = decided states left out because an "
        "intervention makes them unreachable.",
        "",
        "| environment / LLM | cases | unreachable | pass | invalid | criterion | precision (best)"
        " | ρ (n) | ρ model (n) | ρ state (n) | uncited outranks | order passes |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for llm, e in found.items():
        for suffix, criterion in (("", "necessity"), ("_sufficiency", "sufficiency")):
            lead = (
                f"| {llm} | {e['cases']} | {e['unreachable']} | {cell(e['pass'])} | "
                f"{e['invalid']} |"
                if not suffix
                else "| | | | | |"
            )
            rhos = " | ".join(
                f"{cell(e[f'spearman{kind}{suffix}'])} ({e[f'spearman{kind}{suffix}_n']})"
                for kind in ("", *(f"_{k}" for k in KINDS))
            )
            lines.append(
                f"{lead} {criterion} | {cell(e[f'precision{suffix}'])} "
                f"({cell(e[f'best_precision{suffix}'])}) | {rhos} | "
                f"{cell(e[f'uncited_outranks{suffix}'])} | {cell(e[f'passes{suffix}'])} |"
            )
    lines += [
        "",
        "Behavioural check (`--behavioural`, each probe asked 3 times): per (case, factor), "
        "what the LLM **says** (cites it), what it **does** (PN = share of trials whose decision "
        "changes when the factor is changed; does = PN > ½), what is **true** (the factor is "
        "necessary), and PS = share of trials that keep the decision when only the factor is "
        "kept (keeps = PS > ½, against the true sufficiency). Agreement = share of views where "
        "the two agree.",
        "",
        "| environment / LLM | views | PN | says~does | says~true | does~true | PS (views)"
        " | keeps~sufficient |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for llm, e in found.items():
        lines.append(
            f"| {llm} | {e['views']} | {cell(e['pn'])} | {cell(e['says_does'])} | "
            f"{cell(e['says_true'])} | {cell(e['does_true'])} | {cell(e['ps'])} "
            f"({e['sufficiency_views']}) | {cell(e['keeps_sufficient'])} |"
        )
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m explaincheck.core.analysis.factor_report")
    parser.add_argument("db")
    parser.add_argument("--out", default=None)
    args = parser.parse_args(argv)
    found = summary(args.db)
    text = markdown(found)
    if args.out:
        folder = Path(args.out)
        folder.mkdir(parents=True, exist_ok=True)
        write_text_atomically(folder / "factors.md", text)
        write_text_atomically(folder / "factors.json", json.dumps(found, indent=1))
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
