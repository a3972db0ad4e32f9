"""Saving wording as a new environment folder (data only) and reading it back unchanged."""

from __future__ import annotations

import tomllib

import pytest

from explaincheck.core.environments import toml_writer
from explaincheck.core.environments.generic import generic_environment, save_wording
from explaincheck.core.environments.loader import load_environment
from explaincheck.core.environments.registry import load_builtin, resolve
from explaincheck.core.errors import ExplaincheckError
from explaincheck.core.oracle import compute_oracle
from explaincheck.core.paths import environments_dir

MODEL = """\
mdp
const int N;
module walk
  x : [0..N] init 1;
  [forward] x < N & x > 0 -> 0.7 : (x' = x + 1) + 0.3 : (x' = x - 1);
  [back] x < N & x > 0 -> (x' = x - 1);
endmodule
label "goal" = x = N;
label "unsafe" = x = 0;
"""


def test_generic_wording_round_trip(tmp_path):
    source = tmp_path / "walk.prism"
    source.write_text(MODEL)
    env = generic_environment(source, constants="N=3")
    env = env.__class__(**{**env.__dict__, "task": env.task + " Braces {stay} literal."})
    target = save_wording(env, tmp_path / "my_walk")
    folder = target.parent
    assert sorted(p.name for p in folder.iterdir()) == ["environment.toml", "model.prism"]
    loaded = load_environment(folder)
    assert loaded.id == "my_walk"
    assert loaded.task == env.task
    assert loaded.action_meanings == env.action_meanings
    assert loaded.constants == env.constants
    assert (loaded.goal_label, loaded.unsafe_label) == (env.goal_label, env.unsafe_label)
    result = compute_oracle(loaded.request())
    for state in result.states:
        assert loaded.describe(state) == env.describe(state)
    assert resolve(folder / "model.prism").id == "my_walk"


def test_builtin_wording_saved_as_data(tmp_path):
    env = load_builtin("wolf_goat_cabbage")
    state_words = "Farmer {f}, wolf {w}, goat {g}, cabbage {cb}, lost {lost}."
    save_wording(env, tmp_path / "river", state_template=state_words)
    loaded = load_environment(tmp_path / "river")
    assert not (tmp_path / "river" / "describe.py").exists()
    assert loaded.task == env.task and loaded.action_meanings == env.action_meanings
    initial = compute_oracle(loaded.request()).initial
    assert loaded.describe(initial) == "Farmer 0, wolf 0, goat 0, cabbage 0, lost 0."


def test_save_refuses_to_overwrite(tmp_path):
    env = load_builtin("dam")
    save_wording(env, tmp_path / "dam_copy")
    with pytest.raises(ExplaincheckError, match="already exists"):
        save_wording(env, tmp_path / "dam_copy")
    save_wording(env, tmp_path / "dam_copy", overwrite=True)
    with pytest.raises(ExplaincheckError, match="built-in"):
        save_wording(env, environments_dir() / "dam")


def test_toml_writer_round_trip():
    data = {
        "title": 'quote " backslash \\ tab \t newline \n unicode é \x7f',
        "n": 3,
        "p": 0.25,
        "flag": True,
        "constants": {"N": 4},
        "actions": {"go-on": "x", "with space": "y"},
        "empty": {},
    }
    assert tomllib.loads(toml_writer.dumps(data)) == data
