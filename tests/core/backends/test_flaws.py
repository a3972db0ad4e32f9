"""Reference explainers with known flaws: hand-checked pictures on tiny models, the replies, the
registry specs, and every category answered by every flawed explainer without an invalid reply."""

from __future__ import annotations

import asyncio
import json
from fractions import Fraction
from pathlib import Path

import pytest

from explaincheck.core.backends.flaw_backend import FlawedBackend
from explaincheck.core.backends.noisy_backend import NoisyBackend
from explaincheck.core.backends.random_backend import RandomBackend
from explaincheck.core.backends.registry import BackendContext, create_backend, parse_spec
from explaincheck.core.environments.registry import resolve
from explaincheck.core.errors import ExplaincheckError
from explaincheck.core.oracle import OracleRequest, compute_in_process, compute_oracle
from explaincheck.core.oracle.flawed import (
    DANGER_BLIND,
    DETERMINISED,
    DISTANCE,
    Flaw,
    flawed_oracle,
    myopic_in_process,
    parse_flaw,
    request_of,
)
from explaincheck.core.taxonomy.base import FAIL, INVALID, PASS, TestCase
from explaincheck.core.taxonomy.grading import grade_reply
from explaincheck.core.taxonomy.prompts import render_prompt
from explaincheck.core.taxonomy.registry import CATEGORIES
from explaincheck.core.taxonomy.selection import select_cases

MODELS = Path(__file__).resolve().parents[2] / "models"
FLAW_SPECS = (
    "flaw:myopic:1",
    "flaw:myopic:2",
    "flaw:determinised",
    "flaw:distance",
    "flaw:danger-blind",
)


def truth(name: str):
    return compute_in_process(OracleRequest(str(MODELS / f"{name}.prism")))


def at(result, s: int):
    """The state of ``result`` whose variable s has value ``s``."""
    (found,) = [state for state in result.states if state.valuation["s"] == s]
    return found


def exact(text) -> Fraction:
    return Fraction(text)


def case(category: str, *states: int) -> TestCase:
    return TestCase(category, states, 0.5, "prioritized", 0)


def test_myopic_one_step_on_a_two_step_chain():
    real = truth("two_step")
    picture = myopic_in_process(request_of(real), 1, real)
    start, half = at(picture, 0), at(picture, 1)
    assert exact(start.value_exact) == Fraction(3, 10)  # only [jump] reaches the goal in 1 step
    assert exact(half.value_exact) == Fraction(4, 5)
    assert {a: exact(v) for a, v in start.q_exact.items()} == {"go": 0, "jump": Fraction(3, 10)}
    assert start.best == ("jump",) and start.worst == ("go",)
    assert exact(start.danger_exact) == Fraction(1, 2)  # Pmin[F<=1 pit] (truly 3/5)
    assert at(real, 0).best == ("go",) and exact(at(real, 0).value_exact) == Fraction(2, 5)
    # two steps see the whole chain: the picture is the truth
    deep = myopic_in_process(request_of(real), 2, real)
    assert exact(at(deep, 0).value_exact) == Fraction(2, 5) and at(deep, 0).best == ("go",)
    backend = FlawedBackend(real, Flaw("myopic", 1))
    backend._picture = picture  # the child-process path is tested below
    reply = json.loads(backend.reply_text(case("best_action", at(real, 0).id)))
    assert reply["action"] == "jump"
    assert reply["reason"] == "plans 1 step ahead: Q: go = 0, jump = 0.3"
    assert grade_reply(case("best_action", at(real, 0).id), json.dumps(reply), real).verdict == FAIL


def test_myopic_in_the_isolated_child_equals_in_process_and_is_cached(tmp_path, monkeypatch):
    monkeypatch.setenv("EXPLAINCHECK_CACHE", str(tmp_path))
    real = truth("two_step")
    isolated = flawed_oracle(real, Flaw("myopic", 1), use_cache=True)
    local = myopic_in_process(request_of(real), 1, real)
    assert [s.value_exact for s in isolated.states] == [s.value_exact for s in local.states]
    assert [s.q_exact for s in isolated.states] == [s.q_exact for s in local.states]
    assert list((tmp_path / "oracle").glob("*.json"))  # stored for the next run


def test_determinised_takes_the_most_likely_outcome_not_the_safest():
    real = truth("likely_not_safe")
    picture = flawed_oracle(real, Flaw(DETERMINISED))
    start, waiting = at(picture, 0), at(picture, 4)
    assert {a: exact(v) for a, v in start.q_exact.items()} == {"bold": 1, "careful": 0}
    assert start.best == ("bold",) and start.worst == ("careful",)
    assert waiting.value == 0.0 and waiting.dead_end  # waits for ever in that picture
    assert not at(real, 4).dead_end and at(real, 0).best == ("careful",)
    assert exact(start.danger_exact) == 0  # careful -> wait -> wait ... never falls
    assert at(picture, 3).danger == 1.0 and at(picture, 1).value == 1.0
    assert start.successors == {"bold": {at(real, 1).id: 1}, "careful": {at(real, 4).id: 1}}
    backend = FlawedBackend(real, Flaw(DETERMINISED))
    best = case("best_action", at(real, 0).id)
    assert grade_reply(best, backend.reply_text(best), real).verdict == FAIL
    satisfy = case("satisfy", at(real, 4).id)
    assert json.loads(backend.reply_text(satisfy))["probability"] == 0.0


