"""The query categories by id (as in docs/method.md), in the paper's Table 1 column order.

The one list of categories: tables, figures, the Teach tab and the GUI read the category objects
from here (each declares its label, name, whether it is taught and its answer words), so a new
category is its module plus one line below.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from explaincheck.core.errors import ExplaincheckError
from explaincheck.core.plugins import CATEGORIES as CATEGORY_PLUGINS
from explaincheck.core.plugins import (
    ambiguous,
    claim,
    install_hint,
    plugin_objects,
    unique_by_name,
)
from explaincheck.core.taxonomy.base import EXPLANATION, Category
from explaincheck.core.taxonomy.best_action import BestAction
from explaincheck.core.taxonomy.bottleneck import Bottleneck
from explaincheck.core.taxonomy.factors import Factors
from explaincheck.core.taxonomy.more_promising import MorePromising
from explaincheck.core.taxonomy.policy_better import PolicyBetter
from explaincheck.core.taxonomy.policy_optimal import PolicyOptimal
from explaincheck.core.taxonomy.policy_reach import PolicyReach
from explaincheck.core.taxonomy.policy_regret import PolicyRegret
from explaincheck.core.taxonomy.ranking import Ranking
from explaincheck.core.taxonomy.safer import Safer
from explaincheck.core.taxonomy.satisfy import Satisfy
from explaincheck.core.taxonomy.subset_bottleneck import SubsetBottleneck
from explaincheck.core.taxonomy.subset_dead_end import SubsetDeadEnd
from explaincheck.core.taxonomy.which_bottleneck import WhichBottleneck
from explaincheck.core.taxonomy.worst_action import WorstAction

if TYPE_CHECKING:
    from explaincheck.core.oracle.types import OracleResult

CATEGORIES: dict[str, Category] = {
    category.id: category
    for category in (
        Satisfy(),
        Bottleneck(),
        BestAction(),
        WorstAction(),
        Ranking(),
        SubsetBottleneck(),
        SubsetDeadEnd(),
        MorePromising(),
        Safer(),
        WhichBottleneck(),
        Factors(),
        # about a loaded policy (core/policy): applicable only when one is attached
        PolicyReach(),
        PolicyOptimal(),
        PolicyBetter(),
        PolicyRegret(),
    )
}
# this project's own categories (what its docs count); then the categories of installed plugin
# packages (entry points ``explaincheck.categories``, core/plugins.py), each under its namespaced
# id ``DISTRIBUTION/ID`` (the instance answers to it: cases, prompts and the store carry it); an
# id that cannot be registered is one line on stderr (``claim``)
OWN_CATEGORIES: tuple[str, ...] = tuple(CATEGORIES)
for _offer in plugin_objects(CATEGORY_PLUGINS, Category, make=lambda cls: cls()):
    _id = claim(CATEGORY_PLUGINS, _offer, getattr(_offer.value, "id", ""), CATEGORIES)
    if _id is not None:
        _offer.value.id = _id
        CATEGORIES[_id] = _offer.value


# The paper's ten categories (its Table 1, section 4): fixed by the paper, for what reproduces
# its findings on its own taxonomy. Not the list of categories (that is ``CATEGORIES``).
PAPER_CATEGORIES: tuple[str, ...] = (
    "satisfy",
    "bottleneck",
    "best_action",
    "worst_action",
    "ranking",
    "subset_bottleneck",
    "subset_dead_end",
    "more_promising",
    "safer",
    "which_bottleneck",
)


@dataclass(frozen=True)
class Census:
    """How many categories there are of each sort: the one source of the counts the README and
    docs/method.md state (tests/docs/test_category_counts.py holds them to it)."""

    paper: int  # the paper's taxonomy (its Table 1)
    explanation: int  # why-questions beyond the paper (factors)
    about_a_policy: int  # questions about an attached policy
    total: int
    more: int = 0  # any other category of this project's (a state question added later)


def census() -> Census:
    """The counts of this project's own categories: plugins' are left out (the docs that state
    these counts describe the project, not what else is installed)."""
    own = [CATEGORIES[cid] for cid in OWN_CATEGORIES]
    about_policy = sum(c.about_a_policy for c in own)
    paper = sum(cid in OWN_CATEGORIES for cid in PAPER_CATEGORIES)
    explanation = sum(c.dimension == EXPLANATION and not c.about_a_policy for c in own)
    return Census(
        paper=paper,
        explanation=explanation,
        about_a_policy=about_policy,
        total=len(own),
        more=len(own) - paper - explanation - about_policy,
    )


def registered_id(category_id: str) -> str | None:
    """The registered id ``category_id`` names: itself, or the one plugin category whose own
    name it is (``within_k`` for ``explaincheck-mylab/within_k``: typed short, or stored
    before plugin ids were namespaced); None when it names none."""
    if category_id in CATEGORIES:
        return category_id
    return unique_by_name(category_id, CATEGORIES)


def category(category_id: str) -> Category:
    """The category with this id (``registered_id``); an unknown id is a user error naming the
    valid ones, or the plugin package to install."""
    found = registered_id(category_id)
    if found is not None:
        return CATEGORIES[found]
    raise ExplaincheckError(unknown_category(category_id, f"valid: {', '.join(CATEGORIES)}"))


def unknown_category(category_id: str, valid: str) -> str:
    """The one line for an id no category has: the plugin package to install when it names
    one (``DISTRIBUTION/NAME``), else the valid ids."""
    return (
        install_hint(category_id, CATEGORY_PLUGINS)
        or ambiguous(category_id, CATEGORIES, CATEGORY_PLUGINS)
        or f"unknown category {category_id!r} ({valid})"
    )


@dataclass(frozen=True)
class Applicability:
    """Whether a category can be tested on one oracle: ``reason`` says why not (None: it can);
    ``caveat`` says why an applicable category is left out of a default campaign."""

    category: str
    reason: str | None
    caveat: str | None = None

    @property
    def applicable(self) -> bool:
        return self.reason is None


def applicability(oracle: OracleResult) -> dict[str, Applicability]:
    """Every category's applicability on ``oracle``: the one place the CLI, the plan and the GUI
    ask. It comes from the oracle at the chosen constants, never from hand-written lists, so a
    constant that creates bottlenecks enables the bottleneck categories."""
    result = {}
    for category_id, category in CATEGORIES.items():
        reason = category.not_applicable(oracle)
        caveat = category.caveat(oracle) if reason is None else None
        result[category_id] = Applicability(category_id, reason, caveat)
    return result
