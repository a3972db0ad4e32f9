"""Size and first paint of ``explaincheck share`` files of 1,000 and 10,000 executions.

The results come from a real run of the benchmark set (``bench run``) with instant answerers
(random, oracle, noisy, a flawed reference explainer; two repeats), cut to the first N rows.
First paint is measured in Debian's headless Chromium by the page itself: when its script has
unpacked the data and built every view it stamps ``performance.now()`` (milliseconds since the
navigation started, real time) on ``<body data-ready>``. ``--dump-dom`` dumps soon after the load
event, which the page's asynchronous unpacking does not hold, so a dump taken before the page was
ready shows no stamp: each file is opened ``--tries`` times and the median of the stamps seen is
printed with how many dumps came late enough (a file that never shows one is then checked to
finish under ``--virtual-time-budget``).

  python benchmarks/share_file.py [--sizes 1000,10000] [--work DIR]
"""

from __future__ import annotations

import argparse
import re
import shutil
import sqlite3
import statistics
import subprocess
import tempfile
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
]
READY = re.compile(r'data-ready="(\d+)"')
LLMS = ["random", "oracle", "noisy:0.2", "noisy:0.5", "flaw:myopic:1"]


def dump(url: str, work: Path, *extra: str) -> str:
    profile = Path(tempfile.mkdtemp(dir=work, prefix="profile-"))
    binary = shutil.which("chromium") or "chromium"
    run = subprocess.run(
        [binary, *FLAGS, f"--user-data-dir={profile}", *extra, "--dump-dom", url],
        capture_output=True,
        text=True,
        timeout=300,
    )
    shutil.rmtree(profile, ignore_errors=True)
    return run.stdout


def ready_stamps(url: str, work: Path, tries: int) -> list[int]:
    return [int(m.group(1)) for m in (READY.search(dump(url, work)) for _ in range(tries)) if m]


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
    parser.add_argument("--tries", type=int, default=8)
    parser.add_argument("--work", default=None)
    args = parser.parse_args()
    work = Path(args.work or tempfile.mkdtemp(prefix="share-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    for total in (int(s) for s in args.sizes.split(",")):
        db = results_file(work, total)
        out = work / f"campaign-{total}.html"
        main(["share", "--db", str(db), "--out", str(out)])
        size = out.stat().st_size
        stamps = ready_stamps(out.as_uri(), work, args.tries)
        if stamps:
            paint = f"first paint {statistics.median(stamps):.0f} ms (median of {len(stamps)}"
            paint += f" of {args.tries} dumps; min {min(stamps)}, max {max(stamps)})"
        else:
            done = READY.search(dump(out.as_uri(), work, "--virtual-time-budget=30000"))
            paint = f"no dump of {args.tries} came after first paint; finishes: {bool(done)}"
        print(f"{total:>6} executions: {size / 1e6:.2f} MB, {paint}", flush=True)


if __name__ == "__main__":
    main_()
