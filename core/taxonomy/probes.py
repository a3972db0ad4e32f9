"""Follow-up probes: questions a category asks again after a run (``Category.follow_up``).

Why here: a probe is plain taxonomy data (a test case, the oracle it is asked on, its prompt), so
a category builds its own probes while the campaign (``core/campaign/probes.py``) asks them
through the backends and stores the replies, without knowing which category they came from.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from explaincheck.core.taxonomy.cases import Prompt, TestCase

if TYPE_CHECKING:
    from explaincheck.core.oracle.types import OracleResult
    from explaincheck.core.taxonomy.answers import AnswerForm

TRIAL_MARK = "#"  # stored probe name suffix of a trial after the first


@dataclass(frozen=True)
class Probe:
    """One follow-up question: ``case`` (of any category) on ``oracle`` with ``prompt``; the
    reply is read with ``form`` and the answer stored beside it."""

    name: str  # unique within the probed execution (the stored probe name of trial 0)
    case: TestCase
    oracle: OracleResult
    prompt: Prompt
    form: AnswerForm


def trial_name(probe: str, trial: int) -> str:
    """The stored name of one trial of a probe (trial 0 keeps the probe's own name)."""
    return probe if trial == 0 else f"{probe}{TRIAL_MARK}{trial}"
