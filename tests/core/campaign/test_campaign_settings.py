"""The one builder of a ``Campaign`` from a front end's settings (``run`` and the Campaign tab)."""

from __future__ import annotations

import pytest

from explaincheck.core.campaign.plan import Campaign
from explaincheck.core.campaign.settings import campaign_from_settings
from explaincheck.core.cli.main import build_parser
from explaincheck.core.cli.run_command import campaign_from
from explaincheck.core.errors import ExplaincheckError
from explaincheck.core.taxonomy.base import WORDINGS, GradingSettings
from explaincheck.core.taxonomy.registry import CATEGORIES


def test_front_end_forms_become_the_campaign_fields():
    campaign = campaign_from_settings(
        "frozen_lake",
        ["random", "random", "oracle"],
        categories="best_action, satisfy",
        wording="all",
        satisfy_rule="half",
        satisfy_tolerance=0.1,
        selection="prioritised",
        budget=3,
    )
    assert campaign.llms == ("random", "oracle")
    assert campaign.categories == ("best_action", "satisfy")
    assert campaign.wordings == tuple(range(WORDINGS))
    assert campaign.grading == GradingSettings("half", 0.1)
    assert (campaign.selection, campaign.budget) == ("prioritized", 3)


def test_defaults_are_the_campaigns_own():
    built = campaign_from_settings("frozen_lake", ["random"])
    assert built == Campaign("frozen_lake", ("random",))
    assert campaign_from_settings("frozen_lake", ["oracle"], categories="all").categories == tuple(
        CATEGORIES
    )


def test_the_command_line_builds_the_same_campaign():
    args = build_parser().parse_args(
        ["run", "--env", "frozen_lake", "--llm", "random", "--categories", "satisfy",
         "--wording", "1", "--satisfy-rule", "half", "--min-gap", "0.02", "--balance", "off"]
    )  # fmt: skip
    assert campaign_from(args) == campaign_from_settings(
        "frozen_lake",
        ["random"],
        categories=("satisfy",),
        wording=1,
        satisfy_rule="half",
        min_gap=0.02,
        balance=False,
    )


def test_a_wrong_setting_is_one_clear_error():
    with pytest.raises(ExplaincheckError, match="unknown category 'nope'"):
        campaign_from_settings("frozen_lake", ["random"], categories="nope")
    with pytest.raises(ExplaincheckError, match="--wording must be one of"):
        campaign_from_settings("frozen_lake", ["random"], wording="7")
