"""Shards: the I-th of N deterministic parts of a plan, so one campaign runs as N jobs (a Slurm
array, a Kubernetes indexed job) whose databases ``explaincheck merge`` joins again.

Why by test case, round robin in plan order: every LLM and repeat of one case stay in one shard
(identical requests still share one reply), the parts differ in size by at most one case, and
the split depends on nothing but the plan, which every job computes alike from the same options.
Each shard keeps the campaign's identity, so shards of one campaign merge and differing
campaigns are refused.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from explaincheck.core.campaign.plan import Plan
from explaincheck.core.errors import ExplaincheckError

_SHARD = re.compile(r"^\s*(\d+)\s*/\s*(\d+)\s*$")


@dataclass(frozen=True)
class Shard:
    """Part ``index`` (1-based) of ``count``."""

    index: int
    count: int

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"


def parse_shard(text: str) -> Shard:
    """``I/N`` with 1 <= I <= N, or a one-line error."""
    found = _SHARD.match(str(text))
    if not found:
        raise ExplaincheckError(f"--shard {text!r}: use I/N, e.g. 1/3 (the first of three)")
    index, count = int(found.group(1)), int(found.group(2))
    if count < 1 or not 1 <= index <= count:
        raise ExplaincheckError(f"--shard {text!r}: I must be from 1 to N (N at least 1)")
    return Shard(index, count)


def shard_plan(plan: Plan, shard: Shard) -> Plan:
    """The executions of ``plan`` whose test case falls in ``shard`` (plan order kept)."""
    if shard.count == 1:
        return plan
    cases: dict[str, int] = {}
    for execution in plan.executions:
        cases.setdefault(execution.case.key, len(cases))
    mine = tuple(e for e in plan.executions if cases[e.case.key] % shard.count == shard.index - 1)
    return replace(plan, executions=mine)
