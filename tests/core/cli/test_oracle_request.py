"""``explaincheck oracle``'s request: a bare PRISM file needs no generic wording (no second
Storm child to describe the program); a built-in or an environment folder keeps its own."""

from __future__ import annotations

import argparse

import pytest

from explaincheck.core.cli import oracle_command
from explaincheck.core.environments import generic
from explaincheck.core.oracle import program

MODEL = """mdp
module m
  x : [0..2] init 0;
  [go] x<2 -> 0.5:(x'=x+1) + 0.5:true;
endmodule
label "done" = x=2;
"""


def _args(model: str, *extra: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    oracle_command.add_arguments(parser)
    return parser.parse_args([model, *extra])


def test_a_bare_file_is_requested_without_describing_it(tmp_path, monkeypatch):
    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("describe_program was called")

    monkeypatch.setattr(program, "describe_program", refuse)
    monkeypatch.setattr(generic, "describe_program", refuse)  # its own reference
    path = tmp_path / "walk.prism"
    path.write_text(MODEL)
    request = oracle_command.request_from(
        _args(str(path), "--goal", "done", "--const", "", "--method", "verified")
    )
    assert request.model_path == str(path)
    assert (request.goal_label, request.unsafe_label) == ("done", "unsafe")
    assert request.method == "verified" and not request.require_unsafe
    strict = oracle_command.request_from(_args(str(path), "--unsafe", "done"))
    assert strict.require_unsafe and strict.unsafe_label == "done"
    assert strict.state_limit == 2_000_000 and strict.goal_label == "goal"


@pytest.mark.parametrize("env_id", ["frozen_lake"])
def test_a_builtin_keeps_its_constants_and_labels(env_id):
    from explaincheck.core.environments.registry import resolve

    expected = resolve(env_id).request()
    request = oracle_command.request_from(_args(env_id))
    assert request.model_path == expected.model_path
    assert request.constants == expected.constants
    assert (request.goal_label, request.unsafe_label) == (
        expected.goal_label,
        expected.unsafe_label,
    )
