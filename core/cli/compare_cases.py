"""``compare BASE NEW --cases split.json[:held-out|train]``: the gate on one part of a split, and
the repair report (better / worse / no change per category, held-out and train).

Why apart from ``compare_command``: the gate's own table and options stay where they are; this
module cuts both sides to a split's part first (``analysis.split_cases``) and judges each line
both ways (``analysis.repair_report``). Exit status: 1 when the held-out part (or the one part
asked) has a regression, as the gate's; 0 otherwise; 2 on an error.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from explaincheck.core.terminal_text import safe_terminal

if TYPE_CHECKING:
    from explaincheck.core.analysis.repair_report import PartJudgement


def add_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--cases",
        default=None,
        metavar="split.json[:PART]",
        help="compare only one part of a split (held-out or train) and say per category whether"
        " the new side is better, worse or unchanged; the split alone: both parts (a repair"
        " report: over-fitting shows on train)",
    )


def run(args: argparse.Namespace) -> int:
    from explaincheck.core.analysis.repair_report import judge, judgement_text
    from explaincheck.core.analysis.split_cases import keep_part_of_both, read_cases_spec
    from explaincheck.core.cli.compare_sides import (
        closing_lines,
        compared,
        finished_sides,
        loaded_sides,
    )
    from explaincheck.core.errors import ExplaincheckError

    split, parts = read_cases_spec(args.cases)
    base, new, base_llm, new_llm = loaded_sides(args)
    sides = finished_sides(args.base, args.new, partial=args.partial)  # as the whole files'
    judged, missing = [], []
    for part in parts:
        try:
            ours, theirs = keep_part_of_both(base, new, split, part, (args.base, args.new))
        except ExplaincheckError as error:
            if part == parts[0]:  # the part asked, or held-out: the claim itself
                raise
            missing.append(str(error))  # train, not asked by the new side: said, not judged
            continue
        comparison = compared(ours, theirs, base_llm, new_llm, args)
        judged.append(judge(part, comparison, ours))
    report = {
        "cases": args.cases,
        "split_sha256": split.sha256,
        "base_llm": base_llm,
        "new_llm": new_llm,
        "alpha": args.alpha,
        "regression": judged[0].comparison.regression,
        "not_compared": missing,
        "parts": [{**j.as_dict(), "gate": j.comparison.as_dict()} for j in judged],
        "sides": {role: side.as_dict() for role, side in sides.items()},
    }
    if args.out:
        _write(report, judged, Path(args.out))
    if args.json:
        print(json.dumps(report, indent=2, ensure_ascii=True, allow_nan=False))
    else:
        lines: list[str] = []
        for found in judged:
            lines += [*judgement_text(found, args.alpha), ""]
        lines += [f"not compared: {why}" for why in missing]
        lines += closing_lines(sides, args.base, args.new)
        print(safe_terminal("\n".join(lines).rstrip()))
    return 1 if judged[0].comparison.regression else 0


def _write(report: dict[str, Any], judged: list[PartJudgement], out: Path) -> None:
    from explaincheck.core.analysis.compare_files import write_text_atomic
    from explaincheck.core.analysis.repair_report import judgement_text
    from explaincheck.core.errors import ExplaincheckError

    if out.exists() and not out.is_dir():
        raise ExplaincheckError(f"--out {out} is a file, not a folder")
    text: list[str] = []
    for found in judged:
        text += ["```", *judgement_text(found, float(report["alpha"])), "```", ""]
    try:
        write_text_atomic(out / "repair.json", json.dumps(report, indent=2) + "\n")
        write_text_atomic(out / "repair.md", "\n".join(text))
    except OSError as error:
        raise ExplaincheckError(f"--out {out}: cannot write ({error.strerror})") from None
