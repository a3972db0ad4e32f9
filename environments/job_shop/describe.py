"""How a job-shop state reads: the work left on each job and the hours left to the deadline.

A format string would print "0 units" for a finished job and cannot count the hours left.
"""

from __future__ import annotations

from explaincheck.core.oracle.types import StateFacts


def _work(units: int) -> str:
    if units == 0:
        return "finished"
    return f"{units} unit{'s' if units != 1 else ''} of work left"


def describe(state: StateFacts, constants: dict) -> str:
    v = state.valuation
    left = {job: int(v[job.lower()]) for job in ("A", "B", "C")}
    hours, deadline = int(v["t"]), int(constants.get("DEADLINE", 6))
    jobs = "; ".join(f"job {job}: {_work(units)}" for job, units in left.items())
    if all(units == 0 for units in left.values()):
        return f"All jobs are finished after {hours} of {deadline} hours: the task is accomplished."
    if hours >= deadline:
        return (
            f"The deadline of {deadline} hours has passed with work left ({jobs}): "
            "the order is late."
        )
    remaining = deadline - hours
    return (
        f"{jobs[0].upper()}{jobs[1:]}. Hours passed: {hours} of {deadline} "
        f"({remaining} hour{'s' if remaining != 1 else ''} left before the deadline)."
    )
