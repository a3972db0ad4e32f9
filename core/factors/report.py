"""The report's factor section: the seed study's metrics per LLM and the says/does/true views.

``python -m explaincheck.core.factors.report DB [--out DIR]`` prints (or writes
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

from explaincheck.core.factors.behaviour import TABLE, views
from explaincheck.core.taxonomy.factors import factor_metrics

PAIRS = (("says", "does"), ("says", "true"), ("does", "true"))


def summary(db: str) -> dict[str, dict[str, Any]]:
    """Per environment and LLM (key "environment / llm"): cases, pass rate, mean precision (and
    the best achievable), mean Spearman ρ (over answers where it is defined), share of answers
    where an uncited factor outranks the lowest cited one, and the agreement of each pair of
    views (with its number of views)."""
    from explaincheck.core.store import Store

    with Store.open(db, create=False) as store:
        rows: list[Mapping[str, Any]] = [
            r for r in store.iter_executions(category="factors") if r["verdict"] != "error"
        ]
    connection = sqlite3.connect(db)
    try:
        connection.execute(TABLE)
        seen = views(connection, rows)
    finally:
        connection.close()
    result: dict[str, dict[str, Any]] = {}
    for environment, llm in sorted({(r["environment"], r["llm"]) for r in rows}):
        mine = [r for r in rows if r["llm"] == llm and r["environment"] == environment]
        keys = {r["exec_key"] for r in mine}
        graded = [r for r in mine if r["answer"]]
        metrics = [factor_metrics(list(r["answer"]["factors"]), r["expected"]) for r in graded]
        rhos = [m["spearman"] for m in metrics if m["spearman"] is not None]
        entry: dict[str, Any] = {
            "cases": len(mine),
            "pass": sum(r["verdict"] == "pass" for r in mine) / len(mine),
            "invalid": sum(r["verdict"] == "invalid" for r in mine),
            "precision": mean(m["precision"] for m in metrics) if metrics else None,
            "best_precision": mean(m["best_precision"] for m in metrics) if metrics else None,
            "spearman": mean(rhos) if rhos else None,
            "spearman_n": len(rhos),
            "uncited_outranks": (
                float(mean(m["uncited_outranks"] for m in metrics)) if metrics else None
            ),
        }
        every = [v for v in seen if v["case"] in keys]
        views_here = [v for v in every if v["does"] is not None]
        for a, b in PAIRS:
            pool = every if "does" not in (a, b) else views_here
            entry[f"{a}_{b}"] = float(mean(v[a] == v[b] for v in pool)) if pool else None
        entry["views"] = len(views_here)
        entry["does_changes"] = float(mean(v["does"] for v in views_here)) if views_here else None
        result[f"{environment} / {llm}"] = entry
    return result


def markdown(found: dict[str, dict[str, Any]]) -> str:
    def cell(value: Any) -> str:
        return "–" if value is None else f"{value:.2f}" if isinstance(value, float) else str(value)

    lines = [
        "## Why-questions (factors)",
        "",
        'Seed-study metrics per LLM (docs/method.md, "Why-questions (factors)"): precision of '
        "the cited set against the necessary set (best achievable in brackets), mean Spearman ρ "
        "between the cited order and the true influence (n = answers where ρ is defined), share "
        "of answers where an uncited factor outranks the lowest cited one.",
        "",
        "| environment / LLM | cases | pass | invalid | precision (best) | ρ (n)"
        " | uncited outranks |",
        "|---|---|---|---|---|---|---|",
    ]
    for llm, e in found.items():
        lines.append(
            f"| {llm} | {e['cases']} | {cell(e['pass'])} | {e['invalid']} | "
            f"{cell(e['precision'])} ({cell(e['best_precision'])}) | "
            f"{cell(e['spearman'])} ({e['spearman_n']}) | {cell(e['uncited_outranks'])} |"
        )
    lines += [
        "",
        "Behavioural check (`--behavioural`): per (case, factor), what the LLM **says** (cites "
        "it), what it **does** (its decision changes when the factor is neutralised) and what is "
        "**true** (the factor is necessary). Agreement = share of views where the two agree.",
        "",
        "| environment / LLM | views | decision changes | says~does | says~true | does~true |",
        "|---|---|---|---|---|---|",
    ]
    for llm, e in found.items():
        lines.append(
            f"| {llm} | {e['views']} | {cell(e['does_changes'])} | {cell(e['says_does'])} | "
            f"{cell(e['says_true'])} | {cell(e['does_true'])} |"
        )
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m explaincheck.core.factors.report")
    parser.add_argument("db")
    parser.add_argument("--out", default=None)
    args = parser.parse_args(argv)
    found = summary(args.db)
    text = markdown(found)
    if args.out:
        folder = Path(args.out)
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "factors.md").write_text(text, encoding="utf-8")
        (folder / "factors.json").write_text(json.dumps(found, indent=1), encoding="utf-8")
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
