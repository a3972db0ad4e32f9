"""A ``Campaign`` from the settings a front end holds: the one builder of ``run``, the GUI's
Campaign tab and ``api.plan``.

Why one builder: the command line, the Campaign tab and the Python API each hold a campaign as
the user gives it (categories as ``default``/``all``/ids, a wording as ``0``/``all``, the
satisfy rule and tolerance as two settings) and built the ``Campaign`` field by field, so a new
field had to be added in each and a default could drift. Defaults are ``Campaign``'s and
``GradingSettings``'s own; each front end checks only its own settings (hosts, concurrency, the
open model).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from explaincheck.core.campaign.plan import Campaign, resolve_categories, resolve_wordings
from explaincheck.core.campaign.shot_settings import ShotSettings
from explaincheck.core.taxonomy.base import GradingSettings


def campaign_from_settings(
    environment: str,
    llms: Sequence[str],
    *,
    categories: Iterable[str] | str | None = None,
    budget: int = Campaign.budget,
    selection: str = Campaign.selection,
    repeat: int = Campaign.repeat,
    seed: int = Campaign.seed,
    case_seed: int | None = Campaign.case_seed,
    wording: str | int | Iterable[int] | None = None,
    metamorphic: bool = Campaign.metamorphic,
    keep_do_nothing: bool = Campaign.keep_do_nothing,
    min_gap: float = Campaign.min_gap,
    balance: bool = Campaign.balance,
    delta: str = Campaign.delta,
    satisfy_rule: str = GradingSettings.satisfy_rule,
    satisfy_tolerance: float = GradingSettings.satisfy_tolerance,
    constants: str | None = None,
    goal_label: str | None = None,
    unsafe_label: str | None = None,
    state_limit: int | None = None,
    shots: ShotSettings | None = None,
    property: str | None = None,
) -> Campaign:
    """The campaign these settings describe; an ``ExplaincheckError`` (one line) names the
    first setting that is wrong (``resolve_categories``, ``resolve_wordings``, ``Campaign``)."""
    return Campaign(
        environment=environment,
        llms=tuple(llms),
        categories=resolve_categories(categories),
        budget=budget,
        selection=selection,
        repeat=repeat,
        seed=seed,
        case_seed=case_seed,
        constants=constants,
        goal_label=goal_label,
        unsafe_label=unsafe_label,
        grading=GradingSettings(satisfy_rule=satisfy_rule, satisfy_tolerance=satisfy_tolerance),
        wordings=resolve_wordings(wording),
        metamorphic=metamorphic,
        keep_do_nothing=keep_do_nothing,
        min_gap=min_gap,
        balance=balance,
        delta=delta,
        state_limit=state_limit,
        shots=shots,
        property_text=property or None,
    )
