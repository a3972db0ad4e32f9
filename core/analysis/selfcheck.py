"""The self-check's figures from stored rows: does the LLM say what it does, and does it explain
its own policy as well as it explains the optimal and the uniform random policy?
(``explaincheck selfcheck``; docs/method.md, "Self-check").

Why from rows and the oracle only: the replies are the record, so the CLI, the report and the
window compute the same numbers, and none asks the LLM again.

- **Say–do agreement** at a state s it acted in and said something readable about: π(a_say | s),
  the probability that its own policy takes the action it calls best (1 or 0 for a deterministic
  policy; 1/|A(s)| for the uniform policy that stands for the random answerer). The agreement is
  the mean over those states, with a Wilson 95% interval on (sum, states). Of the disagreeing
  mass, "saying right" is the share where the action it calls best is optimal (in A*(s)),
  "doing right" the share of the policy's other actions that are optimal; where actions tie
  both can be right, so the two shares need not add up to 1.
- **Self-explanation accuracy**: the pass share of its policy questions about its own policy,
  beside the same for the optimal and the uniform policy; chance-corrected per question as
  RQ1 is, (score − chance) / (1 − chance) with the exact chance of ``analysis/chance.py``.
  Paired over the questions all three policies have: a paired t-test of own against each control
  on the corrected scores (Holm-adjusted over the two) and, uncorrected, Cochran's Q on
  pass/fail. Not a rank test on the corrected scores: a miss scores −chance/(1 − chance), so
  ranks would compare the questions' chance levels rather than skill (a guesser came out
  "significant" that way); the mean corrected score is 0 for a guesser on every question.
- **Value loss, its own**: the states it gave no choice at (not asked within the budget, or a
  reply that named no action) are filled by the default, a uniform random choice, and the
  loss of that completed policy is partly the default's (the oracle "lost" 42/629 on Frozen
  Lake at budget 10). The figure is the interval of the loss over every choice at those states
  (``policy.unchosen``): ``value_loss`` its low end, the least loss its own choices impose,
  ``value_loss_high`` the greatest; one number when those states cannot matter. The default's
  loss is kept beside it (``value_loss_default``).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np
import pandas as pd

from explaincheck.core.analysis.chance import row_chances
from explaincheck.core.analysis.paired import question_identity, wilson
from explaincheck.core.campaign.selfcheck import (
    EXPLAIN_SELECTIONS,
    OWN,
    ROLES,
    SAY_SELECTION,
)
from explaincheck.core.oracle.types import OracleResult
from explaincheck.core.plural import counted
from explaincheck.core.policy.contract import infinite_flags, json_number
from explaincheck.core.policy.loading import complete
from explaincheck.core.policy.stored import POLICY_SELECTION, stored_policies
from explaincheck.core.policy.types import OPTIMAL, UNIFORM, Policy, PolicyChain, policy_hash
from explaincheck.core.policy.unchosen import loss_interval
from explaincheck.core.taxonomy.base import FAIL, INVALID, PASS
from explaincheck.core.taxonomy.kinds import number
from explaincheck.core.taxonomy.registry import CATEGORIES

SCORED = (PASS, FAIL, INVALID)  # an invalid reply counts as not passed; error/uncertain: out
DEFAULT_WORDS = "a uniform random choice among the state's actions"  # the act step's default


@dataclass(frozen=True)
class PolicyQuestions:
    """One policy's questions: how many, the pass share, and the chance-corrected score."""

    questions: int
    accuracy: float | None
    corrected: float | None
    corrected_questions: int  # questions whose chance is known and below 1
    accuracy_ci: tuple[float, float] | None = None  # Wilson 95% over the questions


