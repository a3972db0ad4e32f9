"""``explaincheck report``: the evaluation's tables and figures from a results database."""

from __future__ import annotations

import argparse
from pathlib import Path

from explaincheck.core.errors import ExplaincheckError

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


def run(args: argparse.Namespace) -> int:
    from explaincheck.core.analysis.report import build_report, render_text, write_report
    from explaincheck.core.analysis.report_frame import report_frame
    from explaincheck.core.store import Store

    db = Path(args.db)
    if not db.is_file():
        raise ExplaincheckError(f"no results database at {db}")
    with Store.open(db, readonly=True) as store:
        campaigns = store.campaigns()
    results = report_frame(db)  # what the report reads, held once (memory: report_frame)
    if results.empty:
        raise ExplaincheckError(f"{db} holds no results yet (run a campaign into it first)")
    out = Path(args.out) if args.out else db.with_name(f"{db.stem}_report")
    if out.exists() and not out.is_dir():
        raise ExplaincheckError(f"--out {out} is a file, not a folder")
    report = build_report(results, campaigns=campaigns)
    print(render_text(report))
    try:
        written = write_report(report, out, args.format)
    except OSError as error:
        raise ExplaincheckError(f"cannot write the report to {out}: {error.strerror}") from None
    print(f"wrote {len(written)} files to {out}:")
    for path in written:
        print(f"  {path.name}")
    return 0
