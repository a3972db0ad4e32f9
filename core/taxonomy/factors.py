"""Why? (explanation query): the best action and the three factors that most influence it.

The truth comes from exact interventions (``core/factors``, attached by ``with_facts`` when a
campaign asks for ``factors`` by id), graded under the seed study's two criteria apart.
**Necessity**: how far the factual best action falls behind when the factor is changed (necessary
iff it is no longer optimal; a new tie is not necessary). **Sufficiency**: the factual best
action's lead when only the factor is kept (every other model factor neutral; sufficient iff still
optimal), scored as seed 002's PS: 1 if only factual best actions stay optimal, j/k for a tie of k
optimal actions of which j are factual (a tie is never simply "sufficient"). The prompt says that
influence means the first, on one scale for every factor: how far the chosen action would fall
behind if the factor were different (``INFLUENCE``). Grading (docs/method.md, "Why-questions
(factors)"): the action part as best_action; the factor part passes iff no uncited factor
outranks a cited one and the cited order is non-increasing, both on that scale, the graded
necessity, across model and state factors alike (a state factor's number is the furthest its
alternatives leave the action behind: the change that matters most). The order asked for is the
order graded. The same checks under sufficiency (PS, on one scale too), precision against the
necessary and the sufficient sets, and Spearman's ρ against each score (over the cited factors,
and per kind) are reported beside it (``factor_metrics``). δ = 1 − the smallest non-zero gap of
graded necessity between neighbours among the four most influential factors (a near tie across
the cut is hard to get right).
"""

from __future__ import annotations

import itertools
import json
import math
import random
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from explaincheck.core.factors.attach import attach_factors
from explaincheck.core.factors.types import (
    MODEL,
    STATE,
    FactorTruth,
    StateFactors,
    factor_truth,
    with_factors,
)
from explaincheck.core.oracle.types import OracleRequest, OracleResult
from explaincheck.core.taxonomy.answers import AnswerForm
from explaincheck.core.taxonomy.base import (
    EXPLANATION,
    FAIL,
    PASS,
    Candidate,
    Category,
    Grade,
    GradingSettings,
    RequestOffer,
    TestCase,
)
from explaincheck.core.taxonomy.factor_offer import factors_offer
from explaincheck.core.taxonomy.factor_probes import TRIALS, probes
from explaincheck.core.taxonomy.kinds import number
from explaincheck.core.taxonomy.parsing import Parsed, find_value, read_choice, read_ranking
from explaincheck.core.taxonomy.sampling import delta

if TYPE_CHECKING:
    from explaincheck.core.environments.types import Environment
    from explaincheck.core.oracle.flawed import Flaw
    from explaincheck.core.taxonomy.probes import Probe

CITED = 3  # factors an answer cites
# What "influence" means, in every wording of the question (graded under necessity).
INFLUENCE = (
    "A factor influences the choice as much as the chosen action would lose if that factor "
    "were different (the factor removed, or that part of the state changed): most influential "
    "is the factor whose change would leave the chosen action furthest behind the best "
    "alternative."
)
FACTORS = "factors"
TOLERANCE = 1e-9  # strengths closer than this are tied (they come from exact fractions)


