"""What a share file holds: every execution of a results file, grouped by case, with the
oracle's values behind each verdict and each case's neighbourhood in the MDP.

Why grouped by case: a case's prompt, oracle values and neighbourhood are the same for every
LLM and repeat, so they are kept once (a 10,000-execution file stays small). Every text from
outside (prompts, replies, reasons, names) goes through ``safe_terminal`` first: control
characters, bidi overrides and lone surrogates become visible escapes, so neither the page nor
a reader is misled; the page then only ever sets ``textContent``.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from explaincheck.core.campaign.plugin_record import plugins_in_words, recorded_plugins
from explaincheck.core.campaign.regrade import _oracle_from
from explaincheck.core.oracle.types import OracleResult, StateFacts
from explaincheck.core.store import CampaignRow, Store, result_dict, rows_frame
from explaincheck.core.terminal_text import safe_terminal

log = logging.getLogger(__name__)
MAX_NEIGHBOURS = 24  # nodes drawn around a case's states (the rest is summarised as a count)
STABLE_PASS, STABLE_FAIL, FLAKY, SINGLE = "stable-pass", "stable-fail", "flaky", "single run"


def case_id(model_hash: str, case_key: str) -> str:
    """The case's id in ``#case=<id>``: stable for one model and case key."""
    return hashlib.sha256(f"{model_hash}|{case_key}".encode()).hexdigest()[:12]


def stability(verdicts: list[str]) -> str:
    """All repeats pass / all fail / both (errors left out); one run says no more than that."""
    graded = [v for v in verdicts if v != "error"]
    if len(graded) < 2:
        return SINGLE
    passes = sum(v == "pass" for v in graded)
    return STABLE_PASS if passes == len(graded) else STABLE_FAIL if passes == 0 else FLAKY