@dataclass(frozen=True)
class SelfCheckFigures:
    """Everything ``selfcheck`` reports for one LLM on one model."""

    llm: str
    environment: str
    states: int  # states in the say–do agreement
    say_do_agreement: float | None
    say_do_ci: tuple[float, float] | None
    disagreement: float  # the disagreeing mass (states, fractional for a randomised policy)
    saying_right: float | None
    doing_right: float | None
    say_unread: int  # acted states whose say reply named no action
    acted: int
    value_loss: float  # the least loss over every choice at the states it gave no choice at
    value_loss_exact: str | None
    best_action_score: float | None
    best_action_cases: int
    say_scores: dict[str, float | None]
    policies: dict[str, PolicyQuestions]
    paired_questions: int
    paired_p: dict[str, float | None] = field(default_factory=dict)  # own vs role, Holm
    cochran_p: float | None = None
    defaulted: int = 0  # decision states it gave no choice at (filled by the default)
    value_loss_high: float = 0.0  # the greatest loss over every choice there
    value_loss_high_exact: str | None = None
    value_loss_default: float = 0.0  # the loss with the default's choice there
    value_loss_default_exact: str | None = None
    default: str = DEFAULT_WORDS
    value_loss_bounded: bool = True  # False: an expected reward, the loss with the default

    @property
    def value_loss_interval(self) -> tuple[float, float]:
        return (self.value_loss, self.value_loss_high)

    @property
    def questions(self) -> int:
        return self.policies[OWN].questions

    def to_json(self) -> dict[str, Any]:
        """The contract's keys (DESIGN.md, round 4) first, then the rest."""
        data = {
            "say_do_agreement": self.say_do_agreement,
            "say_do_ci": list(self.say_do_ci) if self.say_do_ci else None,
            "self_accuracy": self.policies[OWN].accuracy,
            "optimal_accuracy": self.policies[OPTIMAL].accuracy,
            "random_accuracy": self.policies[UNIFORM].accuracy,
            "value_loss": json_number(self.value_loss),
            **infinite_flags(value_loss=self.value_loss),
            "states": self.states,
            "questions": self.questions,
            "self_accuracy_ci": _listed(self.policies[OWN].accuracy_ci),
        }
        rest = asdict(self)
        rest.pop("say_do_ci")
        rest.pop("value_loss")
        for name in ("value_loss_high", "value_loss_default"):
            rest[name] = json_number(rest[name])
            rest.update(infinite_flags(**{name: getattr(self, name)}))
        rest["value_loss_interval"] = [json_number(end) for end in self.value_loss_interval]
        rest["value_loss_rule"] = (
            "value_loss, value_loss_high: the least and the greatest loss over every choice at"
            f" the {counted(self.defaulted, 'decision state')} it gave no choice at (not asked"
            " within the budget, or a reply that named no action); value_loss_default: the loss"
            f" with the default there, {self.default}"
            if self.value_loss_bounded
            else "value_loss = value_loss_high = value_loss_default: the loss with the default,"
            f" {self.default}, at the {counted(self.defaulted, 'decision state')} it gave no"
            " choice at (an expected reward: not bounded over every choice there)"
        )
        rest["policies"] = {
            role: {**asdict(found), "accuracy_ci": _listed(found.accuracy_ci)}
            for role, found in self.policies.items()
        }
        return {**data, **{k: v for k, v in rest.items() if k not in data}}


def llms_checked(rows: Iterable[dict[str, Any]]) -> list[str]:
    """The LLMs with self-check rows, in order of appearance."""
    return list(dict.fromkeys(str(r["llm"]) for r in rows if r.get("selection") == SAY_SELECTION))


