"""The Python API in a script or a notebook cell (docs/python-api.md walks through it).

Run it: ``python docs/examples/api_example.py [FOLDER]``. The test suite runs it as it is,
also from inside a running event loop (as in Jupyter), so it stays true.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from explaincheck.core import api


def main(folder: str | Path) -> dict:
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)  # a new folder for this run's files is fine
    model = api.open_model("frozen_lake")
    print(f"frozen_lake: {model.states} states")

    # The README walkthrough, two deterministic answerers (no server needed).
    walkthrough = {"categories": "satisfy,bottleneck,best_action", "budget": 5, "selection": "both"}
    plan = api.plan(model, ["random", "oracle"], **walkthrough)
    outcome = api.run(plan, folder / "results.sqlite")  # works inside Jupyter's loop too
    print(f"{outcome.progress.done} of {outcome.progress.total} executions stored")

    frame = api.results(folder / "results.sqlite")
    scores = (
        frame[frame["verdict"] != "error"]
        .groupby("llm")["verdict"]
        .apply(lambda v: (v == "pass").mean())
    )
    print(scores.round(2).to_string())

    # The same campaign in three shards (as three jobs would run it), merged again.
    for i in (1, 2, 3):
        part = api.plan(model, ["random", "oracle"], **walkthrough, shard=f"{i}/3")
        api.run(part, folder / f"shard{i}.sqlite")
    merged = api.merge([folder / f"shard{i}.sqlite" for i in (1, 2, 3)], folder / "all.sqlite")
    print(merged.lines(str(folder / "all.sqlite"))[-1])

    api.export(folder / "all.sqlite", folder / "all.parquet")
    return {"plan": plan, "frame": frame, "scores": scores, "merged": merged}


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp(prefix="explaincheck-api-"))
