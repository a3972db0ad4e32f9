"""``explaincheck faults``: how well the tests find known faults (reference flawed explainers)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from explaincheck.core.errors import ExplaincheckError

NAME = "faults"
HELP = """Measure fault detection with the reference explainers whose faults are known
(flaw:myopic:K, flaw:determinised, flaw:distance, flaw:danger-blind): per explainer,
environment and category the fail rate under prioritised and random selection, the detection
matrix (which questions catch which flaw), RQ1 with ground truth (does δ-prioritisation raise
the fail rate?), APFD of the whole candidate pool ordered by δ (averaged over its ties, per class
for the yes/no categories) against the exact expectation of a random order, the equivalent
mutants (a flaw that no case of a pool can tell from the oracle) listed apart, and the noisy:Q
calibration curve. These answerers need no LLM and no database: every candidate is
answered directly, so the analysis takes well under a minute per environment (the myopic
pictures ask Storm once per horizon and are cached).

Tables are printed and written with the figures (PNG and SVG) to --out as report.md and CSV.

examples:
  explaincheck faults --out faults
  explaincheck faults --env frozen_lake --env dam --llm flaw:myopic:3 --budget 10
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--env",
        action="append",
        default=[],
        metavar="ENV|MODEL",
        help="environment id or PRISM file (repeatable; default: all built-in environments)",
    )
    parser.add_argument(
        "--llm",
        action="append",
        default=[],
        metavar="SPEC",
        help="flawed explainer (repeatable; default: flaw:myopic:2, flaw:myopic:5, "
        "flaw:determinised, flaw:distance, flaw:danger-blind)",
    )
    parser.add_argument("--budget", type=int, default=20, help="cases per category (20)")
    parser.add_argument("--seed", type=int, default=0, help="seed of selection and orders (0)")
    parser.add_argument(
        "--no-calibration", action="store_true", help="skip the noisy:Q calibration curve"
    )
    parser.add_argument("--out", default="faults", help="output folder (default: faults)")


def run(args: argparse.Namespace) -> int:
    from explaincheck.core.analysis.fault_detection import fault_report
    from explaincheck.core.analysis.report import CSV, MARKDOWN, render_text, write_report
    from explaincheck.core.campaign.fault_runs import (
        CALIBRATION_SHARES,
        EXPLAINERS,
        FLAW_PREFIX,
        detect_faults,
    )
    from explaincheck.core.environments.registry import BUILTIN_IDS
    from explaincheck.core.oracle.flawed import parse_flaw

    explainers = tuple(args.llm) or EXPLAINERS
    for spec in explainers:
        if not spec.startswith(FLAW_PREFIX):
            raise ExplaincheckError(f"--llm {spec}: only flaw:... explainers can be analysed here")
        parse_flaw(spec.removeprefix(FLAW_PREFIX))
    if args.budget < 1:
        raise ExplaincheckError(f"--budget must be at least 1 (got {args.budget})")
    environments = tuple(args.env) or BUILTIN_IDS
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise ExplaincheckError(f"--out {out} is a file, not a folder")
    shares = () if args.no_calibration else CALIBRATION_SHARES
    detection = detect_faults(
        environments,
        explainers,
        budget=args.budget,
        seed=args.seed,
        shares=shares,
        progress=lambda env: print(f"explaincheck faults: {env} ...", file=sys.stderr),
    )
    report = fault_report(detection, environments)
    print(render_text(report))
    try:
        written = write_report(report, out, MARKDOWN)
        written += [p for p in write_report(report, out, CSV) if p.suffix == ".csv"]
    except OSError as error:
        raise ExplaincheckError(f"cannot write to {out}: {error.strerror}") from None
    print(f"wrote {len(set(written))} files to {out}")
    return 0
