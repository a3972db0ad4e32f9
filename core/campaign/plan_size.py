"""A warning before a plan writes a very large results file (``--repeat 5000`` wrote 3 GB
without a word): its size is estimated from the prompts and said with the disk's free space."""

from __future__ import annotations

import shutil
from collections.abc import Sequence
from pathlib import Path

from explaincheck.core.campaign.plan import Plan

ROW_BYTES = 1500  # a stored execution besides its prompt: reply, JSON columns, index entries
WARN_BYTES = 1 << 30  # warn from an estimated gigabyte
WARN_EXECUTIONS = 100_000


def estimated_bytes(plan: Plan) -> int:
    """Roughly what storing every execution of ``plan`` adds to the file."""
    return sum(len(e.prompt.text.encode("utf-8")) + ROW_BYTES for e in plan.executions)


def size_warning(plan: Plan, db: str | Path, stop: str = "Ctrl-C stops the run") -> str | None:
    """One line when the plan is very large (or larger than the free disk), else None;
    ``stop`` says how to stop it (the GUI has a Stop button)."""
    return plans_size_warning([plan], db, stop)


def plans_size_warning(
    plans: Sequence[Plan], db: str | Path, stop: str = "Ctrl-C stops the run"
) -> str | None:
    """``size_warning`` over several plans written into one file (a matrix of environments)."""
    size = sum(estimated_bytes(plan) for plan in plans)
    total = sum(plan.total for plan in plans)
    folder = Path(db).resolve().parent
    try:
        free = shutil.disk_usage(folder).free
    except OSError:
        free = None
    if size < WARN_BYTES and total < WARN_EXECUTIONS and (free is None or size < free):
        return None
    room = f" ({free / 2**30:,.1f} GB free there)" if free is not None else ""
    beyond = "; that is more than the free space" if free is not None and size >= free else ""
    return (
        f"warning: {total:,} executions will make {Path(db).name} about"
        f" {size / 2**30:,.1f} GB{room}{beyond}: {stop} and keeps what is stored"
    )
