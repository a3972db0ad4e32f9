"""Peak memory of ``explaincheck report`` at 2,400 and 10,000 executions.

Each results file is made by the random and oracle answerers on frozen_lake (no LLM needed),
cut to exactly N rows, and every row is given the texts a reasoning model leaves (a thinking of
``--thinking`` characters and a 1,500-character reply), which is what made a report of 9,600
rows take 1.4 GB. The report then runs in a fresh interpreter
that prints its own peak resident memory (``VmHWM``: ``ru_maxrss`` would carry this script's own
peak across fork and exec), imports included (about 200 MB of pandas, scipy and matplotlib).

    python benchmarks/report_memory.py [--rows 2400 10000] [--thinking 50000] [--format html]
"""

from __future__ import annotations

import argparse
import json
import math
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

from explaincheck.core.cli.main import main as cli

ROWS_PER_REPEAT = 568  # frozen_lake, random + oracle, budget 20, both selections

CHILD = """
import contextlib, io, json, sys, time
from explaincheck.core.cli.main import main
started = time.perf_counter()
with contextlib.redirect_stdout(io.StringIO()):
    status = main(["report", "--db", sys.argv[1], "--out", sys.argv[2], "--format", sys.argv[3]])
with open("/proc/self/status") as status_file:  # VmHWM: ru_maxrss survives fork and exec
    peak = next(int(l.split()[1]) for l in status_file if l.startswith("VmHWM:")) * 1024
print(json.dumps({"status": status, "peak": peak, "seconds": time.perf_counter() - started}))
"""


def results_file(folder: Path, rows: int, thinking: int) -> Path:
    db = folder / f"r{rows}.sqlite"
    repeat = math.ceil(rows / ROWS_PER_REPEAT)
    status = cli(
        [
            "run", "--env", "frozen_lake", "--llm", "random", "--llm", "oracle",
            "--budget", "20", "--selection", "both", "--repeat", str(repeat), "--db", str(db),
        ]
    )  # fmt: skip
    if status:
        raise SystemExit(f"run exited {status}")
    with sqlite3.connect(db) as connection:
        connection.execute("DELETE FROM executions WHERE id > ?", (rows,))
        connection.execute(
            "UPDATE executions SET thinking = ?, reply = reply || ?",
            ("Let me think about the states. " * (thinking // 31), " " * 1500),
        )
        stored = connection.execute("SELECT COUNT(*) FROM executions").fetchone()[0]
    if stored != rows:
        raise SystemExit(f"made {stored} rows, not {rows}")
    return db


def measure(db: Path, out: Path, fmt: str) -> dict:
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(db), str(out), fmt],
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, nargs="+", default=[2400, 10_000])
    parser.add_argument("--thinking", type=int, default=50_000, help="characters per row")
    parser.add_argument("--format", default="html", choices=["md", "csv", "html"])
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:
        for rows in args.rows:
            db = results_file(Path(folder), rows, args.thinking)
            seen = measure(db, Path(folder) / f"out{rows}", args.format)
            size = db.stat().st_size / 2**20
            print(
                f"report memory: {rows:>6,} rows ({size:,.0f} MB file): peak"
                f" {seen['peak'] / 2**20:,.0f} MB, {seen['seconds']:.1f} s, exit {seen['status']}",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
