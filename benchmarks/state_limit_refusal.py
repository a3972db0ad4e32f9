"""How long ``explaincheck oracle`` takes to refuse a model beyond ``--state-limit``, under load.

The model is a 2-action grid of (SIDE+1)^2 states (2,563,201 at the default SIDE=1600), checked
with ``--state-limit 1000000``. ``--hogs N`` starts N busy-looping processes beside it (killed
after) to stand in for a loaded machine. The goal is a refusal within 30 s, in one line.

    python benchmarks/state_limit_refusal.py [--side 1600] [--limit 1000000] [--hogs 1] [--runs 2]

Measured on the shared 2-core machine (load average 5-9, one hog): before the build watchdog
(refused after the whole build, by its state count) 39.8 s and 45.8 s; with it (stopped at the
memory ``build_budget`` allows 1,000,000 states of this shape, about 1.45 million explored)
10.2-29.4 s over seven runs, 12.4 s at SIDE=1800 (3,243,601 states).

Round 4 (issue 34.20): the float build is told to stop exploring one state past the limit
(Storm's ``exploration_state_limit``), so a refusal costs at most the build of ``limit + 1``
states, whatever the model's real size or its memory per state. Same machine and model: before,
15.1 s with no hog (load 7); after, 6.6 and 7.5 s with no hog (load 3.7), 21.9 and 21.4 s with
one hog (load 6.5), of which 4.5 s of CPU: under load the wall time is the scheduler's share.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

GRID = """mdp
module m
  a : [0..{side}] init 0;
  b : [0..{side}] init 0;
  [ia] a<{side} -> 0.5:(a'=a+1) + 0.5:(a'=a);
  [ib] b<{side} -> 0.5:(b'=b+1) + 0.5:(b'=b);
endmodule
label "goal" = a={side} & b={side};
"""
LAUNCH = "import sys; from explaincheck.gui.launcher import main; sys.exit(main())"


def refuse(path: Path, limit: int) -> tuple[float, float, int, str]:
    """Wall and CPU seconds (the oracle's child included), exit status and the last line of
    stderr of one refusal."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    command = ["oracle", str(path), "--state-limit", str(limit), "--no-cache"]
    done = subprocess.run(
        [sys.executable, "-c", LAUNCH, *command],
        capture_output=True,
        text=True,
    )
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    lines = done.stderr.strip().splitlines()
    return wall, cpu, done.returncode, lines[-1] if lines else ""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--side", type=int, default=1600)
    parser.add_argument("--limit", type=int, default=1_000_000)
    parser.add_argument("--hogs", type=int, default=1)
    parser.add_argument("--runs", type=int, default=2)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "grid.prism"
        path.write_text(GRID.format(side=args.side))
        hogs = [
            subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(args.hogs)
        ]
        try:
            for run in range(args.runs):
                seconds, cpu, status, line = refuse(path, args.limit)
                print(
                    f"run {run + 1}: {seconds:5.1f} s wall, {cpu:5.1f} s CPU, load average "
                    f"{os.getloadavg()[0]:.1f}, exit {status}: {line}",
                    flush=True,
                )
        finally:
            for hog in hogs:
                hog.kill()
                hog.wait()


if __name__ == "__main__":
    main()
