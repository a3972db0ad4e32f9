"""Generic wording for a PRISM model without an environment.toml, and resolving ids and paths."""

from __future__ import annotations

import pytest

from explaincheck.core.environments.generic import generic_environment
from explaincheck.core.environments.registry import load_builtin, resolve
from explaincheck.core.errors import ExplaincheckError
from explaincheck.core.oracle import compute_oracle
from explaincheck.core.taxonomy.base import TestCase
from explaincheck.core.taxonomy.prompts import render_prompt

MODEL = """\
mdp
const int N;
module walk
  x : [0..N] init 1;
  lit : bool init false;
  [forward] x < N & x > 0 -> 0.7 : (x' = x + 1) + 0.3 : (x' = x - 1);
  [flip] x < N & x > 0 -> (lit' = !lit);
endmodule
label "goal" = x = N;
label "unsafe" = x = 0;
"""


@pytest.fixture
def model(tmp_path):
    path = tmp_path / "walk.prism"
    path.write_text(MODEL)
    return path


def test_generic_wording_comes_from_the_model(model):
    env = generic_environment(model, constants="N=3")
    assert env.id is None and env.title == "walk"
    assert "reach a state labelled goal, and avoid states labelled unsafe" in env.task
    assert "x (integer 0..N)" in env.task and "lit (true or false)" in env.task
    assert "goal = x = N" in env.task and "N = 3" in env.task
    # the guard both actions share is stated once; each action shows its updates as written
    assert "Every action is available only where x < N & x > 0 holds." in env.task
    assert set(env.action_meanings) == {"forward", "flip"}
    assert (
        env.action_meanings["forward"] == "PRISM update(s): 0.7 : (x' = x + 1) + 0.3 : (x' = x - 1)"
    )
    result = compute_oracle(env.request())
    initial = result.initial
    text = env.describe(initial)
    assert text == "x = 1, lit = False (labels here: none)"
    case = TestCase("best_action", (initial.id,), 0.0, "prioritized", 0)
    prompt = render_prompt(case, result, env).text
    assert "- forward: PRISM update(s):" in prompt and "- flip: PRISM update(s):" in prompt
    goal = next(s for s in result.states if s.is_goal)
    assert "labels here: goal" in env.describe(goal)


def test_generic_wording_keeps_formula_names_comments_and_gives_every_constant():
    env = generic_environment("tests/models/corridor.prism", constants="TARGET=4")
    task = env.task
    # formulas by the model's names, each stated once; labels and guards use the names
    assert "Formulas (names used below): at_trap = pos = 0; at_exit = pos = TARGET." in task
    assert task.count("pos = TARGET") == 1
    assert "goal = at_exit; unsafe = at_trap" in task
    assert "available only where !at_trap & !at_exit holds" in task
    # the file's comment on the variable, and the value of the constant the words mention
    assert "pos (integer 0..4: the tile the agent stands on)" in task
    assert "Constants: TARGET = 4." in task
    assert env.action_meanings["left"] == "PRISM update(s): (pos'=pos-1)"


def test_generic_wording_works_out_constants_defined_by_others(tmp_path):
    path = tmp_path / "gamble.prism"
    path.write_text(
        "mdp\nconst int N;\nconst int TARGET = 2*N;\nmodule g\n  money : [0..TARGET] init 1;\n"
        "  [bet] money > 0 & money < TARGET -> 0.5 : (money'=money+1) + 0.5 : (money'=money-1);\n"
        'endmodule\nlabel "goal" = (money = TARGET);\n'
    )
    env = generic_environment(path, constants="N=3")
    assert "goal = (money = TARGET)" in env.task and "TARGET = 6" in env.task


def test_generic_labels_follow_the_request(tmp_path):
    path = tmp_path / "walk.prism"
    path.write_text(MODEL.replace('"goal"', '"done"').replace('"unsafe"', '"bad"'))
    env = generic_environment(path, constants="N=3", goal_label="done", unsafe_label="bad")
    assert "reach a state labelled done, and avoid states labelled bad" in env.task
    assert env.request().goal_label == "done"


def test_broken_model_is_one_line_error(tmp_path):
    path = tmp_path / "broken.prism"
    path.write_text("mdp\nmodule m\n  x : [0..2 init 0;\nendmodule\n")
    with pytest.raises(ExplaincheckError) as caught:
        generic_environment(path)
    assert "broken.prism" in str(caught.value) and "\n" not in str(caught.value)


def test_resolve_ids_folders_and_files(model):
    assert resolve("dam").id == "dam"
    builtin = load_builtin("water_jug")
    by_file = resolve(builtin.model_path)
    assert by_file.id == "water_jug" and by_file.task == builtin.task
    assert resolve(builtin.folder).id == "water_jug"
    assert resolve(model, constants="N=3").id is None
    assert resolve("dam", constants="DAYS=4").constants.startswith("CAP=6,LEVEL=3,DAYS=4,")
    assert resolve("dam", goal_label="survived").goal_label == "survived"
    with pytest.raises(ExplaincheckError, match="neither a built-in environment"):
        resolve("no_such_env")
    with pytest.raises(ExplaincheckError, match="unknown environment"):
        load_builtin("taxi")


def test_generic_wording_without_unsafe_label_does_not_mention_unsafe_states(tmp_path):
    path = tmp_path / "walk.prism"
    path.write_text(MODEL.replace('label "unsafe" = x = 0;', ""))
    env = generic_environment(path, constants="N=3")
    assert env.task.endswith("Your task: reach a state labelled goal.")
    assert "unsafe" not in env.task
