"""``explaincheck bench``: export the frozen question set, grade answers to it from anywhere, or
ask it through explaincheck's backends (``core.bench``).

Why three actions under one name: they share the set folder (``questions.jsonl`` +
``manifest.json``) and nothing else; each is a few lines over ``core.bench``.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from typing import Any

from explaincheck.core import json_output
from explaincheck.core.errors import ExplaincheckError
from explaincheck.core.terminal_text import safe_terminal

NAME = "bench"
HELP = """The frozen benchmark: a versioned question set others can answer and grade.

  export  writes DIR/questions.jsonl (one question per line: prompt, JSON schema, the oracle's
          expected answer, delta, chance, grading rule) and DIR/manifest.json (name, version,
          number of questions, sha256 of questions.jsonl, environments and model hashes, how
          the set was made). The default set: every built-in environment, every paper
          category, both selections; two exports give the same sha256.
  grade   grades ANSWERS.jsonl ({"id": ..., "reply": ...} per line, from any tool) with the
          parser and grader of a campaign, and prints Table 1 with the random baseline and
          the oracle ceiling on the same questions.
  run     asks the set through explaincheck's own backends into a results file (report,
          compare, results and the window read it): greedy (temperature 0), the set's seed
          unless --seed, at most --max-tokens tokens per reply from an OpenAI-compatible
          or Ollama server or a local model; --limit N asks the set's first N questions, the
          same N that Inspect's `inspect eval explaincheck/bench --limit N` asks (which sends
          the same temperature, seed and cap: pass it the same --seed and --max-tokens).
  export --lm-eval DIR  also writes an lm-evaluation-harness task into DIR (YAML, the
          questions as its dataset, a utils.py scoring with explaincheck's grader):
          lm_eval --include_path DIR --tasks explaincheck_bench --model local-chat-completions

examples:
  explaincheck bench export --out bench-v1
  explaincheck bench export --lm-eval lm-eval-task
  explaincheck bench grade bench-v1 answers.jsonl
  explaincheck bench grade bench-v1 answers.jsonl --json
  explaincheck bench run bench-v1 --llm ollama:gemma3:1b --db bench.sqlite
  explaincheck bench run bench-v1 --llm openai:MODEL --openai-base-url URL --limit 20
  inspect eval explaincheck/bench --model ollama/gemma3:1b   (pip install explaincheck[inspect])
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from explaincheck.core.bench.questions import DEFAULT_BUDGET, DEFAULT_SEED, VERSION
    from explaincheck.core.cli.oracle_command import positive_int

    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    export = actions.add_parser("export", help="write the frozen question set")
    export.add_argument("--out", default=None, metavar="DIR", help="folder to write into")
    export.add_argument(
        "--lm-eval",
        default=None,
        metavar="DIR",
        help="also (or only) write the set as an lm-evaluation-harness task into DIR: the set,"
        " explaincheck_bench.yaml and a utils.py that grades with explaincheck's grader",
    )
    export.add_argument("--version", default=VERSION, help=f"the set's version ({VERSION})")
    export.add_argument(
        "--budget",
        type=int,
        default=DEFAULT_BUDGET,
        help=f"questions per category, selection and environment ({DEFAULT_BUDGET})",
    )
    export.add_argument("--seed", type=int, default=DEFAULT_SEED, help="selection seed (0)")
    export.add_argument(
        "--env", action="append", default=[], metavar="ENV", help="only these environments"
    )
    export.add_argument(
        "--property",
        default=None,
        metavar="NAME",
        help="ask about each environment's own property of this name (explaincheck envs lists"
        " them) instead of Pmax=? [F goal]; the environments without one are left out",
    )
    grade = actions.add_parser("grade", help="grade answers to the set")
    grade.add_argument("dir", metavar="DIR", help="the set's folder")
    grade.add_argument("answers", metavar="ANSWERS.jsonl", help='{"id", "reply"} per line')
    grade.add_argument("--json", action="store_true", help="print one JSON object")
    grade.add_argument(
        "--include-degenerate",
        action="store_true",
        help="count the questions of a category that measures nothing on its model (every"
        " case δ = 0 or answered by reading) in the rows and in all (default: left out)",
    )
    ask = actions.add_parser("run", help="ask the set through explaincheck's backends")
    ask.add_argument("dir", metavar="DIR", help="the set's folder")
    ask.add_argument("--llm", action="append", required=True, metavar="SPEC", help="LLM spec")
    ask.add_argument("--db", default="results.sqlite", help="results file (results.sqlite)")
    ask.add_argument("--repeat", type=int, default=1, help="times each question is asked (1)")
    ask.add_argument("--timeout", type=float, default=120.0, help="seconds per reply (120)")
    ask.add_argument("--concurrency", type=int, default=4, help="requests in flight (4)")
    ask.add_argument("--retries", type=int, default=3, help="retries of a failed request (3)")
    ask.add_argument(
        "--ollama-host", action="append", default=[], metavar="URL", help="Ollama server"
    )
    ask.add_argument(
        "--openai-base-url",
        action="append",
        default=[],
        metavar="URL",
        help="OpenAI-compatible server for openai:MODEL (repeatable; default OPENAI_BASE_URL,"
        " else https://api.openai.com/v1)",
    )
    ask.add_argument(
        "--seed",
        type=int,
        default=None,
        help="decoding seed of the answers (default: the set's seed, as Inspect's task sends);"
        " the questions stay the set's",
    )
    ask.add_argument(
        "--max-tokens",
        type=positive_int,
        default=None,
        help="output cap of OpenAI-compatible and Ollama servers and local models (256, as"
        " run's and as the Inspect task sends; an Ollama model that thinks gets 8192 more for"
        " its reasoning)",
    )
    ask.add_argument(
        "--limit",
        type=positive_int,
        default=None,
        metavar="N",
        help="ask only the set's first N questions (as inspect eval --limit N)",
    )


def run(args: argparse.Namespace) -> int:
    return int({"export": _export, "grade": _grade, "run": _run}[args.action](args))


def _export(args: argparse.Namespace) -> int:
    from explaincheck.core.bench.questions import build_set, default_recipe, write_set
    from explaincheck.core.environments.registry import builtin_folder, registered_id

    if not args.out and not args.lm_eval:
        raise ExplaincheckError("bench export needs --out DIR or --lm-eval DIR (or both)")
    if args.budget < 1:
        raise ExplaincheckError(f"--budget must be at least 1 (got {args.budget})")
    recipe = default_recipe(args.budget, args.seed)
    if args.env:
        for env_id in args.env:
            builtin_folder(env_id)  # an unknown id is one line (a plugin's: what to install)
        chosen = tuple(dict.fromkeys(str(registered_id(e)) for e in args.env))
        recipe = type(recipe)(chosen, *_rest(recipe))
    if args.property:
        recipe = _with_property(recipe, args.property, explicit=bool(args.env))
    bench = build_set(recipe, args.version)
    manifest = bench.manifest
    where = []
    if args.out:
        where.append(str(write_set(bench, args.out)))
    if args.lm_eval:
        from explaincheck.core.bench.lm_eval_task import TASK, write_task

        where.append(f"{write_task(bench, args.lm_eval)} (lm-eval task {TASK})")
    print(
        f"{manifest['questions']} questions ({len(manifest['environments'])} environments,"
        f" {len(manifest['categories'])} categories) in {' and '.join(where)};"
        f" sha256 {manifest['sha256']}"
    )
    return 0


def _with_property(recipe: Any, name: str, *, explicit: bool) -> Any:
    """``recipe`` about each environment's property ``name``: the environments without one are
    left out, or (named with --env) refused in one line."""
    from dataclasses import replace

    from explaincheck.core.environments.registry import load_builtin

    having = [e for e in recipe.environments if name in load_builtin(e).properties]
    lacking = [e for e in recipe.environments if e not in having]
    if explicit and lacking:
        raise ExplaincheckError(
            f"--property {name}: {', '.join(lacking)} has no property of that name"
            " (explaincheck envs lists each environment's properties)"
        )
    if not having:
        raise ExplaincheckError(
            f"--property {name}: no environment has a property of that name"
            " (explaincheck envs lists each environment's properties)"
        )
    return replace(recipe, environments=tuple(having), property=name)


def _rest(recipe: Any) -> tuple[Any, ...]:
    return (recipe.categories, recipe.budget, recipe.selection, recipe.seed, recipe.grading)


def _grade(args: argparse.Namespace) -> int:
    from explaincheck.core.bench.grading import bench_table, read_answers
    from explaincheck.core.bench.questions import read_set

    bench = read_set(args.dir)
    answers = read_answers(args.answers, bench)
    table = bench_table(bench, answers, getattr(args, "include_degenerate", False))
    if args.json:
        print(json_output.dumps(table, indent=2))
    else:
        print(safe_terminal("\n".join(table_lines(table))))
    return 0


def table_lines(table: dict[str, Any]) -> list[str]:
    """Table 1 as text: one column per category, rows for the answers, the random baseline,
    the chance level, the chance-corrected score and the oracle ceiling."""
    rows = table["categories"]
    head = f"{table['name']} v{table['version']}: {table['answered']} of {table['questions']}"
    lines = [f"{head} questions answered (sha256 {table['sha256'][:12]})"]
    if not rows:
        return [*lines, "no answer to grade"]
    width = max(12, *(len(r["category"]) + 1 for r in rows))
    columns = [
        ("questions", "answered", "{:d}"),
        ("answers", "pass_rate", "{:.1%}"),
        ("corrected", "corrected", "{:+.2f}"),
        ("random", "random_pass_rate", "{:.1%}"),
        ("chance", "chance", "{:.1%}"),
        ("oracle", "oracle_pass_rate", "{:.1%}"),
    ]
    lines.append("category".ljust(width) + "".join(f"{name:>11}" for name, _, _ in columns))
    for row in rows:
        cells = ["–" if row.get(key) is None else form.format(row[key]) for _, key, form in columns]
        lines.append(row["category"].ljust(width) + "".join(f"{c:>11}" for c in cells))
    left_out = rows[-1].get("degenerate", 0)
    where = "; ".join(f"{env}: {', '.join(c)}" for env, c in table.get("degenerate", {}).items())
    if left_out and not table.get("degenerate_included"):
        lines.append(
            f"{left_out} answered questions left out: their category measures nothing on that"
            f" model ({where}); --include-degenerate counts them"
        )
    elif where:
        lines.append(f"counted although their category measures nothing on that model: {where}")
    return lines


def _run(args: argparse.Namespace) -> int:
    from explaincheck.core.backends.registry import parse_spec
    from explaincheck.core.bench.asking import bench_plans, generate_options
    from explaincheck.core.bench.questions import read_set
    from explaincheck.core.campaign.session import BackendSettings
    from explaincheck.core.workspace.campaign import run_plans

    for spec in args.llm:
        parse_spec(spec)
    if args.repeat < 1:
        raise ExplaincheckError(f"--repeat must be at least 1 (got {args.repeat})")
    bench = read_set(args.dir)
    options = generate_options(bench, args.seed, args.max_tokens)
    settings = BackendSettings(
        ollama_hosts=tuple(args.ollama_host),
        timeout=args.timeout,
        concurrency=args.concurrency,
        retries=args.retries,
        openai_hosts=tuple(args.openai_base_url),
        max_tokens=options["max_tokens"],
    )
    plans = bench_plans(bench, tuple(args.llm), args.repeat, seed=args.seed, limit=args.limit)
    runs = asyncio.run(run_plans(plans, args.db, settings))
    outcomes = [run.outcome for run in runs]
    done = sum(o.progress.done for o in outcomes)
    total = sum(o.progress.total for o in outcomes)
    print(f"{done} of {total} executions stored in {args.db}", file=sys.stderr)
    return 0 if len(runs) == len(plans) and all(o.complete for o in outcomes) else 1
