"""Do stored verdicts depend on the value method? (issue 33.8)

For every built-in environment (and, with ``--corpus``, every MDP file of the installed stormpy
wheel that the oracle checks: ``tests/core/oracle/test_stormpy_corpus.py``'s corpus and goal
label), the oracle is computed under ``exact`` (Storm's Rational engine) and under ``verified``
(floats with the bounded certificate's intervals). The same cases are planned on the exact
oracle (both selections of every applicable category, ``--budget`` each), answered directly by
``random``, ``noisy:0.5`` and the ``oracle`` answerer (no LLM, ``analysis/controls.py``), and
every reply is graded against both oracles. Printed per model: the cases, the replies graded,
how many verdicts differ between the methods where the verified one is decided (goal: 0), how
many are ``uncertain`` under the verified method (the intervals cannot decide them: left out of
scores), how many replies the verified oracle cannot grade at all (a pair it calls tied), the
certificate's ``max_width`` and the seconds spent. Exit status 1 when any verdict differs.

    python benchmarks/verdict_agreement.py [--budget 20] [--seed 0] [--corpus] [--markdown]
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass, replace
from pathlib import Path

from explaincheck.core.backends.noisy_backend import NoisyBackend
from explaincheck.core.backends.oracle_backend import OracleBackend
from explaincheck.core.backends.random_backend import RandomBackend
from explaincheck.core.environments.registry import BUILTIN_IDS, resolve
from explaincheck.core.environments.types import Environment
from explaincheck.core.errors import ExplaincheckError
from explaincheck.core.oracle import compute_oracle
from explaincheck.core.oracle.types import EXACT, VERIFIED, OracleResult
from explaincheck.core.taxonomy.base import PRIORITIZED, RANDOM, UNCERTAIN, TestCase
from explaincheck.core.taxonomy.grading import grade_reply
from explaincheck.core.taxonomy.registry import CATEGORIES, applicability
from explaincheck.core.taxonomy.selection import select_cases

ANSWERERS = ("random", "noisy:0.5", "oracle")


@dataclass
class Agreement:
    name: str
    states: int
    cases: int = 0
    replies: int = 0
    differ: int = 0
    uncertain: int = 0
    ungradable: int = 0
    max_width: float = 0.0
    seconds: float = 0.0
    note: str = ""


def planned(truth: OracleResult, budget: int, seed: int) -> list[TestCase]:
    """Both selections of every applicable category, as a campaign plans them."""
    applicable = applicability(truth)
    cases: dict[str, TestCase] = {}
    for category_id in CATEGORIES:
        if not applicable[category_id].applicable:
            continue
        for selection in (PRIORITIZED, RANDOM):
            for case in select_cases(truth, category_id, budget, selection, seed):
                cases.setdefault(case.key, case)
    return list(cases.values())


def same_states(exact: OracleResult, verified: OracleResult) -> bool:
    """Whether both methods number the states alike (same build, same ids)."""
    if len(exact.states) != len(verified.states):
        return False
    return all(
        e.valuation == v.valuation for e, v in zip(exact.states, verified.states, strict=True)
    )


def agreement(
    name: str, environment: Environment, budget: int, seed: int, **overrides: str
) -> Agreement:
    started = time.perf_counter()
    request = environment.request(**overrides)
    exact = compute_oracle(replace(request, method=EXACT))
    verified = compute_oracle(replace(request, method=VERIFIED))
    found = Agreement(name, exact.model.states)
    certificate = verified.certificate
    found.max_width = certificate.max_width if certificate is not None else float("nan")
    if not same_states(exact, verified):
        found.note = "the methods number the states differently"
        return found
    answerers = {
        "random": RandomBackend(exact, environment, seed),
        "noisy:0.5": NoisyBackend(exact, 0.5, environment, seed),
        "oracle": OracleBackend(exact),
    }
    cases = planned(exact, budget, seed)
    found.cases = len(cases)
    for case in cases:
        for answerer in answerers.values():
            text = answerer.reply_text(case)
            truth = grade_reply(case, text, exact)
            found.replies += 1
            try:
                bounded = grade_reply(case, text, verified)
            except (ValueError, KeyError, ExplaincheckError):
                found.ungradable += 1
                continue
            if bounded.verdict == UNCERTAIN:
                found.uncertain += 1
            elif bounded.verdict != truth.verdict:
                found.differ += 1
    found.seconds = time.perf_counter() - started
    return found


def corpus() -> list[tuple[Path, str]]:
    """The stormpy wheel's MDP files with a goal label (``goal`` or the first label)."""
    import stormpy

    found = []
    folder = Path(stormpy.__file__).parent / "examples" / "files" / "mdp"
    for path in sorted(folder.glob("*.nm")):
        try:
            labels = [label.name for label in stormpy.parse_prism_program(str(path)).labels]
        except Exception:
            continue
        if labels:
            found.append((path, "goal" if "goal" in labels else labels[0]))
    return found


def table(rows: list[Agreement], markdown: bool) -> str:
    head = (
        "model",
        "states",
        "cases",
        "replies",
        "differ",
        "uncertain",
        "ungradable",
        "max_width",
        "s",
    )
    lines = []
    for r in rows:
        values = (
            r.name,
            f"{r.states:,}",
            str(r.cases),
            str(r.replies),
            str(r.differ),
            str(r.uncertain),
            str(r.ungradable),
            f"{r.max_width:.2g}",
            f"{r.seconds:.1f}",
        )
        lines.append(values if not r.note else (r.name, f"{r.states:,}", r.note, *[""] * 6))
    if markdown:
        out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        out += ["| " + " | ".join(v) + " |" for v in lines]
        return "\n".join(out)
    widths = [max(len(h), *(len(v[i]) for v in lines)) for i, h in enumerate(head)]
    out = ["  ".join(h.ljust(w) for h, w in zip(head, widths, strict=True))]
    out += ["  ".join(v.ljust(w) for v, w in zip(values, widths, strict=True)) for values in lines]
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budget", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--corpus", action="store_true", help="add the stormpy corpus")
    parser.add_argument("--markdown", action="store_true")
    args = parser.parse_args(argv)
    rows = []
    for env_id in BUILTIN_IDS:
        rows.append(agreement(env_id, resolve(env_id), args.budget, args.seed))
        print(f"{env_id}: done in {rows[-1].seconds:.1f} s", file=sys.stderr)
    if args.corpus:
        for path, goal in corpus():
            try:
                environment = resolve(str(path), goal_label=goal)
                rows.append(agreement(path.name, environment, args.budget, args.seed))
            except ExplaincheckError as refused:
                print(f"{path.name}: refused: {refused}", file=sys.stderr)
                continue
            print(f"{path.name}: done in {rows[-1].seconds:.1f} s", file=sys.stderr)
    print(table(rows, args.markdown))
    total = sum(r.differ for r in rows)
    uncertain = sum(r.uncertain for r in rows)
    replies = sum(r.replies for r in rows)
    print(f"\n{replies} replies graded twice: {total} verdicts differ, {uncertain} uncertain")
    return 1 if total else 0


if __name__ == "__main__":
    sys.exit(main())
