"""Metamorphic variants of a test case: changes to the prompt whose effect on the true answer is
known, so an explainer's answers can be checked for consistency without knowing the truth.

- ``swap``: the two states of a pair question change places (the right letter swaps);
- ``actions``: the listed actions (and the answer's option list) appear in reverse order;
- ``rename``: the states of a pair or subset get other letters (M, N, ... instead of K, L, ...);
- ``subset_order``: the states of a subset question appear in reverse order.

A variant is a ``TestCase`` with ``variant`` set and ``origin`` = the key of the case it came
from (its family). ``canonical_answer`` undoes the transformation on an answer (a state letter
becomes the state id it names), so the answers of one family can be compared directly.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from explaincheck.core.taxonomy.base import MODE, SCOPE, VARIANT_MARK, WORDING_MARK, TestCase
from explaincheck.core.taxonomy.state_letters import STATE_NAMES, letters

if TYPE_CHECKING:
    from explaincheck.core.oracle.types import OracleResult
    from explaincheck.core.taxonomy.base import Category

SWAP, ACTIONS, RENAME, SUBSET_ORDER = "swap", "actions", "rename", "subset_order"
VARIANTS = (SWAP, ACTIONS, RENAME, SUBSET_ORDER)


def state_names(case: TestCase, count: int) -> tuple[str, ...]:
    """The letters the prompt gives the case's states: K, L, ... or, renamed, the next ``count``
    letters of ``state_letters.STATE_NAMES`` (so no renamed letter is one of the original ones)."""
    if case.variant != RENAME:
        return letters(count)
    if 2 * count > len(STATE_NAMES):
        raise ValueError(f"cannot rename {count} states: too few letters")
    return tuple(STATE_NAMES[count : 2 * count])


def shown_actions(case: TestCase, actions: tuple[str, ...]) -> tuple[str, ...]:
    """The actions in the order the prompt lists them (reversed in the ``actions`` variant)."""
    return tuple(reversed(actions)) if case.variant == ACTIONS else tuple(actions)


def applicable(category: Category, case: TestCase, oracle: OracleResult) -> tuple[str, ...]:
    """The variants that change the prompt of ``case`` (an untransformed case)."""
    found = []
    if category.dimension == MODE:
        found += [SWAP, RENAME]
    if category.dimension == SCOPE:
        found += [SUBSET_ORDER, RENAME]
    listed = oracle.model.actions if category.lettered else category.listed_actions(case, oracle)
    if len(listed) >= 2:
        found.append(ACTIONS)
    return tuple(v for v in VARIANTS if v in found)


def transformed(case: TestCase, variant: str) -> TestCase:
    """``case`` under ``variant``; its ``origin`` ties it to ``case``'s family."""
    if case.variant:
        raise ValueError(f"{case.key} is already a variant")
    if variant not in VARIANTS:
        raise ValueError(f"unknown metamorphic variant {variant!r} (valid: {', '.join(VARIANTS)})")
    states = case.states
    if variant in (SWAP, SUBSET_ORDER):
        states = tuple(reversed(states))
    return replace(case, states=states, variant=variant, origin=case.family)


def canonical_answer(
    key: str, value: Any, states: tuple[int, ...] | list[int], names: tuple[str, ...] | list[str]
) -> Any:
    """An answer with the transformation undone: a state letter becomes the id of the state it
    names (undoes ``swap`` and ``rename``); a ranking becomes a tuple; yes/no, an action and a
    probability are unchanged by every variant. None stays None (an unreadable reply)."""
    if value is None:
        return None
    if key == "state":
        names = list(names)
        return ("state", int(states[names.index(value)])) if value in names else ("state", value)
    if isinstance(value, list):
        return tuple(value)
    return value


def key_parts(case_key: str) -> dict[str, Any]:
    """``wording``, ``variant`` and ``origin`` of a stored case key (what ``TestCase`` needs
    besides the stored columns to be rebuilt exactly, e.g. for re-grading a renamed variant)."""
    family, mark, variant = case_key.partition(VARIANT_MARK)
    _, wmark, wording = family.partition(WORDING_MARK)
    return {
        "wording": int(wording) if wmark and wording.isdigit() else 0,
        "variant": variant if mark else "",
        "origin": family if mark else "",
    }
