"""lm-evaluation-harness on the exported task against the OpenAI-compatible stand-in: its
per-sample verdicts against ``bench grade``'s on the same replies (issue 53 point 9).

lm-eval is not a dependency of explaincheck (three of its dependencies are source only), so it
runs from its own environment, where explaincheck is installed too (``utils.py`` imports its
grader): ``python -m venv V && V/bin/pip install "lm-eval[api]" && V/bin/pip install -e .``.
The stand-in (``tests/support/openai_standin.py``, real HTTP on 127.0.0.1) answers three of
every four questions with the first choice the question's schema allows and the fourth with its
default text ``{"probability": 0.5}`` (right in form only for satisfy), so passes, fails and
invalid replies all occur. Printed: lm-eval's table, how many verdicts agree, the verdict counts,
and the temperature, seed, output cap and stop sequences the server received.

  python benchmarks/lm_eval_agreement.py --lm-eval V/bin/lm_eval [--work DIR] [--env ...]
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from support.openai_standin import Script, StandinOpenAI  # noqa: E402

from explaincheck.core.bench.grading import bench_table  # noqa: E402
from explaincheck.core.bench.questions import read_set  # noqa: E402
from explaincheck.core.cli.main import main as explaincheck  # noqa: E402

VERDICTS = ("pass", "fail", "invalid")


def run(lm_eval: str, work: Path, envs: list[str], budget: int) -> None:
    task = work / "task"
    export = ["bench", "export", "--lm-eval", str(task), "--budget", str(budget)]
    assert explaincheck([*export, *(a for e in envs for a in ("--env", e))]) == 0
    bench = read_set(task)
    server = StandinOpenAI({"standin-1b": Script()})
    for number, question in enumerate(bench.questions):
        if number % 4 != 3:
            server.schemas[question.prompt] = question.schema
    out = work / "lm-eval-out"
    with server:
        model_args = (
            f"model=standin-1b,base_url={server.base_url}/chat/completions"
            f",seed={bench.recipe.seed},num_concurrent=1,max_retries=1"
        )
        command = [
            lm_eval,
            "--include_path",
            str(task),
            "--tasks",
            "explaincheck_bench",
            "--model",
            "local-chat-completions",
            "--model_args",
            model_args,
            "--apply_chat_template",
            "--log_samples",
            "--output_path",
            str(out),
        ]
        env = {**os.environ, "HF_DATASETS_OFFLINE": "1", "HF_HUB_OFFLINE": "1"}
        env.setdefault("OPENAI_API_KEY", "not-a-key")
        done = subprocess.run(command, capture_output=True, text=True, env=env, cwd=work)
        chats = server.chats()
    print(done.stdout.strip()[-1500:])
    if done.returncode != 0:
        sys.exit(f"lm_eval failed ({done.returncode}):\n{done.stderr[-3000:]}")
    (samples_file,) = out.glob("*/samples_explaincheck_bench_*.jsonl")
    theirs, replies = {}, {}
    for line in samples_file.read_text().splitlines():
        sample = json.loads(line)
        qid = sample["doc"]["id"]
        replies[qid] = sample["resps"][0][0]
        (theirs[qid],) = [name for name in VERDICTS if sample[name] == 1]
    ours = bench_table(bench, replies)["verdicts"]
    same = sum(theirs[q] == ours.get(q) for q in theirs)
    print(f"lm-eval samples: {len(theirs)}; verdicts equal to bench grade's: {same} of {len(ours)}")
    print(f"lm-eval verdicts: {dict(collections.Counter(theirs.values()))}")
    print(f"bench grade verdicts: {dict(collections.Counter(ours.values()))}")
    sent = {c["messages"][-1]["content"] for c in chats}
    same_prompts = sent == {q.prompt for q in bench.questions}
    print(
        f"requests: {len(chats)}; prompts are the set's: {same_prompts};"
        f" messages per request: {sorted({len(c['messages']) for c in chats})}"
    )
    settings = {
        (c.get("temperature"), c.get("seed"), c.get("max_tokens"), json.dumps(c.get("stop")))
        for c in chats
    }
    print(f"(temperature, seed, max_tokens, stop) sent: {sorted(settings)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lm-eval", default="lm_eval", help="lm-eval's console script")
    parser.add_argument("--work", default=None, help="folder for the task and lm-eval's output")
    parser.add_argument("--env", action="append", default=None, help="environments of the set")
    parser.add_argument("--budget", type=int, default=2, help="questions per category (2)")
    args = parser.parse_args()
    work = Path(args.work or tempfile.mkdtemp(prefix="lm-eval-agreement-"))
    work.mkdir(parents=True, exist_ok=True)
    run(args.lm_eval, work, args.env or ["frozen_lake", "wolf_goat_cabbage"], args.budget)


if __name__ == "__main__":
    main()