def selfcheck_figures(
    rows: list[dict[str, Any]], oracle: OracleResult, llm: str, environment: str = ""
) -> SelfCheckFigures | None:
    """The figures of ``llm``'s self-check on ``oracle``'s model (None: it has no act rows)."""
    base = getattr(oracle, "base_hash", "") or oracle.model.content_hash
    mine = [r for r in rows if r.get("llm") == llm]
    found = stored_policies(mine, oracle).get(llm)
    if found is None:
        return None
    chain = found[0]
    acted = _acted(mine, chain, base)
    agreement = _say_do(mine, oracle, chain, acted, base)
    hashes = {role: policy_hash(base, p) for role, p in _policies(oracle, chain.policy).items()}
    by_role = {
        role: [
            r
            for r in mine
            if r.get("selection") == EXPLAIN_SELECTIONS[role]
            and r.get("model_hash") == hashes[role]
            and r.get("verdict") in SCORED
        ]
        for role in ROLES
    }
    scored = {role: _question_scores(found_rows) for role, found_rows in by_role.items()}
    policies = {role: _summary(frame) for role, frame in scored.items()}
    paired = _paired(scored)
    cases = {c.states[0] for c in CATEGORIES["best_action"].candidates(oracle)}
    act = [
        r
        for r in mine
        if _is_act(r, base) and _state(r) in cases and r.get("verdict") in (PASS, FAIL)
    ]
    act_by_state = {_state(r): r["verdict"] for r in act}
    best = (
        sum(v == PASS for v in act_by_state.values()) / len(act_by_state) if act_by_state else None
    )
    exact = chain.value_loss_exact
    bounds = loss_interval(oracle, chain.policy, chain.policy.defaulted)
    return SelfCheckFigures(
        llm=llm,
        environment=environment,
        acted=len(acted),
        value_loss=float(bounds.low),
        value_loss_exact=_exact_text(bounds.low),
        best_action_score=best,
        best_action_cases=len(act_by_state),
        say_scores=_say_scores(mine, base),
        policies=policies,
        defaulted=len(chain.policy.defaulted),
        value_loss_high=float(bounds.high),
        value_loss_high_exact=_exact_text(bounds.high),
        value_loss_bounded=bounds.bounded,
        value_loss_default=chain.value_loss,
        value_loss_default_exact=str(exact) if exact is not None else None,
        **agreement,
        **paired,
    )


def _exact_text(value: object) -> str | None:
    """An exact loss as text (a fraction), None for a float or an infinite one."""
    return str(value) if isinstance(value, Fraction) else None


def _policies(oracle: OracleResult, own: Policy) -> dict[str, Policy]:
    return {
        OWN: own,
        OPTIMAL: complete(oracle, {}, "optimal policy", OPTIMAL),
        UNIFORM: complete(oracle, {}, "uniform random policy", UNIFORM),
    }


def _state(row: dict[str, Any]) -> int | None:
    states = row.get("states") or [None]
    return states[0] if isinstance(states[0], int) else None


def _is_act(row: dict[str, Any], base: str) -> bool:
    return (
        row.get("selection") == POLICY_SELECTION
        and row.get("category") == "best_action"
        and row.get("model_hash") == base
    )


def _acted(rows: list[dict[str, Any]], chain: PolicyChain, base: str) -> set[int]:
    """The states whose act reply defined the policy's choice."""
    asked = {_state(r) for r in rows if _is_act(r, base) and r.get("verdict") != "error"}
    return {s for s in asked if s is not None and s not in set(chain.policy.defaulted)}


def _say_answers(rows: list[dict[str, Any]], base: str) -> dict[int, str | None]:
    """State -> the action its say best-action reply names (None: unreadable)."""
    found: dict[int, str | None] = {}
    for row in rows:
        if row.get("selection") != SAY_SELECTION or row.get("category") != "best_action":
            continue
        if row.get("model_hash") != base or row.get("verdict") not in SCORED:
            continue
        state = _state(row)
        answer = row.get("answer")
        action = answer.get("action") if isinstance(answer, dict) else None
        if state is not None:
            found[state] = action if isinstance(action, str) else None
    return found


