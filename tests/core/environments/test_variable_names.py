"""The optional ``[variables]`` table: the state variables' names for people, in reading order."""

from __future__ import annotations

import pytest

from explaincheck.core.environments.loader import EnvironmentFolderError, load_environment
from explaincheck.core.environments.registry import load_builtin

MODEL = """mdp
module m
  x : [0..1] init 0;
  y : [0..1] init 0;
  [go] true -> (x' = 1);
endmodule
label "goal" = x = 1;
"""


def folder_with(tmp_path, table: str):
    (tmp_path / "model.prism").write_text(MODEL)
    (tmp_path / "environment.toml").write_text(
        f'title = "T"\ntask = "Reach x = 1."\nstate = "x={{x}}"\n{table}'
    )
    return tmp_path


def test_frozen_lake_names_row_then_column():
    assert load_builtin("frozen_lake").variables == {"r": "row", "c": "column"}
    assert list(load_builtin("frozen_lake").variables) == ["r", "c"]


def test_order_is_kept_and_the_table_is_optional(tmp_path):
    env = load_environment(folder_with(tmp_path, '[variables]\ny = "height"\nx = "width"\n'))
    assert list(env.variables.items()) == [("y", "height"), ("x", "width")]
    other = tmp_path / "plain"
    other.mkdir()
    assert load_environment(folder_with(other, "")).variables == {}


def test_a_name_must_be_text(tmp_path):
    with pytest.raises(EnvironmentFolderError, match=r"\[variables\] must map names to text"):
        load_environment(folder_with(tmp_path, "[variables]\nx = 3\n"))
