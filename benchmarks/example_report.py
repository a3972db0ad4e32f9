"""Regenerate docs/example-report/: the oracle and random answerers on all seven environments.

One ``run --env all`` (one campaign per environment, into one results file), then ``report``.

``noisy:0.5`` runs beside them as RQ1's second negative control (its chance-corrected test, like
random's, must come out non-significant; docs/method.md, "RQ1 and its negative controls").

Both selections, budget 20, every category of the paper's taxonomy that applies (a safer that
repeats more_promising is asked too, so its footnote shows); the why-questions (``factors``) have
their own example in docs/example-report/factors/. The answerers need no LLM, so this
runs in a minute or two and shows every table and figure of the report on real oracles.

    python benchmarks/example_report.py [--out docs/example-report] [--db /tmp/example.sqlite]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import sys
import tempfile
from pathlib import Path

from explaincheck.core.cli.main import main as cli
from explaincheck.core.taxonomy.registry import CATEGORIES

PAPER_CATEGORIES = ",".join(c for c in CATEGORIES if c != "factors")


def run(*args: str) -> str:
    """One explaincheck command in-process; its standard output (exit status must be 0)."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        status = cli(list(args))
    if status:
        raise SystemExit(f"explaincheck {' '.join(args)} exited {status}")
    return out.getvalue()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="docs/example-report")
    parser.add_argument("--db", default=None, help="results file (default: a fresh temporary one)")
    args = parser.parse_args(argv)
    db = args.db or str(Path(tempfile.mkdtemp(prefix="example-report-")) / "example.sqlite")
    run(
        "run", "--env", "all", "--llm", "oracle", "--llm", "random", "--llm", "noisy:0.5",
        "--budget", "20", "--selection", "both", "--categories", PAPER_CATEGORIES, "--db", db,
    )  # fmt: skip
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    printed = run("report", "--db", db, "--out", str(out), "--format", "md")
    (out / "terminal.txt").write_text(printed.split("\nwrote ")[0].rstrip() + "\n")
    print(f"wrote {out} from {db}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