def test_determinised_keeps_equally_likely_outcomes_with_equal_weight():
    real = truth("even_odds")
    assert exact(at(real, 0).value_exact) == Fraction(9, 11)
    assert exact(at(real, 0).danger_exact) == Fraction(2, 11)
    picture = flawed_oracle(real, Flaw(DETERMINISED))
    start, halfway = at(picture, 0), at(picture, 2)
    assert {a: exact(v) for a, v in start.q_exact.items()} == {
        "slide": Fraction(2, 3),
        "step": 1,
    }
    assert exact(start.value_exact) == 1 and exact(halfway.value_exact) == 1
    assert exact(start.danger_exact) == 0
    assert sorted(start.successors["slide"].values()) == pytest.approx([1 / 3] * 3)
    assert start.successors["step"] == {halfway.id: 1.0}
    assert sorted(halfway.successors["go"].values()) == [0.5, 0.5]


def test_determinised_frozen_lake_is_not_all_dead_ends():
    """Frozen Lake's moves split 1/3-1/3-1/3: keeping only the lowest state id made 15 of 16
    states dead ends in the picture. With every most likely outcome kept, V > 0 wherever the
    true V is (12 states: all but the four holes), and the exact picture agrees with the float
    method to 1e-12."""
    from dataclasses import replace

    from explaincheck.core.oracle.flawed import determinised_picture
    from explaincheck.core.oracle.types import VERIFIED

    real = compute_oracle(resolve("frozen_lake").request())
    picture = flawed_oracle(real, Flaw(DETERMINISED))
    alive = [s.id for s in picture.states if s.value > 0]
    assert len(alive) == 12 and len([s for s in alive if not picture.state(s).is_goal]) == 11
    assert alive == [s.id for s in real.states if s.value > 0]
    floats = determinised_picture(replace(real, method=VERIFIED, tie_tolerance=1e-9))
    assert (
        max(abs(a.value - b.value) for a, b in zip(picture.states, floats.states, strict=True))
        < 1e-12
    )
    assert [s.best for s in picture.states] == [s.best for s in floats.states]


def test_distance_prefers_the_short_risky_path():
    real = truth("shortcut")
    picture = flawed_oracle(real, Flaw(DISTANCE))
    start = at(picture, 0)
    assert exact(start.value_exact) == Fraction(1, 2)  # one move from the goal
    assert exact(at(picture, 1).value_exact) == Fraction(1, 3)
    assert exact(at(picture, 2).value_exact) == Fraction(1, 2)
    assert {a: exact(v) for a, v in start.q_exact.items()} == {"short": 1, "long": Fraction(1, 3)}
    assert start.best == ("short",) and at(real, 0).best == ("long",)
    assert exact(start.danger_exact) == Fraction(1, 2)  # one move from the pit
    assert exact(at(picture, 1).danger_exact) == 0  # the pit cannot be reached from s=1
    assert at(picture, 4).dead_end and not at(picture, 1).dead_end
    ranking = case("ranking", at(real, 0).id)
    reply = FlawedBackend(real, Flaw(DISTANCE)).reply_text(ranking)
    assert json.loads(reply)["ranking"] == ["short", "long"]
    assert grade_reply(ranking, reply, real).verdict == FAIL


def test_danger_blind_keeps_values_and_takes_danger_as_one_minus_v():
    real = truth("chain")
    picture = flawed_oracle(real, Flaw(DANGER_BLIND))
    for mine, true in zip(picture.states, real.states, strict=True):
        assert mine.value_exact == true.value_exact and mine.best == true.best
        assert exact(mine.danger_exact) == 1 - exact(true.value_exact)
        assert mine.bottleneck == true.bottleneck and mine.dead_end == true.dead_end


def test_pictures_keep_true_bottlenecks_where_the_graph_is_true_and_lose_them_when_blind():
    real = truth("chain")  # bottlenecks s=3 and s=4
    assert {at(real, s).bottleneck for s in (3, 4)} == {True}
    for flaw in (Flaw(DISTANCE), Flaw(DANGER_BLIND)):
        assert flawed_oracle(real, flaw).bottlenecks == real.bottlenecks
    # two steps ahead the goal (4 moves away) is invisible from the start: no bottleneck at all
    blind = myopic_in_process(request_of(real), 2, real)
    assert blind.initial.value == 0.0 and blind.bottlenecks == ()


