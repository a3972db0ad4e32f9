"""Applicability comes from the oracle at the chosen constants (one function, used by the plan,
``envs`` and the GUI), and a safer that repeats more_promising is flagged and left out by default.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from support.environment_expectations import expected

from explaincheck.core.campaign.plan import Campaign, plan_campaign, resolve_categories
from explaincheck.core.environments.generic import generic_environment
from explaincheck.core.environments.registry import BUILTIN_IDS, load_builtin
from explaincheck.core.oracle import compute_oracle
from explaincheck.core.oracle.types import OracleRequest
from explaincheck.core.taxonomy.registry import CATEGORIES, OWN_CATEGORIES, applicability
from explaincheck.core.taxonomy.safer import danger_is_complement

MODELS = Path(__file__).parents[2] / "models"
BOTTLENECK_CATEGORIES = {"bottleneck", "subset_bottleneck", "which_bottleneck"}


def bypass(wide: int):
    return compute_oracle(OracleRequest(str(MODELS / "bypass.prism"), constants=f"WIDE={wide}"))


def test_a_constant_that_creates_a_bottleneck_enables_the_bottleneck_categories():
    wide, narrow = bypass(1), bypass(0)
    assert not wide.bottlenecks and narrow.bottlenecks == (1,)
    # this project's categories (an installed plugin's applies or not for its own reasons)
    not_applicable = {
        c for c, f in applicability(wide).items() if not f.applicable and c in OWN_CATEGORIES
    }
    # (subset_dead_end: too few states; factors: no interventions computed outside a campaign;
    # the policy categories: no policy loaded)
    policy = {c for c in CATEGORIES if CATEGORIES[c].about_a_policy}
    assert not_applicable - {"subset_dead_end", "factors"} - policy == BOTTLENECK_CATEGORIES
    found = applicability(narrow)
    assert found["bottleneck"].applicable and found["which_bottleneck"].applicable
    # too small a model for 4-subsets, but no longer for want of a bottleneck
    assert "bottleneck" not in found["subset_bottleneck"].reason
    assert applicability(wide)["bottleneck"].reason == "the model has no bottleneck state"


def test_plan_follows_the_constants():
    env = generic_environment(MODELS / "bypass.prism", constants="WIDE=1")
    campaign = Campaign(str(MODELS / "bypass.prism"), ("random",), ("which_bottleneck",))
    assert plan_campaign(campaign, environment=env, oracle=bypass(1)).total == 0
    assert plan_campaign(campaign, environment=env, oracle=bypass(0)).total >= 1


@pytest.mark.parametrize("env_id", BUILTIN_IDS)
def test_safer_caveat_exactly_where_danger_is_one_minus_value(env_id):
    oracle = compute_oracle(load_builtin(env_id).request())
    redundant = expected(env_id).danger_is_one_minus_value  # its folder's expect.toml
    assert danger_is_complement(oracle) == redundant
    found = applicability(oracle)
    assert (found["safer"].caveat is not None) == redundant
    assert all(f.caveat is None for c, f in found.items() if c != "safer" and c in OWN_CATEGORIES)
    # the check is what it claims: D = 1 − V state by state (or not, somewhere)
    gaps = [abs(s.danger - (1 - s.value)) for s in oracle.states if not s.is_goal]
    assert (max(gaps) < 1e-12) == redundant


def test_default_campaign_leaves_a_redundant_safer_out_but_it_can_be_asked_for():
    env = load_builtin("water_jug")
    oracle = compute_oracle(env.request())
    default = plan_campaign(Campaign("water_jug", ("random",), budget=2), oracle=oracle)
    assert "safer" in default.skipped and "left out by default" in default.skipped["safer"]
    assert not any(e.case.category == "safer" for e in default.executions)
    assert "more_promising" not in default.skipped
    explicit = plan_campaign(Campaign("water_jug", ("random",), ("safer",), 2), oracle=oracle)
    assert explicit.cases[("safer", "prioritized")] == 2 and not explicit.skipped
    everything = plan_campaign(
        Campaign("water_jug", ("random",), resolve_categories("all"), 2), oracle=oracle
    )
    assert "safer" not in everything.skipped
    stored = default.stored_settings()
    assert "safer" in stored["skipped"] and stored["caveats"] == {}
    assert explicit.stored_settings()["caveats"].keys() == {"safer"}


def test_resolve_categories():
    assert resolve_categories(None) == () == resolve_categories("default")
    assert resolve_categories("all") == tuple(CATEGORIES)
    assert resolve_categories("safer, ranking") == ("safer", "ranking")