def _say_do(
    rows: list[dict[str, Any]],
    oracle: OracleResult,
    chain: PolicyChain,
    acted: set[int],
    base: str,
) -> dict[str, Any]:
    said = _say_answers(rows, base)
    total = disagreeing = saying = doing = 0.0
    states = unread = 0
    for state_id in sorted(acted & set(said)):
        action = said[state_id]
        choice = chain.policy.distribution(state_id)
        if action is None or action not in oracle.state(state_id).q:
            unread += 1
            continue
        best = set(oracle.state(state_id).best)
        agree = float(choice.get(action, 0))
        states += 1
        total += agree
        disagreeing += 1.0 - agree
        saying += (1.0 - agree) * (action in best)
        doing += sum(float(p) for a, p in choice.items() if a != action and a in best)
    return {
        "states": states,
        "say_do_agreement": total / states if states else None,
        "say_do_ci": wilson(total, states) if states else None,
        "disagreement": disagreeing,
        "saying_right": saying / disagreeing if disagreeing > 1e-12 else None,
        "doing_right": doing / disagreeing if disagreeing > 1e-12 else None,
        "say_unread": unread,
    }


def _say_scores(rows: list[dict[str, Any]], base: str) -> dict[str, float | None]:
    """Pass share of each say category (graded against the oracle, as a campaign's)."""
    scores: dict[str, float | None] = {}
    for category in ("best_action", "worst_action", "ranking"):
        verdicts = [
            r["verdict"]
            for r in rows
            if r.get("selection") == SAY_SELECTION
            and r.get("category") == category
            and r.get("model_hash") == base
            and r.get("verdict") in SCORED
        ]
        scores[category] = sum(v == PASS for v in verdicts) / len(verdicts) if verdicts else None
    return scores


def _question_scores(rows: list[dict[str, Any]]) -> pd.DataFrame:
    """One row per distinct question: its pass share, its exact chance and corrected score."""
    columns = ["question", "score", "chance", "corrected"]
    if not rows:
        return pd.DataFrame(columns=columns)
    frame = pd.DataFrame(rows)
    frame["question"] = [question_identity(k) for k in frame["case_key"]]
    frame["score"] = (frame["verdict"] == PASS).astype(float)
    frame["chance"] = row_chances(frame)
    grouped = frame.groupby("question", sort=False, as_index=False).agg(
        score=("score", "mean"), chance=("chance", "mean")
    )
    usable = grouped["chance"].notna() & (grouped["chance"] < 1 - 1e-12)
    grouped["corrected"] = np.where(
        usable, (grouped["score"] - grouped["chance"]) / (1 - grouped["chance"]), np.nan
    )
    return grouped[columns]


def _summary(frame: pd.DataFrame) -> PolicyQuestions:
    corrected = frame["corrected"].dropna()
    return PolicyQuestions(
        questions=len(frame),
        accuracy=float(frame["score"].mean()) if len(frame) else None,
        corrected=float(corrected.mean()) if len(corrected) else None,
        corrected_questions=len(corrected),
        accuracy_ci=wilson(float(frame["score"].sum()), len(frame)) if len(frame) else None,
    )


def _listed(interval: tuple[float, float] | None) -> list[float] | None:
    return list(interval) if interval else None


def _paired(scored: dict[str, pd.DataFrame]) -> dict[str, Any]:
    """Tests over the questions asked about all three policies."""
    from scipy import stats
    from statsmodels.stats.contingency_tables import cochrans_q
    from statsmodels.stats.multitest import multipletests

    joined = scored[OWN][["question", "score", "corrected"]]
    for role in ROLES[1:]:
        other = scored[role][["question", "score", "corrected"]]
        joined = joined.merge(other, on="question", suffixes=("", f"_{role}"))
    joined = joined.rename(columns={"score": f"score_{OWN}", "corrected": f"corrected_{OWN}"})
    result: dict[str, Any] = {"paired_questions": len(joined), "paired_p": {}, "cochran_p": None}
    if not len(joined):
        return result
    corrected = joined[[f"corrected_{r}" for r in ROLES]].dropna()
    values = [corrected[f"corrected_{r}"].to_numpy(float) for r in ROLES]
    raw: dict[str, float] = {}
    for role, other in zip(ROLES[1:], values[1:], strict=True):
        differences = values[0] - other
        if len(differences) >= 2 and np.ptp(differences) > 1e-12:
            raw[role] = float(stats.ttest_rel(values[0], other).pvalue)
        elif len(differences) and np.all(np.abs(differences) <= 1e-12):
            raw[role] = 1.0  # the same score on every question
    if raw:
        adjusted = multipletests(list(raw.values()), method="holm")[1]
        result["paired_p"] = {r: float(p) for r, p in zip(raw, adjusted, strict=True)}
    passes = (joined[[f"score_{r}" for r in ROLES]].to_numpy(float) >= 0.5).astype(int)
    if np.any(passes != passes[:, :1]):
        result["cochran_p"] = float(cochrans_q(passes).pvalue)
    else:
        result["cochran_p"] = 1.0
    return result