def test_specs_and_errors():
    assert parse_flaw("myopic:3") == Flaw("myopic", 3)
    assert parse_flaw("danger-blind").spec == "flaw:danger-blind"
    assert Flaw("myopic", 3).spec == "flaw:myopic:3"
    for bad, message in (
        ("flaw:myopic:0", "horizon K >= 1"),
        ("flaw:myopic", "horizon K >= 1"),
        ("flaw:clever", "unknown flaw"),
        ("flaw:distance:2", "unknown flaw"),
        ("flaw:", "needs a flaw"),
        ("noisy:1.5", "Q must be a number from 0 to 1"),
        ("noisy:x", "Q must be a number from 0 to 1"),
        ("noisy:", "needs a share Q"),
    ):
        with pytest.raises(ExplaincheckError, match=message):
            parse_spec(bad)
    real = truth("chain")
    ctx = BackendContext(oracle=real)
    backend = create_backend("flaw:distance", ctx)
    assert isinstance(backend, FlawedBackend) and backend.spec == "flaw:distance"
    noisy = create_backend("noisy:0.25", ctx)
    assert isinstance(noisy, NoisyBackend) and noisy.share == 0.25
    with pytest.raises(ExplaincheckError, match="needs the oracle"):
        create_backend("flaw:distance", BackendContext())


def test_noisy_is_the_oracle_or_the_random_answerer_and_monotone_in_q():
    real = truth("chain")
    cases = [
        c
        for cid in CATEGORIES
        for selection in ("prioritized", "random")
        for c in select_cases(real, cid, 20, selection)
    ]
    guess = RandomBackend(real, None, 0)
    right = {c.key: NoisyBackend(real, 1.0).reply_text(c) for c in cases}
    assert all(grade_reply(c, right[c.key], real).verdict == PASS for c in cases)
    for c in cases:
        zero = json.loads(NoisyBackend(real, 0.0).reply_text(c))
        assert zero.pop("reason") == "a uniform random guess (Q = 0)"
        assert zero == json.loads(guess.reply_text(c))
    knows = {q: {c.key for c in cases if NoisyBackend(real, q).knows(c)} for q in (0.25, 0.5, 0.75)}
    assert knows[0.25] <= knows[0.5] <= knows[0.75] and knows[0.25] != knows[0.75]
    other_repeat = {c.key for c in cases if NoisyBackend(real, 0.5).knows(c, repeat=1)}
    assert other_repeat != knows[0.5]


@pytest.fixture(scope="module")
def frozen_lake():
    from explaincheck.core.factors.attach import attach_factors
    from explaincheck.core.policy.attach import attach
    from explaincheck.core.policy.loading import policy_from_callable

    environment = resolve("frozen_lake")
    request = environment.request()
    # With the factor truth attached, as a campaign that asks for factors has it, and a policy,
    # as a campaign with --policy has it (the policy categories need one).
    oracle = attach_factors(compute_oracle(request), environment, request)
    rule = lambda v: "left:0.5,down:0.5" if v["r"] < 2 else None  # noqa: E731
    return environment, attach(oracle, policy_from_callable(rule, oracle, default="optimal"))


@pytest.mark.parametrize("spec", [*FLAW_SPECS, "noisy:0.5"])
def test_every_category_accepts_every_reference_explainer(spec, frozen_lake):
    environment, real = frozen_lake
    backend = create_backend(spec, BackendContext(oracle=real, environment=environment))
    verdicts = []
    for category_id in CATEGORIES:
        cases = [
            c
            for selection in ("prioritized", "random")
            for c in select_cases(real, category_id, 6, selection)
        ]
        assert cases, f"{category_id} has no case on frozen_lake"
        for c in cases:
            prompt = render_prompt(c, real, environment)
            reply = asyncio.run(backend.answer(prompt, c))
            grade = grade_reply(c, reply.text, real)
            assert grade.verdict in (PASS, FAIL), (category_id, reply.text, grade.reason)
            assert grade.verdict != INVALID
            assert json.loads(reply.text)["reason"]
            verdicts.append(grade.verdict)
    assert FAIL in verdicts  # each of them is wrong somewhere


def test_noisy_draws_a_fresh_coin_for_each_repeat_through_the_runner_entry():
    import asyncio

    from explaincheck.core.backends.noisy_backend import NoisyBackend
    from explaincheck.core.environments.registry import load_builtin
    from explaincheck.core.oracle import compute_oracle
    from explaincheck.core.taxonomy.selection import select_cases

    env = load_builtin("frozen_lake")
    oracle = compute_oracle(env.request())
    backend = NoisyBackend(oracle, 0.5, env)
    case = select_cases(oracle, "best_action", 1)[0]
    reasons = {
        asyncio.run(backend.answer_repeat(None, case, repeat)).text.count("oracle")
        for repeat in range(20)
    }
    assert reasons == {0, 1}  # some repeats get the oracle's answer, some a guess