@dataclass(frozen=True)
class FactorsForm(AnswerForm):
    """``{"action": one action, "factors": three different factor ids, most influential
    first}``: one form, two keys, read by ``read_reply``."""

    factor_ids: tuple[str, ...] = ()

    def schema(self) -> dict[str, Any]:
        return {
            "type": "object",
            "properties": {
                "action": {"type": "string", "enum": list(self.options)},
                FACTORS: {
                    "type": "array",
                    "items": {"type": "string", "enum": list(self.factor_ids)},
                    "minItems": CITED,
                    "maxItems": CITED,
                    "uniqueItems": True,
                },
            },
            "required": ["action", FACTORS],
            "additionalProperties": False,
        }

    def shape(self) -> str:
        return (
            '{"action": "<one of: ' + ", ".join(self.options) + '>", "factors": '
            '["<most influential factor>", "<second>", "<third>"]}'
        )

    def random(self, rng: random.Random) -> Any:
        return {"action": rng.choice(self.options), FACTORS: rng.sample(self.factor_ids, CITED)}

    def reply(self, value: Any) -> str:
        return json.dumps(value)

    def read_reply(self, text: Any) -> Parsed:
        """Both keys of the reply, canonical; a missing or unreadable part makes it invalid."""
        raw_action, reason = find_value(text, "action")
        if reason:
            return Parsed(reason=reason)
        action = read_choice(raw_action, self.options)
        if not action.ok:
            return action
        raw_factors, reason = find_value(text, FACTORS)
        if reason:
            return Parsed(reason=reason)
        cited = read_ranking(raw_factors, self.factor_ids)
        if not cited.ok:
            return Parsed(reason=cited.reason.replace("actions", "factors"))
        return Parsed(value={"action": action.value, FACTORS: cited.value})


NECESSITY, SUFFICIENCY = "necessity", "sufficiency"
CRITERIA = (NECESSITY, SUFFICIENCY)
MEMBERS = {NECESSITY: "necessary", SUFFICIENCY: "sufficient"}  # the expected key of each set
PS = "ps"  # seed 002's sufficiency score per factor (``FactorEffect.ps``), in the expected dict
KINDS = (MODEL, STATE)  # factor kinds, for Spearman's ρ per kind


def influence_of(expected: dict[str, Any], criterion: str = NECESSITY) -> dict[str, float]:
    """Each factor's graded score under ``criterion``, from the stored truth: necessity = how far
    the factual best action falls behind when the factor is changed (> 0 iff necessary);
    sufficiency = the factual best action's lead when only the factor is kept (>= 0 iff
    sufficient). Truth stored before the two were graded apart (no "necessity" key) falls back
    to its one mixed score (10 for a necessary factor plus its strength)."""
    if criterion == SUFFICIENCY and PS in expected:
        return {f: float(v) for f, v in expected[PS].items()}
    if criterion in expected:
        return {f: float(v) for f, v in expected[criterion].items()}
    if criterion == SUFFICIENCY:
        sufficient = set(expected.get("sufficient") or [])
        return {f: 1.0 if f in sufficient else 0.0 for f in expected["strength"]}
    necessary = set(expected["necessary"])
    return {f: (10.0 if f in necessary else 0.0) + s for f, s in expected["strength"].items()}


def kinds_of(expected: dict[str, Any]) -> dict[str, str]:
    """Each factor's kind (model or state); one kind for all in truth stored without kinds."""
    return dict(expected.get("kind") or {})


def order_faults(cited: list[str], influence: dict[str, float]) -> tuple[bool, bool]:
    """(an uncited factor outranks a cited one, the cited order puts a strictly less
    influential factor before a more influential one): the factor part passes iff neither.
    Every factor is compared by its graded score, model and state factors alike: the prompt
    defines influence on one scale (``INFLUENCE``: how far the chosen action would fall behind
    if the factor were different), so the order graded is the order asked for. Scores within
    ``TOLERANCE`` tie and may be cited either way."""

    def above(a: str, b: str) -> bool:
        """Whether ``a`` is strictly more influential than ``b``."""
        return influence[a] > influence[b] + TOLERANCE

    known = [f for f in cited if f in influence]
    outranked = any(above(u, c) for u in influence if u not in cited for c in known)
    inverted = any(
        above(known[j], known[i]) for i in range(len(known)) for j in range(i + 1, len(known))
    )
    return outranked, inverted


