"""The policy's numbers as JSON (``oracle --policy FILE --json``) and as a value-loss table.

Contract (DESIGN.md): each state gains ``V_policy``, ``D_policy``, ``action_policy`` (the action,
or a distribution as a JSON object) and ``regret``; the model gains ``value_loss``. Beside them:
``Q_policy``, ``visits``, ``share`` and the exact fractions under the exact method.
"""

from __future__ import annotations

import math
from typing import Any

from explaincheck.core.policy.types import PolicyChain, PolicyState


def json_number(value: float | None) -> float | None:
    """A number for strict JSON: an infinite one (an expected reward where the target is not
    reached for sure) is null, and the object beside it says so (``*_infinite``)."""
    if value is None or math.isinf(value) or math.isnan(value):
        return None
    return value


def infinite_flags(**values: float | None) -> dict[str, bool]:
    """``{"NAME_infinite": true}`` for each infinite value (``json_number`` wrote it null)."""
    return {
        f"{name}_infinite": True for name, v in values.items() if v is not None and math.isinf(v)
    }


def action_json(state: PolicyState) -> Any:
    """π(s) as JSON: the action, an object {action: probability}, or null without a choice."""
    if not state.action:
        return None
    if len(state.action) == 1:
        return next(iter(state.action))
    return {a: float(p) for a, p in state.action.items()}


def state_fields(state: PolicyState) -> dict[str, Any]:
    fields: dict[str, Any] = {
        "V_policy": json_number(state.value),
        "D_policy": state.danger,
        "action_policy": action_json(state),
        "regret": json_number(state.regret),
        "Q_policy": {a: json_number(q) for a, q in state.q.items()},
        "visits": state.visits,
        "share": state.share,
        "defaulted": state.defaulted,
        **infinite_flags(V_policy=state.value, regret=state.regret),
    }
    if state.value_exact is not None:
        fields["V_policy_exact"] = str(state.value_exact)
        if state.regret_exact is not None:
            fields["regret_exact"] = str(state.regret_exact)
    return fields


def model_fields(chain: PolicyChain) -> dict[str, Any]:
    s0 = chain.state(chain.initial)
    fields: dict[str, Any] = {
        "value_loss": json_number(chain.value_loss),
        "V_policy_initial": json_number(s0.value),
        **infinite_flags(value_loss=chain.value_loss, V_policy_initial=s0.value),
        "policy_source": chain.policy.source,
        "policy_default": chain.policy.default or None,
        "policy_defaulted": len(chain.policy.defaulted),
        "policy_method": chain.method,
        "policy_residual": chain.residual,
    }
    exact = chain.value_loss_exact
    if exact is not None:
        fields["value_loss_exact"] = str(exact)
    return fields


def add_policy(contract: dict[str, Any], chain: PolicyChain) -> dict[str, Any]:
    """The ``oracle --json`` object with the policy's fields added."""
    contract["model"].update(model_fields(chain))
    for row in contract["states"]:
        row.update(state_fields(chain.state(row["id"])))
    return contract


def loss_lines(chain: PolicyChain, names: dict[int, str] | None = None, top: int = 5) -> list[str]:
    """The value-loss summary in text: V*(s0), V^π(s0), the loss, where it is lost."""
    s0 = chain.state(chain.initial)
    exact = chain.value_loss_exact
    lines = [
        f"policy       {chain.policy.source}"
        + (
            f" ({len(chain.policy.defaulted)} states filled by the default {chain.policy.default})"
            if chain.policy.defaulted
            else ""
        ),
        f"V*(s0)       {s0.optimal_value:.6g}",
        f"V^pi(s0)     {s0.value:.6g}"
        + (f" = {s0.value_exact}" if s0.value_exact is not None else ""),
        f"value loss   {chain.value_loss:.6g}" + (f" = {exact}" if exact is not None else ""),
        f"solved by    {chain.method}",
    ]
    for state in chain.losing_most(top):
        name = (names or {}).get(state.id, str(state.id))
        why = (
            f"stranded: pi never reaches the goal from here, V* {state.optimal_value:.4g}"
            if state.stranded
            else f"regret {state.regret:.4g}"
        )
        lines.append(
            f"loses at     {name}: share {state.share:.4g} (visits {state.visits:.4g}, {why})"
        )
    return lines
