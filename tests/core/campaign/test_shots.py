"""Few-shot repair (``run --shots K --shots-from split.json``) on the ladder: the shot rule
(same category, disjoint neighbourhoods, nearest δ, graded pass, nested in K), the prompt that
records the shots (so the execution keys and the reply cache see them), and the ``learner``
reference explainer, whose held-out score is derived here from the rule and the oracle alone
and must equal what the run stores; the gate calls its gain "better", and ``random`` with shots
"no change"."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from explaincheck.core.analysis.compare import compare_campaigns
from explaincheck.core.analysis.repair_report import BETTER, NO_CHANGE, judge
from explaincheck.core.analysis.split_cases import keep_part
from explaincheck.core.backends.oracle_backend import OracleBackend
from explaincheck.core.campaign.plan import Campaign, load_environment, oracle_for, plan_campaign
from explaincheck.core.campaign.shots import shot_settings, unique_questions
from explaincheck.core.campaign.split_file import read_split
from explaincheck.core.cli.main import main
from explaincheck.core.errors import ExplaincheckError
from explaincheck.core.store import results_frame
from explaincheck.core.taxonomy.base import PASS
from explaincheck.core.taxonomy.grading import grade_reply

LADDER = str(Path(__file__).parents[2] / "models" / "ladder.prism")
CATEGORIES = "best_action,worst_action,ranking,satisfy"
RUN = ["run", "--env", LADDER, "--categories", CATEGORIES]


@pytest.fixture(scope="module")
def ladder(tmp_path_factory):
    """The ladder's campaign (random), its split, and learner + random runs at K = 0, 1, 3."""
    root = tmp_path_factory.mktemp("shots")
    assert main([*RUN, "--llm", "random", "--budget", "20", "--db", str(root / "base.sqlite")]) == 0
    assert (
        main(["split", "--db", str(root / "base.sqlite"), "--out", str(root / "split.json")]) == 0
    )
    for k in (0, 1, 3):
        args = [*RUN, "--llm", "learner", "--llm", "random", "--shots", str(k)]
        assert (
            main(
                [
                    *args,
                    "--shots-from",
                    str(root / "split.json"),
                    "--db",
                    str(root / f"k{k}.sqlite"),
                ]
            )
            == 0
        )
    return root


def campaign(root: Path, k: int, **options) -> Campaign:
    shots = shot_settings(k, str(root / "split.json"), options.pop("part", "held_out"), False)
    return Campaign(LADDER, ("learner",), categories=tuple(CATEGORIES.split(",")), shots=shots)


def test_the_shots_follow_the_rule_and_grow_by_prefix(ladder):
    split = read_split(ladder / "split.json")
    plan = plan_campaign(campaign(ladder, 3))
    held = {c.case_key for c in split.held_out}
    assert plan.executions and all(e.case.key in held for e in plan.executions)
    shorter = {e.case.key: e.prompt.shots for e in plan_campaign(campaign(ladder, 1)).executions}
    train = {c.case_key: c for c in split.train}
    entry = {c.case_key: c for c in (*split.train, *split.held_out)}
    for execution in plan.executions:
        shots, case = execution.prompt.shots, execution.case
        assert len(shots) == 3
        assert shorter[case.key] == shots[:1]  # the list for K = 1 starts the list for K = 3
        near = set(entry[case.key].neighbourhood)
        for shot in shots:
            assert shot.category == case.category and shot.case_key in train
            assert not near & set(train[shot.case_key].neighbourhood)
            assert (
                grade_reply(train[shot.case_key].test_case(), shot.reply, plan.oracle).verdict
                == PASS
            )
            assert shot.reply in execution.prompt.text  # the prompt records the shot
        # nearest δ first, and no closer training case of the category was passed over
        gaps = [abs(train[s.case_key].delta - case.delta) for s in shots]
        assert gaps == sorted(gaps)
        rest = [
            c
            for c in unique_questions(split.train)
            if c.category == case.category
            and not near & set(c.neighbourhood)
            and c.case_key not in {s.case_key for s in shots}
        ]
        assert all(abs(c.delta - case.delta) >= gaps[-1] for c in rest)


def test_shots_make_other_prompts_other_keys_and_a_rerun_asks_nothing(ladder, capsys):
    plain = plan_campaign(campaign(ladder, 0))
    shot = plan_campaign(campaign(ladder, 3))
    assert [e.prompt.text for e in plain.executions] != [e.prompt.text for e in shot.executions]
    assert all("Example 1." not in e.prompt.text for e in plain.executions)
    assert plain.identity != shot.identity
    assert not {e.key for e in plain.executions} & {e.key for e in shot.executions}
    before = results_frame(ladder / "k3.sqlite")
    args = [*RUN, "--llm", "learner", "--llm", "random", "--shots", "3"]
    assert (
        main([*args, "--shots-from", str(ladder / "split.json"), "--db", str(ladder / "k3.sqlite")])
        == 0
    )
    after = results_frame(ladder / "k3.sqlite")
    assert len(after) == len(before)  # the same prompts: nothing asked again
    stored = after[after["llm"] == "learner"]
    assert all("Example 3." in p for p in stored["prompt"])


