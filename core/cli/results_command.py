"""``explaincheck results``: list the stored executions of a results database.

Why a JSON mode: scripts and tests read results without SQL; the object keys are a contract
(environment, llm, category, selection, repeat, states, delta, prompt, reply, answer, expected,
verdict, reason) plus the stored extras. Everything printed came from a file that may be
untrusted, so terminal output goes through ``safe_terminal`` and the JSON escapes C1 and bidi
controls. The file is opened read-only: reading never creates or changes anything.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import textwrap
from typing import Any

from explaincheck.core.errors import ExplaincheckError
from explaincheck.core.terminal_text import safe_terminal

NAME = "results"
HELP = """List the executions stored in a results database (one per LLM, test case and repeat).

The table fits the terminal width; long reasons are wrapped (up to three lines) and cut at a
word with "…". --id N prints one execution in full: prompt, reply, thinking, answer, expected
answer, reason and the oracle's facts about the case.

--verdict fail also lists the invalid replies (as the GUI's "Failures only" does), since an
unreadable answer is a failed answer; --verdict invalid lists the invalid ones alone. --verdict
and --llm may be repeated to keep several values. --verdict uncertain lists the verdicts the
oracle's intervals could not decide (verified method; left out of every score).

examples:
  explaincheck results --db results.sqlite
  explaincheck results --db results.sqlite --verdict fail --category ranking
  explaincheck results --db results.sqlite --llm random --verdict pass --verdict error
  explaincheck results --db results.sqlite --id 12
  explaincheck results --db results.sqlite --by-case --json   # runs, passes, stability
  explaincheck results --db results.sqlite --json > results.json
  explaincheck results --db results.sqlite --format parquet --out results.parquet
  explaincheck results --db results.sqlite --price gpt-4o-mini=0.15/0.6
  explaincheck results --db results.sqlite --config campaign.toml   # the campaign, re-runnable

--format jsonl|csv|parquet writes one record per execution with the fields of --json (and
cost); in CSV and Parquet the nested fields (states, answer, expected, valuations, schema,
options, grading) are JSON text. Costs come from the prices the run was given (--price), the
prices settings file, and --price here (which wins).
"""

VERDICTS = ("pass", "fail", "invalid", "error", "uncertain")
# What each --verdict value selects: a failure is a wrong or an unreadable answer.
VERDICT_SELECTS = {"pass": ("pass",), "fail": ("fail", "invalid"), "invalid": ("invalid",)}
VERDICT_SELECTS["error"] = ("error",)
VERDICT_SELECTS["uncertain"] = ("uncertain",)
REASON_LINES = 3  # a longer reason is cut (at a word, with "…"); --id shows it whole
MIN_REASON = 24  # narrower than this, optional columns are dropped instead


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--db", default="results.sqlite", help="results database (default: results.sqlite)"
    )
    parser.add_argument(
        "--json",
        action="store_true",
        help="print a JSON array, one object per execution: environment, llm, category,"
        " selection, repeat, states, delta, prompt, reply, answer, expected, verdict, reason,"
        " then the stored extras",
    )
    parser.add_argument(
        "--verdict",
        choices=VERDICTS,
        action="append",
        default=None,
        help="only these verdicts (repeatable; fail includes invalid)",
    )
    parser.add_argument("--category", default=None, metavar="ID", help="only this category")
    parser.add_argument(
        "--llm",
        action="append",
        default=None,
        metavar="NAME",
        help="only this LLM, as shown in the llm column (repeatable)",
    )
    parser.add_argument(
        "--id", type=_positive_id, default=None, metavar="N", help="print execution N in full"
    )
    add_export_arguments(parser)
    from explaincheck.core.cli.results_by_case import add_argument

    add_argument(parser)


def add_price_arguments(parser: argparse.ArgumentParser) -> None:
    """--price and --prices of the reading commands (results, report)."""
    parser.add_argument(
        "--price",
        action="append",
        default=[],
        metavar="MODEL=IN/OUT[/CACHED]",
        help="money per million prompt/completion (and cached prompt) tokens (repeatable; wins"
        " over stored prices)",
    )
    parser.add_argument("--prices", default=None, metavar="FILE", help="a price settings file")


def add_export_arguments(parser: argparse.ArgumentParser) -> None:
    """--format, --out, prices and --config (the campaign file of a stored campaign)."""
    parser.add_argument(
        "--format",
        choices=["table", "json", "jsonl", "csv", "parquet"],
        default=None,
        help="table (default), json (as --json), or a file format: jsonl, csv, parquet",
    )
    parser.add_argument(
        "--out", default=None, metavar="FILE", help="write --format's output to FILE"
    )
    add_price_arguments(parser)
    parser.add_argument(
        "--config",
        default=None,
        metavar="FILE",
        help="write the options the last campaign ran with as a campaign file (run --config)",
    )


def _positive_id(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an execution id, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"execution ids start at 1, got {value}")
    return value


def selected_verdicts(asked: list[str] | None) -> tuple[str, ...] | None:
    """The stored verdicts the ``--verdict`` values select (``fail`` brings ``invalid``)."""
    if not asked:
        return None
    return tuple(dict.fromkeys(v for value in asked for v in VERDICT_SELECTS[value]))


def run(args: argparse.Namespace) -> int:
    from explaincheck.core.store import Store, result_dict

    if args.category is not None:
        from explaincheck.core.taxonomy.registry import CATEGORIES

        if args.category not in CATEGORIES:
            raise ExplaincheckError(
                f"unknown category {args.category!r} (valid: {', '.join(CATEGORIES)})"
            )
    from explaincheck.core.cli.results_export import costed, export, json_text, write_config

    fmt = getattr(args, "format", None) or ("json" if args.json else "table")
    with Store.open(args.db, readonly=True) as store:
        campaigns = store.campaigns()
        rows = [
            result_dict(r)
            for r in store.iter_executions(
                verdict=selected_verdicts(args.verdict),
                category=args.category,
                llm=args.llm,
                row_id=args.id,
            )
        ]
    if getattr(args, "config", None):
        return write_config(campaigns, args.config, args.db)
    if getattr(args, "by_case", False):
        from explaincheck.core.cli.results_by_case import print_by_case

        return print_by_case(rows, args)
    rows = costed(rows, campaigns, args)
    if args.id is not None and not rows and fmt == "table":
        raise ExplaincheckError(f"{args.db} has no execution {args.id} (with these filters)")
    if fmt not in ("table", "json") or getattr(args, "out", None):
        return export(rows, fmt, getattr(args, "out", None), args.db)
    try:
        if fmt == "json":
            sys.stdout.write(json_text(rows) + "\n")
        elif args.id is not None:
            print(full_text(rows[0]))
        else:
            from explaincheck.core.campaign.prices import cost_lines

            print(table(rows, shutil.get_terminal_size().columns))
            for line in cost_lines(rows):
                print(safe_terminal(line))
        sys.stdout.flush()
    except BrokenPipeError:  # `explaincheck results | head`: the reader has enough
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 0


def _flat(text: object) -> str:
    """One line of terminal-safe text (newlines and tabs become single spaces)."""
    return " ".join(safe_terminal(str(text if text is not None else "")).split())


def cut(text: str, width: int) -> str:
    """``text`` in at most ``width`` characters; a cut ends at a word, with "…"."""
    if len(text) <= width:
        return text
    if width <= 1:
        return "…"[:width]
    head = text[: width - 1]
    space = head.rfind(" ")
    if space >= width // 2:
        head = head[:space]
    return head.rstrip() + "…"


def _wrap(text: str, width: int, lines: int) -> list[str]:
    """``text`` on up to ``lines`` lines of ``width``; the last one cut at a word with "…"."""
    wrapped = textwrap.wrap(text, width=width, break_on_hyphens=False) or [""]
    if len(wrapped) <= lines:
        return wrapped
    rest = " ".join(wrapped[lines - 1 :])
    return [*wrapped[: lines - 1], cut(rest, width) if len(rest) > width else rest]


# (key, header, right-aligned, widest) of the columns before the reason, in order; the ones in
# _OPTIONAL are dropped, first to last, when the terminal is too narrow for a readable reason.
# The states go last: a failing case is looked up by its state (issue 50: `results --verdict
# fail` at 80 columns showed none), then the category; p/r goes before them.
_COLUMNS = (
    ("id", "id", True, 8),
    ("llm", "llm", False, 24),
    ("category", "category", False, 18),
    ("sel", "sel", False, 4),
    ("repeat", "rep", True, 3),
    ("states", "states", False, 14),
    ("verdict", "verdict", False, 7),
    ("answer", "answer", False, 20),
)
_OPTIONAL = ("answer", "repeat", "sel", "category", "states")


def _cells(row: dict[str, Any]) -> dict[str, str]:
    answer = row.get("answer")
    return {
        "id": str(row.get("id", "")),
        "llm": _flat(row.get("llm")),
        "category": _flat(row.get("category")),
        "sel": _flat(row.get("selection"))[:4],
        "repeat": str(row.get("repeat", "")),
        "states": ",".join(map(str, row.get("states") or [])),
        "verdict": _flat(row.get("verdict")),
        "answer": "-" if answer is None else _flat(json.dumps(answer, ensure_ascii=False)),
        "reason": _flat(row.get("reason")),
    }


def table(rows: list[dict[str, Any]], width: int = 100) -> str:
    """A plain-text table no wider than ``width``; stored text is flattened to one line and
    made terminal-safe (never interpreted)."""
    if not rows:
        return "no executions"
    cells = [_cells(r) for r in rows]
    columns = list(_COLUMNS)
    widths = {
        key: min(max(len(header), *(len(c[key]) for c in cells)), widest)
        for key, header, _, widest in columns
    }

    def reason_width() -> int:
        return width - sum(widths[key] + 2 for key, *_ in columns)

    for optional in _OPTIONAL:
        if reason_width() >= MIN_REASON:
            break
        columns = [c for c in columns if c[0] != optional]
    reason_room = max(reason_width(), 12)
    indent = " " * (width - reason_room) if width > reason_room else ""

    def line(values: dict[str, str], reason: str) -> str:
        parts = []
        for key, _, right, _ in columns:
            text = cut(values[key], widths[key])
            parts.append(text.rjust(widths[key]) if right else text.ljust(widths[key]))
        return ("  ".join(parts) + "  " + reason).rstrip()

    lines = [line({key: header for key, header, *_ in columns}, "reason")]
    for c in cells:
        reason = _wrap(c["reason"], reason_room, REASON_LINES)
        lines.append(line(c, reason[0]))
        lines += [(indent + more).rstrip() for more in reason[1:]]
    counts = {v: sum(r.get("verdict") == v for r in rows) for v in VERDICTS}
    lines.append(
        f"{len(rows)} executions: " + ", ".join(f"{n} {v}" for v, n in counts.items() if n)
    )
    return "\n".join(lines)


def full_text(row: dict[str, Any]) -> str:
    """One execution in full, for reading a case through (all text terminal-safe)."""

    def show(value: Any) -> str:
        if value is None:
            return "-"
        if isinstance(value, str):
            return value
        return json.dumps(value, ensure_ascii=False, sort_keys=True)

    valuations = row.get("valuations") or []
    states = row.get("states") or []
    facts = []
    for i, state in enumerate(states):
        valuation = valuations[i] if i < len(valuations) and isinstance(valuations[i], dict) else {}
        facts.append(f"  state {state}: " + ", ".join(f"{k} = {v}" for k, v in valuation.items()))
    positive = row.get("positive")
    header = [
        f"execution  {row.get('id')}",
        f"llm        {row.get('llm')}" + (f" at {row['host']}" if row.get("host") else ""),
        f"case       {row.get('environment')} · {row.get('category')} · {row.get('selection')}"
        f" case {row.get('case_index')} ({row.get('case_key')}), repeat {row.get('repeat')}",
        f"verdict    {row.get('verdict')}",
        f"reason     {row.get('reason')}",
        f"answer     {show(row.get('answer'))}",
        f"expected   {show(row.get('expected'))}",
    ]
    if row.get("abs_error") is not None:
        header.append(f"abs error  {row['abs_error']:.6g}")
    if row.get("error"):
        header.append(f"error      {row['error']}")
    header += [
        "oracle facts",
        *facts,
        f"  difficulty score δ = {row.get('delta')}"
        + ("" if positive is None else f"; class: {'positive' if positive else 'negative'}"),
        f"  grading: {show(row.get('grading'))}",
        f"latency    {row.get('latency')} s, attempts {row.get('attempts')}"
        + (", from the reply cache" if row.get("cached") else ""),
    ]
    blocks = [
        "\n".join(header),
        "prompt\n" + _indented(row.get("prompt")),
        "reply\n" + _indented(row.get("reply")),
    ]
    if row.get("thinking"):
        blocks.append("thinking\n" + _indented(row.get("thinking")))
    return safe_terminal("\n\n".join(blocks))


def _indented(text: object) -> str:
    if text is None or text == "":
        return "  (none)"
    return textwrap.indent(str(text), "  ", lambda _: True)
