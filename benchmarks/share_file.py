"""Size and first paint of ``explaincheck share`` files of 1,000 and 10,000 executions.

The results come from a real run of the benchmark set (``bench run``) with instant answerers
(random, oracle, noisy, a flawed reference explainer; two repeats), cut to the first N rows.
First paint is measured in Debian's headless Chromium as wall time: Chromium opening the share
file and running its script to the end (``--dump-dom`` after the page's ``data-ready`` mark),
minus Chromium opening an empty page, median of three.

  python benchmarks/share_file.py [--sizes 1000,10000] [--work DIR]
"""

from __future__ import annotations

import argparse
import shutil
import sqlite3
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from explaincheck.core.cli.main import main

FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--virtual-time-budget=30000",
]
LLMS = ["random", "oracle", "noisy:0.2", "noisy:0.5", "flaw:myopic:1"]


def chromium_seconds(url: str, work: Path, check: bool) -> float:
    profile = Path(tempfile.mkdtemp(dir=work, prefix="profile-"))
    started = time.perf_counter()
    run = subprocess.run(
        [
            shutil.which("chromium") or "chromium",
            *FLAGS,
            f"--user-data-dir={profile}",
            "--dump-dom",
            url,
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    seconds = time.perf_counter() - started
    if check and 'data-ready="' not in run.stdout:
        raise SystemExit(f"the page did not finish: {run.stderr[-500:]}")
    return seconds


def results_file(work: Path, total: int) -> Path:
    """A results file of ``total`` executions (the first rows of the full bench run)."""
    full = work / "full.sqlite"
    if not full.exists():
        bench = work / "set"
        if not (bench / "manifest.json").exists():
            main(["bench", "export", "--out", str(bench)])
        args = ["bench", "run", str(bench), "--db", str(full), "--repeat", "2"]
        for llm in LLMS:
            args += ["--llm", llm]
        main(args)
    cut = work / f"results-{total}.sqlite"
    shutil.copyfile(full, cut)
    with sqlite3.connect(cut) as connection:
        have = connection.execute("select count(*) from executions").fetchone()[0]
        if have < total:
            raise SystemExit(f"only {have} executions in the full run")
        connection.execute(
            "delete from executions where id not in"
            " (select id from executions order by id limit ?)",
            (total,),
        )
    return cut


def main_() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000")
    parser.add_argument("--work", default=None)
    args = parser.parse_args()
    work = Path(args.work or tempfile.mkdtemp(prefix="share-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    blank = work / "blank.html"
    blank.write_text("<!DOCTYPE html><title>blank</title>")
    base = statistics.median(chromium_seconds(blank.as_uri(), work, False) for _ in range(3))
    print(f"Chromium on an empty page: {base:.2f} s (subtracted below)")
    for total in (int(s) for s in args.sizes.split(",")):
        db = results_file(work, total)
        out = work / f"campaign-{total}.html"
        main(["share", "--db", str(db), "--out", str(out)])
        size = out.stat().st_size
        paint = statistics.median(chromium_seconds(out.as_uri(), work, True) for _ in range(3))
        print(
            f"{total:>6} executions: {size / 1e6:.2f} MB, first paint {paint - base:.2f} s"
            f" (Chromium total {paint:.2f} s)"
        )


if __name__ == "__main__":
    main_()
