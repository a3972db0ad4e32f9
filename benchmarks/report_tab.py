"""Time of the Report tab against the CLI's full report at 10,000 executions.

The results file is made by the random, oracle and noisy:0.3 answerers on frozen_lake and dam
(no LLM needed) with ``--repeat``, cut to exactly ``--rows`` rows. Then, in this interpreter:
(a) ``build_report`` as ``explaincheck report`` calls it (every section), and (b) what the Report
tab computes from the rows it holds (``gui.views.report_view.build``), each the best of
``--times`` runs. Reading the file is not timed (the tab already holds its rows).

    python benchmarks/report_tab.py [--rows 10000] [--times 3] [--db FILE]

Measured on the shared 2-core machine, before (3bfa69a) and after issue 27's change, back to
back on the same file: at load average ~6, (a) 3.13 → 2.35 s and (b) 3.20 → 0.40 s; at load
average 8–9, (a) 8.64 → 4.94 s and (b) 8.92 → 1.12 s (0.54 s in the next run).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import math
import sqlite3
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from explaincheck.core.cli.main import main as cli

ENVIRONMENTS = ("frozen_lake", "dam")
LLMS = ("random", "oracle", "noisy:0.3")


def results_file(db: Path, rows: int) -> Path:
    """``rows`` executions over ``ENVIRONMENTS`` × ``LLMS``: one repeat tells how many a
    repeat makes, then enough repeats (resumed, so the first is kept) and the surplus cut."""
    repeat = 1
    while _count(db) < rows:
        for env in ENVIRONMENTS:
            args = ["run", "--env", env, "--budget", "20", "--selection", "both"]
            args += [part for llm in LLMS for part in ("--llm", llm)]
            quiet = io.StringIO()
            with contextlib.redirect_stdout(quiet), contextlib.redirect_stderr(quiet):
                status = cli([*args, "--repeat", str(repeat), "--db", str(db)])
            if status:
                raise SystemExit(f"run --env {env} exited {status}")
        repeat = math.ceil(rows / _count(db)) * repeat
    with sqlite3.connect(db) as connection:
        connection.execute("DELETE FROM executions WHERE id > ?", (rows,))
    if _count(db) != rows:
        raise SystemExit(f"made {_count(db)} rows, not {rows}")
    return db


def _count(db: Path) -> int:
    if not db.is_file():
        return 0
    with sqlite3.connect(db) as connection:
        return int(connection.execute("SELECT COUNT(*) FROM executions").fetchone()[0])


def best_of(times: int, work: Callable[[], object]) -> float:
    best = math.inf
    for _ in range(times):
        started = time.perf_counter()
        work()
        best = min(best, time.perf_counter() - started)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10_000)
    parser.add_argument("--times", type=int, default=3)
    parser.add_argument("--db", type=Path, help="keep (or reuse) the results file here")
    args = parser.parse_args()

    from explaincheck.core.analysis.report import build_report
    from explaincheck.core.store import Store, results_frame
    from explaincheck.gui.adapters.results_data import read_rows
    from explaincheck.gui.views.report_view import build

    with tempfile.TemporaryDirectory() as folder:
        db = args.db or Path(folder) / "results.sqlite"
        if _count(db) != args.rows:
            db.unlink(missing_ok=True)
            results_file(db, args.rows)
        frame = results_frame(db)
        with Store.open(db, readonly=True) as store:
            campaigns = store.campaigns()
        rows = read_rows(str(db))
        full = best_of(args.times, lambda: build_report(frame, campaigns=campaigns))
        tab = best_of(args.times, lambda: build(rows, str(db)))
    print(f"{len(rows)} executions ({', '.join(LLMS)} on {', '.join(ENVIRONMENTS)})")
    print(f"(a) report, every section: {full:.2f} s")
    print(f"(b) the Report tab:        {tab:.2f} s")


if __name__ == "__main__":
    main()