def test_a_changed_split_is_refused_in_one_line(ladder, tmp_path, capsys):
    copy = tmp_path / "split.json"
    copy.write_bytes((ladder / "split.json").read_bytes())
    planned = campaign(ladder, 1)
    data = json.loads(copy.read_text(encoding="utf-8"))
    data["seed"] = 99
    copy.write_text(json.dumps(data), encoding="utf-8")
    moved = replace(planned, shots=replace(planned.shots, split=str(copy)))
    with pytest.raises(ExplaincheckError, match="has changed since this campaign was planned"):
        plan_campaign(moved)
    assert main([*RUN, "--llm", "learner", "--shots", "2", "--db", str(tmp_path / "x.sqlite")]) == 2
    assert "--shots needs --shots-from" in capsys.readouterr().err


def derived_scores(root: Path, k: int) -> dict[str, list[bool]]:
    """The learner's verdict on each held-out question, from the rule alone: the K training
    cases of the category whose neighbourhoods miss the question's, nearest δ first; the
    answer of the one whose rung is nearest; no shot: the first option (jump; ½)."""
    split = read_split(root / "split.json")
    camp = Campaign(LADDER, ("x",))
    oracle = oracle_for(camp, load_environment(camp))
    rung = {s: oracle.state(s).valuation["r"] for s in range(oracle.model.states)}
    found: dict[str, list[bool]] = {}
    for question in unique_questions(split.held_out):
        case = question.test_case()
        pool = sorted(
            (
                c
                for c in unique_questions(split.train)
                if c.category == question.category
                and not set(c.neighbourhood) & set(question.neighbourhood)
            ),
            key=lambda c: (abs(c.delta - question.delta), c.case_key, c.states),
        )[:k]
        if pool:
            nearest = min(pool, key=lambda c: abs(rung[c.states[0]] - rung[question.states[0]]))
            reply = OracleBackend(oracle).reply_text(nearest.test_case())
        else:
            first = {
                "satisfy": '{"probability": 0.5}',
                "ranking": '{"ranking": ["jump", "slip", "climb"]}',
            }
            reply = first.get(question.category, '{"action": "jump"}')
        passed = grade_reply(case, reply, oracle).verdict == PASS
        found.setdefault(question.category, []).append(passed)
    return found


def stored_scores(root: Path, k: int, llm: str = "learner") -> dict[str, list[bool]]:
    frame = results_frame(root / f"k{k}.sqlite")
    frame = frame[frame["llm"] == llm]
    found: dict[str, list[bool]] = {}
    for category, verdict in zip(frame["category"], frame["verdict"], strict=True):
        found.setdefault(category, []).append(verdict == PASS)
    return found


def test_the_learner_scores_exactly_as_derived_and_rises_with_k(ladder):
    scores = {}
    for k in (0, 1, 3):
        derived, stored = derived_scores(ladder, k), stored_scores(ladder, k)
        assert {c: sorted(v) for c, v in derived.items()} == {
            c: sorted(v) for c, v in stored.items()
        }
        scores[k] = sum(map(sum, stored.values())) / sum(map(len, stored.values()))
    # by hand: with no shot the learner says jump (neither best nor worst) and ranks the actions
    # as listed (jump, slip, climb: wrong), and ½ is no rung's value; one shot of any rung
    # teaches climb / slip / climb-jump-slip, right on every rung
    assert scores[0] == 0
    none, one = stored_scores(ladder, 0), stored_scores(ladder, 1)
    for category in ("best_action", "worst_action", "ranking"):
        assert not any(none[category]) and all(one[category])
    assert 0 < scores[1] <= scores[3]


def test_the_gate_says_better_for_the_learner_and_no_change_for_random(ladder):
    split = read_split(ladder / "split.json")
    base, new = results_frame(ladder / "k0.sqlite"), results_frame(ladder / "k3.sqlite")
    base, new = keep_part(base, split, "held_out"), keep_part(new, split, "held_out")
    learner = judge("held_out", compare_campaigns(base, new, "learner", "learner"), base)
    assert learner.overall.verdict == BETTER and learner.overall.p_better_holm < 0.05
    assert learner.overall.difference > 0 and not learner.comparison.regression
    random = judge("held_out", compare_campaigns(base, new, "random", "random"), base)
    assert all(line.verdict == NO_CHANGE for line in random.lines)
    assert random.overall.difference == 0  # its draws do not read the shots


def test_compare_cases_prints_the_judgement_and_strict_json(ladder, capsys):
    args = ["compare", str(ladder / "k0.sqlite"), str(ladder / "k3.sqlite"), "--llm", "learner"]
    assert main([*args, "--cases", f"{ladder / 'split.json'}:held-out", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    (part,) = report["parts"]
    assert part["part"] == "held_out" and part["verdict"] == BETTER
    assert report["split_sha256"] == read_split(ladder / "split.json").sha256
    assert main([*args, "--cases", str(ladder / "split.json")]) == 0  # train not asked: said
    out = capsys.readouterr().out
    assert "held-out cases: BETTER overall" in out and "not compared:" in out
    assert main([*args, "--cases", f"{ladder / 'split.json'}:nowhere"]) == 2


def test_a_question_with_fewer_training_cases_than_k_is_counted_and_said(ladder, caplog):
    with caplog.at_level("WARNING", logger="explaincheck"):
        plan = plan_campaign(campaign(ladder, 50))
    longest = max(len(e.prompt.shots) for e in plan.executions)
    assert 0 < longest < 50
    questions = len({e.case.key for e in plan.executions})
    assert f"{questions} of {questions} questions of " in caplog.text
    assert "fewer than 50 shots" in caplog.text
