"""What the GUI does for a category's extras comes from the category, never its id: a throwaway
category registered here that declares an offer, the factor panel or facts beyond the oracle
gets the Campaign tab's offer, the factor panel's cases and its facts computed by the Teach tab."""

from __future__ import annotations

import pytest
from gui_helpers import open_env, wait_for

from explaincheck.core.environments.registry import load_builtin
from explaincheck.core.oracle import compute_oracle
from explaincheck.core.taxonomy import registry
from explaincheck.core.taxonomy.base import RequestOffer
from explaincheck.core.taxonomy.satisfy import Satisfy
from explaincheck.core.workspace.presentation.category_offers import behavioural_tip, request_offers
from explaincheck.gui.views.factor_panel import has_factor_panel, is_factor_case

CALLS: list[str] = []
MARK = "extras-test"


class Costly(Satisfy):
    """satisfy, offered on request with a cost of its own."""

    id = "costly"

    def offer(self, environment, oracle):
        return RequestOffer(f"on request: {len(oracle.states)} checks", "it costs")


class Paneled(Satisfy):
    id = "paneled"
    panel = "factors"


class Extra(Satisfy):
    """satisfy whose cases exist only once its facts are attached (``with_facts``)."""

    id = "extra"
    name = "extra facts"
    extra_facts = "the extra test facts"

    def with_facts(self, oracle, environment, request):
        CALLS.append(request.model_path)
        return oracle.attach(MARK, True)

    def candidates(self, oracle, seed=0):
        return super().candidates(oracle, seed) if oracle.attached(MARK) else []


@pytest.fixture
def extras(monkeypatch):
    CALLS.clear()
    for found in (Costly(), Paneled(), Extra()):
        monkeypatch.setitem(registry.CATEGORIES, found.id, found)


def test_every_category_that_offers_itself_is_offered(extras):
    environment = load_builtin("frozen_lake")
    oracle = compute_oracle(environment.request())
    offers = request_offers(environment, oracle)
    assert offers["costly"] == RequestOffer(f"on request: {len(oracle.states)} checks", "it costs")
    assert "extra model checks" in offers["factors"].label  # frozen_lake declares its factors
    assert "satisfy" not in offers and "extra" not in offers
    assert "one extra question per factor" in behavioural_tip()


def test_the_factor_panel_shows_the_cases_of_the_categories_that_name_it(extras):
    assert has_factor_panel("paneled") and has_factor_panel("factors")
    assert not has_factor_panel("satisfy") and not has_factor_panel(None)
    assert is_factor_case({"category": "paneled", "expected": {"action": ["up"]}})
    assert not is_factor_case({"category": "satisfy", "expected": {"answer": 0.5}})
    assert not is_factor_case({"category": "paneled", "expected": None})


def test_the_teach_tab_computes_a_categorys_facts_before_its_cases(extras, qtbot, window):
    open_env(qtbot, window, "frozen_lake")
    teach = window.teach_view
    window.show_tab("teach")
    teach.category.setCurrentIndex(teach.category.findData("extra"))
    wait_for(qtbot, lambda: teach.ready and teach.lesson is not None, 60)
    assert teach.lesson.case.category == "extra"
    assert teach.oracle.attached(MARK) is True and len(CALLS) == 1
    assert not teach.factor_panel.isVisibleTo(teach)  # it does not name the factor panel
    # chosen again: the facts are kept for the session, not computed twice
    teach.category.setCurrentIndex(teach.category.findData("satisfy"))
    wait_for(qtbot, lambda: teach.ready and teach.lesson.case.category == "satisfy", 60)
    teach.category.setCurrentIndex(teach.category.findData("extra"))
    wait_for(qtbot, lambda: teach.ready and teach.lesson.case.category == "extra", 60)
    assert len(CALLS) == 1