def factor_part_chance(expected: dict[str, Any]) -> float:
    """Probability that a uniform ordered 3-subset of the factors (what the random answerer
    cites) passes the factor part (graded under necessity): the passing triples, counted by
    enumeration, over n(n−1)(n−2). Exact; n is the number of factors (a few to a few dozen)."""
    influence = influence_of(expected)
    ids = list(influence)
    if len(ids) < CITED:
        return 0.0
    passing = sum(
        1
        for cited in itertools.permutations(ids, CITED)
        if not any(order_faults(list(cited), influence))
    )
    return passing / math.perm(len(ids), CITED)


def factor_metrics(cited: list[str], expected: dict[str, Any]) -> dict[str, Any]:
    """The seed study's metrics of one answer, under necessity and under sufficiency apart:
    precision of the cited set against the necessary (sufficient) set, Spearman's ρ between the
    cited order and the graded scores (``spearman``: over every cited factor, the one scale the
    verdict grades; ``spearman_model``, ``spearman_state``: within each kind; None when
    undefined: fewer than two such cited factors, or they tie), whether an uncited factor
    outranks a cited one, and whether the factor part passes under that criterion. The keys
    without a ``_sufficiency`` suffix are necessity's (the verdict's criterion)."""
    kinds = kinds_of(expected)
    found: dict[str, Any] = {}
    for criterion, members in MEMBERS.items():
        chosen = set(expected.get(members) or [])
        influence = influence_of(expected, criterion)
        known = [f for f in cited if f in influence]
        outranked, inverted = order_faults(known, influence)
        suffix = "" if criterion == NECESSITY else "_sufficiency"
        found[f"precision{suffix}"] = len(chosen & set(known)) / CITED
        found[f"best_precision{suffix}"] = min(CITED, len(chosen)) / CITED
        found[f"spearman{suffix}"] = _rho([influence[f] for f in known])
        for kind in KINDS:
            mine = [f for f in known if kinds.get(f, "model") == kind]
            found[f"spearman_{kind}{suffix}"] = _rho([influence[f] for f in mine])
        found[f"uncited_outranks{suffix}"] = outranked
        found[f"inverted{suffix}"] = inverted
        found[f"passes{suffix}"] = not (outranked or inverted)
    return found


def _rhos(metrics: dict[str, Any], suffix: str) -> str:
    """ρ in words: over the cited factors, then per kind: "0.87 (model 1.00, state n/a)"."""
    shown = (metrics[f"spearman_{kind}{suffix}"] for kind in KINDS)
    kinds = ", ".join(f"{kind} {_rho_text(r)}" for kind, r in zip(KINDS, shown, strict=True))
    return f"{_rho_text(metrics[f'spearman{suffix}'])} ({kinds})"


def _rho_text(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.2f}"


def _rho(values: list[float]) -> float | None:
    """Spearman's ρ between a cited order (first = most influential) and its scores."""
    from scipy.stats import spearmanr

    if len(values) < 2 or max(values) - min(values) <= TOLERANCE:
        return None
    rho = float(spearmanr(list(range(len(values), 0, -1)), values).statistic)
    return None if math.isnan(rho) else rho


