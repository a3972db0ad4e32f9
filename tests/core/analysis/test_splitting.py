"""The split (``explaincheck split``): no held-out question shares a state or a successor state
with a training question, checked on three environments against neighbourhoods recomputed from
the oracle (not read from the file); deterministic per seed; a broken file is refused."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from explaincheck.core.analysis.splitting import make_split
from explaincheck.core.campaign.neighbourhood import is_absorbing
from explaincheck.core.campaign.plan import Campaign, load_environment, oracle_for
from explaincheck.core.campaign.split_file import (
    Split,
    check_rule,
    read_split,
    split_text,
    write_split,
)
from explaincheck.core.cli.main import main
from explaincheck.core.errors import ExplaincheckError

ENVIRONMENTS = ("frozen_lake", "wolf_goat_cabbage", "water_jug")
LLMS = ("oracle", "random", "flaw:myopic:2")


@pytest.fixture(scope="module")
def base_db(tmp_path_factory):
    """One results file: three environments, three answerers, both selections."""
    db = tmp_path_factory.mktemp("split") / "base.sqlite"
    for env in ENVIRONMENTS:
        args = ["run", "--env", env, "--budget", "6", "--selection", "both", "--db", str(db)]
        for llm in LLMS:
            args += ["--llm", llm]
        assert main(args) == 0
    return db


def own_neighbourhood(oracle, states):
    """The rule's neighbourhood, written again here from the oracle's transitions."""
    found = set(states)
    for state in states:
        for targets in oracle.state(state).successors.values():
            found |= {t for t in targets if not is_absorbing(oracle, t)}
    return found


def broken_pairs(split: Split) -> list[tuple[str, str]]:
    """Every (train, held-out) pair of one model whose recomputed neighbourhoods meet."""
    oracles = {
        env: oracle_for(Campaign(env, ("x",)), load_environment(Campaign(env, ("x",))))
        for env in ENVIRONMENTS
    }
    near = {
        (c.environment, c.case_key): own_neighbourhood(oracles[c.environment], c.states)
        for c in (*split.train, *split.held_out)
    }
    return [
        (t.case_key, h.case_key)
        for t in split.train
        for h in split.held_out
        if t.model == h.model
        and near[(t.environment, t.case_key)] & near[(h.environment, h.case_key)]
    ]


def test_no_held_out_question_shares_a_state_or_successor_with_a_training_one(base_db):
    split = make_split(base_db, held_out=0.3, seed=0)
    assert broken_pairs(split) == []
    for env in ENVIRONMENTS:  # each environment has both parts, so the check checks something
        assert any(c.environment == env for c in split.train), env
        assert any(c.environment == env for c in split.held_out), env
    # every case key of the file is in exactly one part (or left out as the buffer)
    parts = [c.case_key for c in (*split.train, *split.held_out, *split.left_out)]
    keys = {(c.environment, c.case_key) for c in (*split.train, *split.held_out, *split.left_out)}
    assert len(keys) == len(parts)
    # the two selections' keys of one question are on the same side
    side = {}
    for name in ("train", "held_out", "left_out"):
        for case in getattr(split, name):
            assert side.setdefault((case.environment, case.question), name) == name


def test_a_split_that_breaks_the_rule_is_refused_and_the_check_finds_it(base_db, tmp_path):
    split = make_split(base_db, held_out=0.3, seed=0)
    held = split.held_out[0]
    neighbour = next(
        c
        for c in split.left_out
        if c.model == held.model and set(c.neighbourhood) & set(held.neighbourhood)
    )
    broken = replace(split, train=(*split.train, neighbour))
    assert broken_pairs(broken)  # the independent check sees it
    with pytest.raises(ExplaincheckError, match="breaks its rule"):
        check_rule(broken)
    with pytest.raises(ExplaincheckError, match="breaks its rule"):
        write_split(broken, tmp_path / "broken.json")
    path = tmp_path / "edited.json"
    data = json.loads(split_text(split))
    data["train"].append(neighbour.as_json())
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(ExplaincheckError, match=r"edited\.json: the split breaks its rule"):
        read_split(path)


def test_the_same_seed_gives_the_same_file_and_another_seed_another(base_db, tmp_path):
    first = write_split(make_split(base_db, seed=0), tmp_path / "a.json")
    again = write_split(make_split(base_db, seed=0), tmp_path / "b.json")
    other = write_split(make_split(base_db, seed=7), tmp_path / "c.json")
    assert first == again
    assert (tmp_path / "a.json").read_bytes() == (tmp_path / "b.json").read_bytes()
    assert other != first
    read = read_split(tmp_path / "a.json")
    assert read.sha256 == first and read.train == make_split(base_db, seed=0).train


def test_by_environment_holds_out_whole_environments(base_db):
    split = make_split(base_db, by="environment", held_out=0.3, seed=0)
    held = {c.environment for c in split.held_out}
    trained = {c.environment for c in split.train}
    assert held and trained and not held & trained and held | trained == set(ENVIRONMENTS)
    assert split.left_out == ()


def test_the_command_writes_the_file_and_says_the_counts(base_db, tmp_path, capsys):
    out = tmp_path / "split.json"
    assert main(["split", "--db", str(base_db), "--out", str(out), "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    found = json.loads(out.read_text(encoding="utf-8"))
    assert printed["counts"] == found["counts"]
    assert found["rule"]["by"] == "state" and found["seed"] == 0
    assert {m["environment"] for m in found["models"]} == set(ENVIRONMENTS)
    assert all(len(m["model_hash"]) == 64 for m in found["models"])
    entry = found["held_out"][0]
    assert {"environment", "model_hash", "case_key", "states", "neighbourhood"} <= set(entry)
    with pytest.raises(SystemExit) as refused:
        main(["split", "--db", str(base_db), "--out", str(out), "--held-out", "1.5"])
    assert refused.value.code == 2
    assert main(["split", "--db", str(tmp_path / "none.sqlite"), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "none.sqlite: no results database there" in err and "Traceback" not in err


def test_the_held_out_part_frozen_as_a_bench_set_is_asked_exactly(base_db, tmp_path):
    from explaincheck.core.bench.questions import read_set
    from explaincheck.core.store import results_frame

    out, bench = tmp_path / "split.json", tmp_path / "held"
    assert main(["split", "--db", str(base_db), "--out", str(out), "--bench", str(bench)]) == 0
    frozen, split = read_set(bench), read_split(out)  # read_set checks the sha256
    assert frozen.manifest["held_out_of"]["split_sha256"] == split.sha256
    ids = {q.id for q in frozen.questions}
    assert ids == {f"{c.environment}/{c.case_key}" for c in split.held_out}
    db = tmp_path / "asked.sqlite"
    assert main(["bench", "run", str(bench), "--llm", "oracle", "--db", str(db)]) == 0
    asked = results_frame(db)
    assert {f"{e}/{k}" for e, k in zip(asked["environment"], asked["case_key"], strict=True)} == ids
    assert len(asked) == len(ids) and set(asked["verdict"]) == {"pass"}
