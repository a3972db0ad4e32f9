"""Finishing a run: the one pipeline every front end calls after ``CampaignSession.run``.

Why one place: ``run``, the window and the behavioural probes all end a run the same way, and
when each wrote its own ending they drifted (the window did not re-grade a campaign resumed
under another satisfy rule; no front end recorded the rule in the campaign). Here, in order:

1. rows stored by an earlier run under other grading settings are graded again from their stored
   replies (no LLM asked), so one table never mixes two satisfy rules;
2. the campaign record is given the grading now applied, so its facts name that rule;
3. when asked for and the run is complete, the follow-up probes of the plan's categories run
   (``Category.follow_up``, e.g. the behavioural check of ``factors`` cases); they write through
   the session's store, the only writer of results.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from explaincheck.core.campaign.plan import Plan
from explaincheck.core.campaign.probes import Probed, follow_up, total
from explaincheck.core.campaign.regrade import RegradeSummary, regrade_stored
from explaincheck.core.campaign.runner import RunOutcome
from explaincheck.core.campaign.session import CampaignSession


@dataclass(frozen=True)
class Finished:
    """What finishing a run did: the re-grade of resumed rows and, when the probes ran, the
    number of executions probed (None: not asked for, or the run is incomplete), in all and
    per category with follow-up probes."""

    regraded: RegradeSummary
    probed: int | None = None
    probes: tuple[Probed, ...] = ()

    def probe_lines(self) -> list[str]:
        """What the front ends print after probing: "behavioural check of 1 factors executions
        stored", one line per probed category (none when the probes did not run)."""
        if self.probed is not None and not self.probes:
            return ["no follow-up probes: no category of this campaign has them"]
        return [f"{p.words} of {p.executions} {p.category} executions stored" for p in self.probes]


def regrade_resumed(plan: Plan, session: CampaignSession) -> RegradeSummary:
    """Steps 1 and 2: bring the plan's stored rows to its grading and record that grading."""
    campaign = plan.campaign
    keys = {e.key for e in plan.executions}
    summary = regrade_stored(
        session.store, keys, plan.oracle, campaign.grading, campaign.keep_do_nothing
    )
    session.store.record_grading(asdict(campaign.grading), plan.identity)
    return summary


async def finish_run(
    plan: Plan, session: CampaignSession, outcome: RunOutcome, *, behavioural: bool = False
) -> Finished:
    """Steps 1 to 3 after ``session.run(plan)`` ended with ``outcome``."""
    summary = regrade_resumed(plan, session)
    if not (behavioural and outcome.complete):
        return Finished(summary)
    probed = await follow_up(plan, session.store, session.settings)
    return Finished(summary, total(probed), tuple(probed))