class Factors(Category):
    id = "factors"
    dimension = EXPLANATION
    title = "Why? (factors)"
    label = "Why"
    name = "why (factors)"
    by_id_only = True  # the truth costs a model check per intervention
    follow_up_words = "behavioural check"  # the decision asked again on each intervened model
    follow_up_help = (
        "the decision question again on every intervened model, one extra question per factor"
        " per case, storing whether the decision changes"
    )
    follow_up_trials = TRIALS
    extra_facts = "the factor interventions"  # model checked in the isolated child, cached
    panel = "factors"  # the GUI's factor panel

    def with_facts(
        self, oracle: OracleResult, environment: Environment, request: OracleRequest
    ) -> OracleResult:
        """The exact interventions of the environment's factors (or the cached ones), once;
        none under a property other than Pmax [F goal] (``not_applicable`` says why)."""
        if not oracle.prop.reaches_goal:
            return oracle
        return attach_factors(oracle, environment, request)

    def seen_through(self, picture: OracleResult, truth: OracleResult, flaw: Flaw) -> OracleResult:
        """The same interventions seen through the flaw (``core/factors/flawed.py``), so the
        flawed explainer's citations come from its picture too, not from the true truth."""
        # deferred: factors.flawed loads scipy and rustworkx, and the registry imports this
        # module for every command
        from explaincheck.core.factors.flawed import flawed_factor_truth

        found = factor_truth(truth)
        if found is None:
            return picture
        return with_factors(picture, flawed_factor_truth(found, truth, picture, flaw))

    def chance(self, schema: dict[str, Any], expected: dict[str, Any]) -> float | None:
        """|A* ∩ enum| / |enum| times the share of ordered 3-subsets that pass the factor part
        (``factor_part_chance``): the action and the citations are drawn independently. None
        for an expected answer of another form."""
        if not {"action", FACTORS, "strength", "necessary"} <= set(expected):
            return None
        options = schema.get("properties", {}).get("action", {}).get("enum")
        if not options:
            return math.nan
        action = len(set(map(str, expected["action"])) & set(map(str, options))) / len(options)
        return action * factor_part_chance(expected)

    def follow_up(
        self,
        case: TestCase,
        oracle: OracleResult,
        environment: Environment,
        request: OracleRequest,
    ) -> list[Probe]:
        """The behavioural check's probes (``factor_probes.probes``)."""
        return probes(case, oracle, environment, request)

    def answer_words(self, right: Any, expected: dict[str, Any]) -> str:
        if isinstance(right, dict):
            return f"{right.get('action')}, because of {', '.join(right.get('factors') or [])}"
        return super().answer_words(right, expected)

    def truth(self, oracle: OracleResult) -> FactorTruth:
        found = factor_truth(oracle)
        if found is None:
            raise ValueError("the factor truth was not computed for this oracle")
        return found

    def on_request(self, oracle: OracleResult) -> bool:
        return oracle.prop.reaches_goal and factor_truth(oracle) is None

    def offer(self, environment: Environment, oracle: OracleResult) -> RequestOffer | None:
        """Its cost in extra model checks (``factor_offer``), when the model has enough factors."""
        if not oracle.prop.reaches_goal:
            return None
        return factors_offer(environment, oracle)

    def not_applicable(self, oracle: OracleResult) -> str | None:
        if not oracle.prop.reaches_goal:
            return (
                "why-questions are graded by the interventions' effect on Pmax [F goal]; the"
                f" factor truth of {oracle.prop.text} is not computed"
            )
        found = factor_truth(oracle)
        if found is None:
            return "the factor interventions are computed only when factors is asked for by id"
        if len(found.factors) < CITED + 1:
            return f"fewer than {CITED + 1} factors (an answer cites {CITED})"
        if not found.states:
            return "no state where every factor's effect is defined"
        return None

    def candidates(self, oracle: OracleResult, seed: int = 0) -> list[Candidate]:
        found = factor_truth(oracle)
        if found is None or len(found.factors) <= CITED:
            return []
        return [
            Candidate(self.id, (state_id,), delta(self.state_delta(found.states[state_id])))
            for state_id in sorted(found.states)
        ]

    def state_delta(self, truth: StateFactors) -> float:
        order = truth.influence_order()[: CITED + 1]
        scores = [truth.effect(f).necessity for f in order]
        gaps = [abs(a - b) for a, b in itertools.pairwise(scores) if abs(a - b) > TOLERANCE]
        return 1.0 - min(1.0, min(gaps)) if gaps else 0.0

    def question(self, case: TestCase, oracle: OracleResult) -> str:
        listed = self._listed(oracle)
        return (
            "In this state the agent should act as well as possible, i.e. maximise the "
            "probability of eventually reaching the goal. Which available action is best, and "
            f"which three of these factors most influence that choice, most influential first?\n"
            f"{INFLUENCE}\nFactors:\n{listed}"
        )

    def rephrasings(self, case: TestCase, oracle: OracleResult) -> tuple[str, ...]:
        listed = self._listed(oracle)
        return (
            "Suppose the agent acts as well as possible from here on, i.e. it maximises the "
            "probability of eventually reaching the goal. Which available action should it take "
            "now, and which three of the factors below influence that choice most, the most "
            f"influential one first?\n{INFLUENCE}\nFactors:\n{listed}",
            "Name the available action that gives the highest probability of eventually "
            "reaching the goal (acting as well as possible afterwards), and rank the three "
            "factors below that matter most for choosing it, from most to least influential."
            f"\n{INFLUENCE}\nFactors:\n{listed}",
        )

    def _listed(self, oracle: OracleResult) -> str:
        return "\n".join(f"- {f.id}: {f.words}" for f in self.truth(oracle).factors)

    def answer_form(self, case: TestCase, oracle: OracleResult) -> FactorsForm:
        ids = tuple(f.id for f in self.truth(oracle).factors)
        return FactorsForm("action", FACTORS, oracle.state(case.states[0]).actions, ids)

    def expected(self, case: TestCase, oracle: OracleResult) -> dict[str, Any]:
        state = oracle.state(case.states[0])
        truth = self.truth(oracle).states[state.id]
        return {
            "action": list(state.best),
            FACTORS: list(truth.influence_order()[:CITED]),
            "necessary": [e.factor for e in truth.effects if e.necessary],
            "sufficient": [e.factor for e in truth.effects if e.sufficient],
            NECESSITY: {e.factor: e.necessity for e in truth.effects},
            SUFFICIENCY: {e.factor: e.sufficiency for e in truth.effects},
            PS: {e.factor: e.ps for e in truth.effects},
            "unreachable": self.truth(oracle).unreachable,
            "kind": {f.id: f.kind for f in self.truth(oracle).factors},
            "changes_best": [e.factor for e in truth.effects if e.changes_best],
            "strength": {e.factor: e.strength for e in truth.effects},
            "best_after": {e.factor: list(e.best_after) for e in truth.effects},
        }

    def oracle_answer(self, case: TestCase, oracle: OracleResult) -> dict[str, Any]:
        state = oracle.state(case.states[0])
        order = self.truth(oracle).states[state.id].influence_order()
        return {"action": state.best[0], FACTORS: list(order[:CITED])}

    def judge(
        self, answer: Any, case: TestCase, oracle: OracleResult, settings: GradingSettings
    ) -> Grade:
        expected = self.expected(case, oracle)
        action, cited = answer["action"], list(answer[FACTORS])
        problems = []
        if action not in expected["action"]:
            problems.append(f"action {action} is not in A* {{{', '.join(expected['action'])}}}")
        metrics = factor_metrics(cited, expected)
        if len(cited) != CITED or len(set(cited)) != CITED:
            problems.append(f"cited {len(set(cited))} different factors, not {CITED}")
        else:
            if metrics["uncited_outranks"]:
                problems.append("an uncited factor outranks a cited one (under necessity)")
            if metrics["inverted"]:
                problems.append("the cited order is not by influence (necessity)")
        order = "graded by necessity on one scale, model and state factors alike"
        scores = ", ".join(
            f"{f}={number(s)}{'*' if f in expected['necessary'] else ''}"
            for f, s in influence_of(expected).items()
        )
        sufficiency = "passes" if metrics["passes_sufficiency"] else "fails"
        reason = (
            f"answered {action}, cited {', '.join(cited)}; "
            + ("; ".join(problems) if problems else "right action, a top-3 in order")
            + f" ({order}; * = necessary: {scores}; precision {metrics['precision']:.2f}"
            + f", ρ {_rhos(metrics, '')}; under sufficiency the order {sufficiency}"
            + f", ρ {_rhos(metrics, '_sufficiency')})"
        )
        verdict = FAIL if problems else PASS
        return Grade(verdict, reason, {"action": action, FACTORS: cited}, expected)