def _interval_text(interval: tuple[float, float] | None) -> str:
    return f" [{interval[0]:.3g}, {interval[1]:.3g}]" if interval else ""


def _loss_text(figures: SelfCheckFigures) -> str:
    """ "0 = 0", or the interval over every choice at the states it gave no choice at, with the
    default's loss beside it."""
    low, high = figures.value_loss_interval
    states = counted(figures.defaulted, "state")
    if not figures.value_loss_bounded and figures.defaulted:
        exact = f" = {figures.value_loss_exact}" if figures.value_loss_exact else ""
        return (
            f"{number(low)}{exact} with {figures.default} at the {states} it gave no choice at (not"
            " bounded over every choice there under an expected reward)"
        )
    if figures.value_loss_exact == figures.value_loss_high_exact and low == high:
        found = number(low) + (f" = {figures.value_loss_exact}" if figures.value_loss_exact else "")
        if figures.defaulted:
            found += (
                f" (whatever it would do at the {figures.defaulted} {states} it gave no choice at)"
            )
        return found
    exact = (
        f" = [{figures.value_loss_exact}, {figures.value_loss_high_exact or number(high)}]"
        if figures.value_loss_exact
        else ""
    )
    return (
        f"[{number(low)}, {number(high)}]{exact} over every choice at the {states}"
        f" it gave no choice at ({figures.default} there: {number(figures.value_loss_default)})"
    )


def figures_table(figures: SelfCheckFigures) -> pd.DataFrame:
    """The figures as a two-column table, short rows (report section, window, terminal)."""

    def share(value: float | None) -> str:
        if value is None or (isinstance(value, float) and math.isnan(value)):
            return "n/a"
        return f"{value:.3g}"

    ci = _interval_text(figures.say_do_ci)
    own, best, uniform = (figures.policies[r] for r in ROLES)
    loss = _loss_text(figures)
    rows = [
        ("say–do agreement", f"{share(figures.say_do_agreement)}{ci}, {figures.states} states"),
        ("disagreements: saying right", share(figures.saying_right)),
        ("disagreements: doing right", share(figures.doing_right)),
        (
            "accuracy: own policy",
            f"{share(own.accuracy)}{_interval_text(own.accuracy_ci)} ({own.questions} questions)",
        ),
        ("accuracy: optimal policy", f"{share(best.accuracy)} ({best.questions})"),
        ("accuracy: uniform policy", f"{share(uniform.accuracy)} ({uniform.questions})"),
        (
            "corrected: own / optimal / uniform",
            " / ".join(share(p.corrected) for p in (own, best, uniform)),
        ),
        ("paired questions (all three)", str(figures.paired_questions)),
        ("own vs optimal p (corrected, Holm)", share(figures.paired_p.get(OPTIMAL))),
        ("own vs uniform p (corrected, Holm)", share(figures.paired_p.get(UNIFORM))),
        ("Cochran's Q p (pass/fail)", share(figures.cochran_p)),
        ("value loss of its policy", loss),
        (
            "best-action score (acting)",
            f"{share(figures.best_action_score)} ({figures.best_action_cases} cases)",
        ),
    ]
    return pd.DataFrame(rows, columns=["figure", figures.llm])