def clean(value: Any) -> Any:
    """``value`` with every string made safe (recursively); numbers and None as they are."""
    if isinstance(value, str):
        return safe_terminal(value)
    if isinstance(value, dict):
        return {clean(str(k)): clean(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [clean(v) for v in value]
    if isinstance(value, float) and value != value:
        return None
    return value


def build_bundle(db_path: str | Path) -> dict[str, Any]:
    """The share file's data: ``{"title", "llms", "categories", "cases": {id: case},
    "runs": [[case id, llm, repeat, verdict, reply, answer, reason], ...]}``."""
    cases: dict[str, dict[str, Any]] = {}
    runs: list[list[Any]] = []
    oracles: dict[str, OracleResult | None] = {}
    rows: list[dict[str, Any]] = []
    with Store.open(db_path, create=False, readonly=True) as store:
        campaigns = store.campaigns()
        settings = {c.model_hash: c.settings for c in campaigns}
        for row in store.iter_executions():
            rows.append(result_dict(row))
            cid = case_id(row["model_hash"], row["case_key"] or "")
            if cid not in cases:
                oracle = _oracle(row["model_hash"], settings.get(row["model_hash"]), oracles)
                cases[cid] = _case(row, oracle)
            runs.append(
                [
                    cid,
                    clean(row["llm"]),
                    row["repeat"],
                    row["verdict"],
                    clean(row["reply"] or ""),
                    clean(row["answer"]),
                    clean(row["reason"] or ""),
                ]
            )
    verdicts: dict[tuple[str, str], list[str]] = {}
    for run in runs:
        verdicts.setdefault((run[0], run[1]), []).append(run[3])
    stabilities = {f"{c}|{llm}": stability(v) for (c, llm), v in verdicts.items()}
    return {
        # the plugin packages the campaigns used: "explaincheck-mylab 0.1 (environment ...)"
        "plugins": clean(plugin_lines(settings.values())),
        "title": clean(Path(db_path).name),
        "llms": sorted({r[1] for r in runs}),
        "categories": list(dict.fromkeys(c["category"] for c in cases.values())),
        "cases": cases,
        "runs": runs,
        "stability": stabilities,
        "table1": table1(rows, campaigns),
    }


def table1(rows: list[dict[str, Any]], campaigns: list[CampaignRow]) -> dict[str, Any] | None:
    """``explaincheck report``'s Table 1 of every execution, as the page draws it: its title,
    the columns (dimension, category), one row per environment and LLM with its cells' texts
    and which are bold (prioritised harder than random), and the note under it. Computed here
    by the report's own functions, so the page shows the report's figures, whatever its
    filters list (issue 50: the page scored only the listed failures, 0.0 % for every LLM)."""
    if not rows:
        return None
    from explaincheck.core.analysis.layout import category_label
    from explaincheck.core.analysis.report import build_report  # pandas: only when sharing

    (section,) = build_report(rows_frame(rows), campaigns=campaigns, only={"table1"}).sections
    table = section.table
    bold = (
        section.bold.reindex(index=table.index, columns=table.columns, fill_value=False)
        if section.bold is not None
        else table.map(lambda _: False)
    )
    return clean(
        {
            "title": section.title,
            # dimension, category id, the short label the report's tables show (Sat., Bttl.)
            "columns": [[str(d), str(c), category_label(str(c))] for d, c in table.columns],
            "rows": [
                {
                    "environment": str(key[0]),
                    "llm": str(key[1]),
                    "cells": [str(v) for v in table.loc[key]],
                    "bold": [bool(v) for v in bold.loc[key]],
                }
                for key in table.index
            ],
            # the page has Table 1 alone: no intervals below it, no terminal
            "note": section.note.replace(" (see the intervals below)", "").replace(
                " (* on the terminal)", ""
            ),
        }
    )


def plugin_lines(settings: Iterable[dict[str, Any]]) -> list[str]:
    """Each plugin package the campaigns recorded, in words, once."""
    found = [plugins_in_words([entry]) for s in settings for entry in recorded_plugins(s)]
    return list(dict.fromkeys(found))


def _oracle(
    model_hash: str, settings: dict[str, Any] | None, found: dict[str, OracleResult | None]
) -> OracleResult | None:
    """The oracle a campaign ran against (usually from the cache), or None when it cannot be
    rebuilt here (a model file that moved): the case then shows what was stored."""
    if model_hash not in found:
        try:
            found[model_hash] = _oracle_from(settings, model_hash)
        except Exception as error:  # the share file is still written, without the oracle's values
            said = (
                str(error) if model_hash[:12] in str(error) else f"model {model_hash[:12]}: {error}"
            )
            log.warning("the share file shows no oracle values: %s", said)
            found[model_hash] = None
    return found[model_hash]


def _case(row: dict[str, Any], oracle: OracleResult | None) -> dict[str, Any]:
    states = [int(s) for s in row["states"] or []]
    case: dict[str, Any] = {
        "environment": clean(row["environment"]),
        "category": clean(row["category"]),
        "selection": row["selection"],
        "states": states,
        "delta": row["delta"],
        "prompt": clean(row["prompt"] or ""),
        "expected": clean(row["expected"]),
        "facts": [],
        "graph": {"nodes": [], "edges": [], "more": 0},
    }
    if oracle is not None:
        case["facts"] = [_facts(oracle.state(s)) for s in states if 0 <= s < len(oracle.states)]
        case["graph"] = neighbourhood(oracle, states)
    return case


def _facts(state: StateFacts) -> dict[str, Any]:
    return clean(
        {
            "id": state.id,
            "valuation": {k: v for k, v in state.valuation.items()},
            "V": state.value,
            "D": state.danger,
            "Q": dict(state.q),
            "best": list(state.best),
            "worst": list(state.worst),
            "dead_end": state.dead_end,
            "bottleneck": state.bottleneck,
            "goal": state.is_goal,
        }
    )


def neighbourhood(oracle: OracleResult, states: list[int]) -> dict[str, Any]:
    """The case's states and their successors (one step, every action), at most
    ``MAX_NEIGHBOURS`` nodes; edges carry the action and its probability."""
    nodes: list[int] = list(dict.fromkeys(states))
    edges: list[list[Any]] = []
    more = 0
    for source in states:
        for action, targets in oracle.state(source).successors.items():
            for target, probability in targets.items():
                if target not in nodes:
                    if len(nodes) >= MAX_NEIGHBOURS:
                        more += 1
                        continue
                    nodes.append(target)
                edges.append([source, int(target), clean(action), round(float(probability), 4)])
    facts = {n: oracle.state(n) for n in nodes}
    return {
        "nodes": [
            [n, round(facts[n].value, 4), facts[n].is_goal, facts[n].dead_end] for n in nodes
        ],
        "edges": edges,
        "more": more,
    }
