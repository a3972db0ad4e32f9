"""Policies of LLMs rebuilt from stored rows (``explaincheck policy`` runs in a results file),
and the value-loss table the report and the window show.

Why from rows: the replies are the record; the policy an LLM defined is a function of them and
of the oracle, so any front end can show it again without asking the LLM.
"""

from __future__ import annotations

from collections.abc import Iterable
from fractions import Fraction
from pathlib import Path
from typing import Any

import pandas as pd

from explaincheck.core.environments.registry import resolve
from explaincheck.core.errors import ExplaincheckError
from explaincheck.core.oracle import compute_oracle
from explaincheck.core.oracle.types import OracleResult, StateFacts
from explaincheck.core.policy.attach import attach_file
from explaincheck.core.policy.chain import solve_policy
from explaincheck.core.policy.loading import complete
from explaincheck.core.policy.types import UNIFORM, PolicyChain

POLICY_SELECTION = "policy"  # the selection column of the best-action rows asked for a policy
DRAWS = ("random",)  # answerers whose reply is one draw from a known distribution


def choice_from_reply(llm: str, state: StateFacts, action: str | None) -> dict[str, Fraction]:
    """The LLM's choice in ``state``: the action its reply named, or for an answerer that draws
    (random) the distribution of the draw, uniform over the actions the act question offered
    (do-nothing actions left out, as the best-action question leaves them out: taxonomy's
    ``case_rules.offered_actions``, a layer above this one); {} when unread."""
    if llm in DRAWS:
        idle = set(state.do_nothing)
        offered = tuple(a for a in state.actions if a not in idle) or state.actions
        return {a: Fraction(1, len(offered)) for a in offered}
    if action is not None and action in state.q:
        return {action: Fraction(1)}
    return {}


def stored_policies(
    rows: Iterable[dict[str, Any]], oracle: OracleResult, default: str = UNIFORM
) -> dict[str, tuple[PolicyChain, int]]:
    """llm -> (the chain of its policy, states asked) from the policy rows of ``oracle``'s
    model (rows of other models and of campaigns are left out)."""
    base = getattr(oracle, "base_hash", "") or oracle.model.content_hash
    answers: dict[str, dict[int, str | None]] = {}
    for row in rows:
        if row.get("selection") != POLICY_SELECTION or row.get("category") != "best_action":
            continue
        if row.get("model_hash") != base or row.get("verdict") == "error":
            continue
        state_id = (row.get("states") or [None])[0]
        if not isinstance(state_id, int) or not 0 <= state_id < len(oracle.states):
            continue
        answer = row.get("answer")
        action = answer.get("action") if isinstance(answer, dict) else None
        answers.setdefault(str(row.get("llm")), {})[state_id] = action
    found = {}
    for llm, by_state in answers.items():
        given = {}
        for state_id, action in by_state.items():
            choice = choice_from_reply(llm, oracle.state(state_id), action)
            if choice:
                given[state_id] = choice
        policy = complete(oracle, given, f"llm:{llm}", default)
        found[llm] = (solve_policy(oracle, policy), len(by_state))
    return found


def loss_table(chains: dict[str, tuple[PolicyChain, int | None]]) -> pd.DataFrame:
    """One row per policy: V*(s0), V^π(s0), the loss (and its fraction), states asked and
    filled by the default, and the state with the largest share of the loss."""
    rows = []
    for name, (chain, asked) in chains.items():
        s0 = chain.state(chain.initial)
        exact = chain.value_loss_exact
        worst = chain.losing_most(1)
        rows.append(
            {
                "policy": name,
                "V*(s0)": round(s0.optimal_value, 6),
                "V^pi(s0)": round(s0.value, 6),
                "value loss": round(chain.value_loss, 6),
                "exact": str(exact) if exact is not None else "",
                "states asked": asked if asked is not None else "",
                "by default": len(chain.policy.defaulted),
                "loses most at": f"{worst[0].id} ({worst[0].share:.3g})" if worst else "",
            }
        )
    return pd.DataFrame(rows)


def environment_policies(
    rows: list[dict[str, Any]], policy_path: str | None = None, default: str = ""
) -> tuple[pd.DataFrame, list[str]]:
    """The value-loss table of a results file: per environment in ``rows`` (at its default
    constants), every LLM used as a policy there and, with ``policy_path``, that policy where it
    fits the model. Returns the table and notes (environments the policy does not fit)."""
    environments = list(dict.fromkeys(str(r.get("environment")) for r in rows if r))
    tables, notes = [], []
    fitted = False
    for name in environments:
        wanted = policy_path is not None or any(
            r.get("selection") == POLICY_SELECTION and r.get("environment") == name for r in rows
        )
        if not wanted:
            continue
        try:
            oracle = compute_oracle(resolve(name).request())
        except ExplaincheckError as error:
            notes.append(f"{name}: {error}")
            continue
        chains: dict[str, tuple[PolicyChain, int | None]] = {}
        if policy_path is not None:
            try:
                attached = attach_file(oracle, policy_path, default)
            except ExplaincheckError as error:
                notes.append(f"{name}: the policy does not fit ({error})")
            else:
                assert attached.policy is not None
                chains[Path(policy_path).name] = (attached.policy, None)
                fitted = True
        for llm, found in stored_policies(rows, oracle).items():
            chains[f"LLM {llm}"] = (found[0], found[1])
        if chains:
            table = loss_table(chains)
            table.insert(0, "environment", name)
            tables.append(table)
    if policy_path is not None and not fitted:
        raise ExplaincheckError(
            f"the policy {policy_path} fits no environment of this results file: "
            + ("; ".join(notes) or "no environments")
        )
    frame = pd.concat(tables, ignore_index=True) if tables else pd.DataFrame()
    return frame, notes
