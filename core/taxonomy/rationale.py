"""The oracle's values behind an answer, in one line: "Q(left) = 0.53 > Q(up) = 0.27".

Why: a training record (``train-set --explain``) or a few-shot example (``run --shots-explain``)
that shows *why* the answer is right teaches the rule, not only the label. The line is read off
the same oracle facts the grader uses, for the paper's ten categories; other categories (factors,
policy questions, plugins) get none. Numbers are shown with as few digits as keep every two
different values apart (tied values are written as equal).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from explaincheck.core.oracle.types import OracleResult
from explaincheck.core.taxonomy.base import TestCase
from explaincheck.core.taxonomy.case_rules import offered_order
from explaincheck.core.taxonomy.metamorphic import state_names
from explaincheck.core.taxonomy.registry import category as category_by_id


def rationale(case: TestCase, oracle: OracleResult) -> str:
    """The line for ``case`` ("" for a category without one)."""
    explain = _EXPLAINERS.get(case.category)
    return explain(case, oracle) if explain else ""


def number_texts(values: Sequence[float]) -> list[str]:
    """``values`` with the fewest significant digits (2 to 9) that keep different values apart."""
    distinct = sorted(set(values))
    for digits in range(2, 10):
        shown = {v: f"{v:.{digits}g}" for v in distinct}
        if len(set(shown.values())) == len(distinct):
            return [shown[v] for v in values]
    return [repr(v) for v in values]


def _chain(names: Sequence[str], values: Sequence[float], symbol: str, descending: bool) -> str:
    """``symbol(name) = value`` terms sorted, equal values joined ("Q(a) = Q(b) = 0.5"), the
    steps between them ">" (or "<")."""
    order = sorted(range(len(names)), key=lambda i: values[i], reverse=descending)
    texts = number_texts([values[i] for i in order])
    groups: list[tuple[list[str], str]] = []
    for rank, i in enumerate(order):
        term = f"{symbol}({names[i]})"
        if groups and values[i] == values[order[rank - 1]]:
            groups[-1][0].append(term)
        else:
            groups.append(([term], texts[rank]))
    step = " > " if descending else " < "
    return step.join(" = ".join(terms) + f" = {text}" for terms, text in groups)


def _preference(case: TestCase, oracle: OracleResult) -> str:
    state = oracle.state(case.states[0])
    listed = category_by_id(case.category).listed_actions(case, oracle)
    groups = offered_order(state, case.keep_do_nothing)
    names = [a for group in groups for a in group if a in listed]
    # values of one tie group are equal by the oracle's tie rule: shown as the group's first
    values = [state.q[next(g for g in groups if a in g)[0]] for a in names]
    return _chain(names, values, "Q", descending=True)


def _satisfy(case: TestCase, oracle: OracleResult) -> str:
    value = oracle.state(case.states[0]).value
    return f"V(this state) = {number_texts([value])[0]}"


def _pair(symbol: str, descending: bool) -> Callable[[TestCase, OracleResult], str]:
    def explain(case: TestCase, oracle: OracleResult) -> str:
        names = state_names(case, len(case.states))
        facts = [oracle.state(s) for s in case.states]
        values = [f.value if symbol == "V" else (f.danger or 0.0) for f in facts]
        return _chain(names, values, symbol, descending)

    return explain


def _bottleneck(case: TestCase, oracle: OracleResult) -> str:
    if oracle.state(case.states[0]).bottleneck:
        return "every path from the start to the goal passes through this state"
    return "a path from the start reaches the goal without passing through this state"


def _which_bottleneck(case: TestCase, oracle: OracleResult) -> str:
    names = state_names(case, len(case.states))
    found = [n for n, s in zip(names, case.states, strict=True) if oracle.state(s).bottleneck]
    others = [n for n in names if n not in found]
    return (
        f"every path from the start to the goal passes through {', '.join(found)};"
        f" one avoids {', '.join(others)}"
    )


def _subset_bottleneck(case: TestCase, oracle: OracleResult) -> str:
    names = state_names(case, len(case.states))
    found = [n for n, s in zip(names, case.states, strict=True) if oracle.state(s).bottleneck]
    if found:
        return f"every path from the start to the goal passes through {', '.join(found)}"
    return f"for each of {', '.join(names)}, a path reaches the goal without passing through it"


def _subset_dead_end(case: TestCase, oracle: OracleResult) -> str:
    names = state_names(case, len(case.states))
    values = [oracle.state(s).value for s in case.states]
    dead = [n for n, v in zip(names, values, strict=True) if v == 0]
    if dead:
        return " and ".join(f"V({n}) = 0" for n in dead)
    least = min(range(len(names)), key=values.__getitem__)
    return f"none is a dead end: the least is V({names[least]}) = {number_texts(values)[least]} > 0"


_EXPLAINERS: dict[str, Callable[[TestCase, OracleResult], str]] = {
    "satisfy": _satisfy,
    "best_action": _preference,
    "worst_action": _preference,
    "ranking": _preference,
    "more_promising": _pair("V", descending=True),
    "safer": _pair("D", descending=False),
    "bottleneck": _bottleneck,
    "which_bottleneck": _which_bottleneck,
    "subset_bottleneck": _subset_bottleneck,
    "subset_dead_end": _subset_dead_end,
}
