"""The oracle's child is forked only where that is safe: a process of one Python thread without
Qt (the command line); everywhere else it is spawned. A forked child keeps every guarantee of a
spawned one: a crash is one line, a result is the same result."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

PROBE = textwrap.dedent(
    """
    import json, os, sys, threading
    from explaincheck.core.oracle.isolation import start_method
    seen = {"alone": start_method()}
    stop = threading.Event()
    worker = threading.Thread(target=stop.wait)
    worker.start()
    seen["beside a thread"] = start_method()
    stop.set()
    worker.join()
    seen["thread ended"] = start_method()
    import PySide6.QtCore  # noqa: F401
    seen["with Qt"] = start_method()
    print(json.dumps(seen))
    """
)


def test_the_child_is_forked_only_from_a_lone_thread_without_qt():
    run = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr[-2000:]
    seen = json.loads(run.stdout.strip().splitlines()[-1])
    assert seen == {
        "alone": "fork",
        "beside a thread": "spawn",
        "thread ended": "fork",
        "with Qt": "spawn",
    }


CRASH = textwrap.dedent(
    """
    import os, sys
    from explaincheck.core.errors import ExplaincheckError
    from explaincheck.core.oracle.isolation import OracleJob, start_method
    from explaincheck.core.oracle.types import OracleRequest

    def crash(request):
        os.abort()  # as Storm does on a failed assertion

    assert start_method() == "fork"
    try:
        OracleJob(OracleRequest(sys.argv[1]), compute=crash).wait(60)
    except ExplaincheckError as error:
        print("error:", error)
    """
)


def test_a_forked_child_that_crashes_is_one_line(tmp_path):
    path = tmp_path / "m.prism"
    path.write_text(
        "mdp\nmodule m\n x : [0..1] init 0;\n [go] x=0 -> (x'=1);\nendmodule\n"
        'label "goal" = x=1;\n'
    )
    run = subprocess.run(
        [sys.executable, "-c", CRASH, str(path)], capture_output=True, text=True, timeout=120
    )
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.strip() == f"error: {path}: the model checker crashed (exit status -6)"


def test_a_forked_oracle_gives_the_spawned_ones_result(tmp_path):
    path = tmp_path / "walk.prism"
    path.write_text(
        "mdp\nmodule m\n x : [0..4] init 2;\n"
        " [left] x>0 & x<4 -> 0.8:(x'=x-1) + 0.2:(x'=x+1);\n"
        " [right] x>0 & x<4 -> 0.7:(x'=x+1) + 0.3:(x'=x-1);\nendmodule\n"
        'label "goal" = x=4;\nlabel "unsafe" = x=0;\n'
    )
    forked = subprocess.run(
        [sys.executable, "-m", "explaincheck.core.cli.main", "oracle", str(path), "--json",
         "--no-cache"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert forked.returncode == 0, forked.stderr[-2000:]
    spawned = subprocess.run(
        [sys.executable, "-c",
         "import sys, threading;"
         " threading.Thread(target=threading.Event().wait, daemon=True).start();"
         " from explaincheck.core.cli.main import main; sys.exit(main())",
         "oracle", str(path), "--json", "--no-cache"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert spawned.returncode == 0, spawned.stderr[-2000:]
    ours, theirs = json.loads(forked.stdout), json.loads(spawned.stdout)
    assert ours["states"] == theirs["states"]
    # hand-checked: V(3) = max(0.2 + 0.8 V(2), 0.7 + 0.3 V(2)) with V(2) < 1: right
    assert {s["valuation"]["x"]: s["optimal_action"] for s in ours["states"]}[3] == "right"
