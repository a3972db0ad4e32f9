"""Regenerate docs/example-report/selfcheck/: the self-check (``explaincheck selfcheck``) of the
reference answerers and one real local model on Frozen Lake.

Each LLM is checked into its own results file (a file that holds its check already resumes
without asking; a local model takes minutes per reply on a loaded machine, so run this with
``nice`` in the background). The folder gets ``selfcheck.md`` and ``selfcheck.csv`` (the report's
section over all the files) and ``<llm>.json`` (each check's ``--json`` object).

    python benchmarks/selfcheck_example.py [--out docs/example-report/selfcheck]
        [--llm oracle --llm random ...] [--budget 20] [--local-budget 5] [--dir /tmp]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import sys
from pathlib import Path

import pandas as pd

from explaincheck.core import api
from explaincheck.core.analysis.report_parts import Report
from explaincheck.core.analysis.selfcheck_report import sections
from explaincheck.core.cli.main import main as cli

LLMS = ("oracle", "random", "flaw:myopic:2", "local:gemma3-270m")


def check(llm: str, db: Path, budget: int) -> dict:
    """``explaincheck selfcheck --json`` in-process (exit status must be 0)."""
    out = io.StringIO()
    args = ["selfcheck", "--env", "frozen_lake", "--llm", llm, "--budget", str(budget)]
    with contextlib.redirect_stdout(out):
        status = cli([*args, "--db", str(db), "--json", "--timeout", "1200"])
    if status:
        raise SystemExit(f"explaincheck {' '.join(args)} exited {status}")
    return json.loads(out.getvalue())


def main(argv: list[str] | None = None) -> int:
    from explaincheck.core.analysis.report import csv_frame, render_markdown

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="docs/example-report/selfcheck")
    parser.add_argument("--llm", action="append", default=None)
    parser.add_argument("--budget", type=int, default=20)
    parser.add_argument("--local-budget", type=int, default=5)
    parser.add_argument("--dir", default="/tmp")
    args = parser.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    frames = []
    for llm in args.llm or LLMS:
        name = llm.replace(":", "_")
        db = Path(args.dir) / f"selfcheck-{name}.sqlite"
        budget = args.local_budget if llm.startswith("local:") else args.budget
        data = check(llm, db, budget)
        (out / f"{name}.json").write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
        frames.append(api.results(db, lean=True))
        print(f"{llm}: say-do {data['say_do_agreement']}, self {data['self_accuracy']}, "
              f"loss {data['value_loss']}", file=sys.stderr)  # fmt: skip
    found = sections(pd.concat(frames, ignore_index=True))
    (out / "selfcheck.md").write_text(render_markdown(Report("", found)), encoding="utf-8")
    csv_frame(found[0].table).to_csv(out / "selfcheck.csv", index=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
