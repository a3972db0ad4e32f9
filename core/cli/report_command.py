"""``explaincheck report``: the evaluation's tables and figures from a results database."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from explaincheck.core.errors import ExplaincheckError

if TYPE_CHECKING:
    import pandas as pd

    from explaincheck.core.analysis.report_parts import Section

NAME = "report"
HELP = """Turn stored results into the evidence of the evaluation in "Automated Testing of
LLM-Based Post Hoc Explainers Using Model Checking as an Oracle" (section 6.2; the method is
summarised in docs/method.md): the campaign facts, Table 1 (score per category,
prioritised/random), invalid shares and error counts, the prioritisation effect (RQ1, one-sided
Wilcoxon signed-rank test), the model comparison (RQ2), category difficulty (RQ3, Figure 3) and
the satisfy errors under both grading rules. Nothing asks an LLM, and the results file is only
read.

The tables are printed here and written with the figures (PNG and SVG) to --out; --format html
writes one self-contained report.html to mail to a colleague.

examples:
  explaincheck report --db results.sqlite
  explaincheck report --db results.sqlite --out report --format html
  explaincheck report --db new.sqlite --base base.sqlite   # adds the comparison with a base
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--db", required=True, help="the results database (SQLite)")
    parser.add_argument(
        "--out", default=None, help="folder for tables and figures (default: DB name + _report)"
    )
    parser.add_argument(
        "--format",
        choices=["md", "csv", "html"],
        default="md",
        help="file format of the tables (default: md); figures are always PNG and SVG",
    )
    parser.add_argument(
        "--exclude-reading",
        action="store_true",
        help="leave the reading cases (a failure state the words give away, docs/method.md)"
        " out of every score",
    )
    parser.add_argument(
        "--include-degenerate",
        action="store_true",
        help="count the cells of a category that measures nothing on its model (every case"
        " δ = 0 or answered by reading; marked in Table 1) in Avg., RQ1's headline and the"
        " means (default: shown, marked, left out)",
    )
    parser.add_argument(
        "--base",
        default=None,
        metavar="BASE.sqlite",
        help="add a comparison with this base campaign (the gate of explaincheck compare)",
    )
    from explaincheck.core.cli.results_command import add_price_arguments

    add_price_arguments(parser)
    from explaincheck.core.cli.oracle_command import add_policy_arguments

    add_policy_arguments(parser)  # adds the value-loss table of that policy


def policy_table(db: Path, args: argparse.Namespace) -> tuple[pd.DataFrame, list[str]]:
    """The value-loss table (``--policy FILE`` and the LLMs asked by ``explaincheck policy``),
    made before anything is printed, so a policy that fits nothing is one line and exit 2."""
    from explaincheck.core.policy.stored import environment_policies
    from explaincheck.core.store import Store

    with Store.open(db, readonly=True) as store:
        rows = store.executions(category="best_action") if not args.policy else store.executions()
    return environment_policies(rows, args.policy, args.policy_default or "")


def policy_loss(table: pd.DataFrame, notes: list[str], out: Path) -> list[Path]:
    """The value-loss table printed, and written to ``out`` as policy_value_loss.csv and .md."""
    for note in notes:
        print(f"explaincheck report: {note}")
    if table.empty:
        return []
    print("\nValue loss of policies (V*(s0) - V^pi(s0))")
    print(table.to_string(index=False))
    out.mkdir(parents=True, exist_ok=True)
    written = [out / "policy_value_loss.csv", out / "policy_value_loss.md"]
    from explaincheck.core.atomic_files import write_atomically, write_text_atomically
    from explaincheck.core.csv_text import defused_frame

    safe = defused_frame(table)
    write_atomically(written[0], lambda stream: safe.to_csv(stream, index=False), binary=False)
    write_text_atomically(written[1], table.to_markdown(index=False) + "\n")
    return written


def base_comparison(base: str, results: pd.DataFrame) -> list[Section]:
    """The sections comparing this campaign with ``--base`` (core/analysis/compare_report.py)."""
    from explaincheck.core.analysis.compare_report import base_sections
    from explaincheck.core.cli.compare_sides import load

    return base_sections(load(base, "--base"), results, base)


def run(args: argparse.Namespace) -> int:
    from explaincheck.core import api
    from explaincheck.core.analysis.report import HTML, build_report, render_text, write_report
    from explaincheck.core.campaign.plugin_record import missing_plugins
    from explaincheck.core.store import Store

    db = Path(args.db)
    if not db.is_file():
        raise ExplaincheckError(f"no results database at {db}")
    with Store.open(db, readonly=True) as store:
        campaigns = store.campaigns()
    for line in missing_plugins(campaigns):  # the report reads ids; the rest needs the plugin
        print(f"explaincheck report: note: {line} (its ids are shown as stored)", file=sys.stderr)
    # what the report reads, held once: lean rows (memory: store.iter_executions(lean=True))
    results = api.results(db, prices=args.price, prices_file=args.prices, lean=True)
    if results.empty:
        raise ExplaincheckError(f"{db} holds no results yet (run a campaign into it first)")
    out = Path(args.out) if args.out else db.with_name(f"{db.stem}_report")
    if out.exists() and not out.is_dir():
        raise ExplaincheckError(f"--out {out} is a file, not a folder")
    table, notes = policy_table(db, args)
    exclude = getattr(args, "exclude_reading", False)
    report = build_report(
        results,
        campaigns=campaigns,
        exclude_reading=exclude,
        include_degenerate=getattr(args, "include_degenerate", False),
    )
    if args.base:
        report.sections += base_comparison(args.base, results)
    from explaincheck.core.cli.width import columns

    print(render_text(report, columns()))
    try:
        data = _export_data(db, out, args) if args.format == HTML else []
        written = [*data, *write_report(report, out, args.format, [p.name for p in data])]
        written += policy_loss(table, notes, out)
    except OSError as error:
        raise ExplaincheckError(f"cannot write the report to {out}: {error.strerror}") from None
    print(f"wrote {len(written)} files to {out}:")
    for path in written:
        print(f"  {path.name}")
    return 0


def _export_data(db: Path, out: Path, args: argparse.Namespace) -> list[Path]:
    """The executions as JSON Lines, CSV and Parquet beside the HTML report (it links them)."""
    from explaincheck.core import api

    out.mkdir(parents=True, exist_ok=True)
    return [
        api.export(db, out / f"results{suffix}", prices=args.price, prices_file=args.prices)
        for suffix in (".jsonl", ".csv", ".parquet")
    ]
