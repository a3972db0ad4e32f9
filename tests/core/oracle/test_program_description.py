"""The description of a PRISM program, read by Storm in an isolated child: values checked by hand
against small real files, errors as one line, and a crash or hang of the child never reaching the
caller."""

from __future__ import annotations

import multiprocessing
from pathlib import Path

import pytest
from program_helpers import segfault_child

from explaincheck.core.environments.registry import list_builtin
from explaincheck.core.errors import ModelError
from explaincheck.core.oracle import program
from explaincheck.core.oracle.program import (
    ProgramCommand,
    ProgramConstant,
    ProgramLabel,
    ProgramVariable,
    describe_program,
)

ROOT = Path(__file__).resolve().parents[3]
MODELS = ROOT / "tests" / "models"
ENVIRONMENTS = ROOT / "environments"

TWO_MODULES = """mdp
const int M = 3;
const int K = M + 1;
const bool FAST = true;
const double q;
global g : [0..K] init 0;
module one
  x : [0..M];
  done : bool init false;
  [go] x < M -> (x' = x + 1);
  [] x = M -> (done' = true);
endmodule
module two
  y : bool;
  [go] true -> q : (y' = !y) + 1 - q : true;
endmodule
label "end" = done & g = 0;
"""


def test_gambler_is_described_as_written():
    found = describe_program(MODELS / "gambler.prism")
    assert found.model_type == "MDP"
    assert found.modules == ("gambler",)
    assert found.variables == (ProgramVariable("x", "gambler", "int", "0", "N", "1"),)
    assert found.variables[0].range_text == "integer 0..N"
    assert found.constants == (
        ProgramConstant("N", "int", None, None),
        ProgramConstant("p", "double", "(2 / 5)", 0.4),
    )
    assert [c.name for c in found.undefined] == ["N"]
    assert found.labels == (ProgramLabel("goal", "(x = N)"), ProgramLabel("unsafe", "(x = 0)"))
    assert found.actions == ("bet", "quit")
    quit_command = found.commands_of("quit")
    assert quit_command == (
        ProgramCommand(
            "gambler", "quit", "((x > 0) & (x < N))", "((x > 0) & (x < N)) -> 1 : (x' = 0)"
        ),
    )


def test_globals_booleans_unlabelled_commands_and_derived_constants(tmp_path):
    path = tmp_path / "two.prism"
    path.write_text(TWO_MODULES)
    found = describe_program(path)
    assert found.modules == ("one", "two")
    assert [(v.name, v.module, v.type) for v in found.variables] == [
        ("g", None, "int"),
        ("x", "one", "int"),
        ("done", "one", "bool"),
        ("y", "two", "bool"),
    ]
    assert found.variables[2].range_text == "true or false"
    assert found.variables[2].initial == "false"
    defaults = {c.name: (c.type, c.default) for c in found.constants}
    assert defaults == {
        "M": ("int", 3),
        "K": ("int", 4),  # defined by another constant, still evaluated
        "FAST": ("bool", True),
        "q": ("double", None),
    }
    assert not found.constant("q").defined and found.constant("K").defined
    assert found.actions == ("go",)  # the unlabelled command has no action
    assert [c.action for c in found.commands] == ["go", None, "go"]
    assert [c.module for c in found.commands_of("go")] == ["one", "two"]
    assert found.labels == (ProgramLabel("end", "(done & (g = 0))"),)
    assert found.missing_constants(["M"]) == (ProgramConstant("q", "double", None, None),)
    assert found.missing_constants({"q": 0.5}) == ()


def test_formulas_are_inlined_and_constants_kept_by_name():
    found = describe_program(ENVIRONMENTS / "water_jug" / "model.prism")
    assert found.variable_names == ("a", "b", "t")
    assert [v.range_text for v in found.variables] == [
        "integer 0..A",
        "integer 0..B",
        "integer 0..K",
    ]
    assert {c.name: c.type for c in found.constants} == {
        "A": "int",
        "B": "int",
        "TARGET": "int",
        "K": "int",
        "p_spill": "double",
    }
    assert found.label_names == ("goal", "unsafe")
    goal = found.labels[0].expression
    assert "measured" not in goal and "TARGET" in goal  # formula `measured` is inlined
    assert found.actions == ("fill_a", "fill_b", "empty_a", "empty_b", "pour_a_b", "pour_b_a")
    assert "p_spill" in found.commands_of("pour_a_b")[0].text


def test_a_dtmc_is_named_as_such():
    assert describe_program(MODELS / "die.prism").model_type == "DTMC"


@pytest.mark.parametrize("environment", list_builtin(), ids=lambda e: e.id)
def test_every_builtin_gives_a_value_to_each_open_constant(environment):
    """The environment's defaults close every constant its model leaves open, and its
    variables are those the description finds."""
    found = describe_program(environment.model_path)
    given = {part.split("=")[0] for part in environment.constants.split(",") if part}
    assert found.missing_constants(given) == ()
    assert found.undefined  # each built-in leaves its sizes to environment.toml
    assert found.actions and found.variables
    assert environment.goal_label in found.label_names


def test_a_syntax_error_is_one_line_with_line_and_column():
    path = MODELS / "syntax_error.prism"
    with pytest.raises(ModelError) as caught:
        describe_program(path, use_cache=False)
    assert (caught.value.line, caught.value.column) == (5, 32)
    assert str(caught.value).startswith(f"{path}:5:32: syntax error")
    assert "\n" not in str(caught.value)


def test_missing_and_empty_files_are_refused_before_any_child(tmp_path):
    with pytest.raises(ModelError, match="no such file"):
        describe_program(tmp_path / "none.prism")
    (tmp_path / "empty.prism").write_text("  \n")
    with pytest.raises(ModelError, match="the file is empty"):
        describe_program(tmp_path / "empty.prism")


def test_a_crashing_child_is_one_error_and_the_caller_lives_on():
    with pytest.raises(ModelError) as caught:
        program._in_child(MODELS / "gambler.prism", 60.0, target=segfault_child)
    assert str(caught.value) == (
        f"{MODELS / 'gambler.prism'}: the PRISM parser crashed (exit status -11)"
    )
    assert describe_program(MODELS / "gambler.prism").constants[0].name == "N"  # still works


def test_a_child_out_of_memory_or_time_is_one_error_and_no_child_is_left(monkeypatch):
    monkeypatch.setattr(program, "PARSE_MEMORY", 64 << 20)  # too little to even import Storm
    with pytest.raises(ModelError) as caught:  # Python's MemoryError or Storm's refusal
        describe_program(MODELS / "tie.prism", use_cache=False)
    assert str(caught.value).startswith(f"{MODELS / 'tie.prism'}: ")
    assert "\n" not in str(caught.value)
    monkeypatch.undo()
    with pytest.raises(ModelError, match="took longer than 0 s"):
        describe_program(MODELS / "tie.prism", use_cache=False, timeout=0.01)
    assert multiprocessing.active_children() == []


def test_the_cache_is_keyed_by_content_and_names_the_asked_copy(tmp_path):
    first = describe_program(MODELS / "chain.prism")
    copy = tmp_path / "copy.prism"
    copy.write_text((MODELS / "chain.prism").read_text())
    program._memory.clear()  # from disk this time, not from memory
    second = describe_program(copy)
    assert second.path == str(copy) and first.path == str(MODELS / "chain.prism")
    assert second.variables == first.variables and second.content_hash == first.content_hash


def test_a_corrupt_cache_entry_is_read_again(tmp_path):
    path = tmp_path / "walk.prism"
    path.write_text(
        "mdp\nmodule m\n  s : [0..2] init 0;\n  [a] s < 2 -> (s' = s + 1);\nendmodule\n"
    )
    describe_program(path)
    key = next(k for k, v in program._memory.items() if v.path == str(path))
    program._memory.clear()
    program._entry(key).write_text("{not json")
    assert describe_program(path).variables[0].upper == "2"


def test_a_pathological_formula_is_given_up_in_seconds(tmp_path):
    # each formula doubles the last: written out, the guard has 2^40 terms
    lines = ["mdp", "formula f0 = x;"]
    lines += [f"formula f{i} = f{i - 1} + f{i - 1};" for i in range(1, 41)]
    lines += [
        "module m",
        "  x : [0..1] init 0;",
        "  [a] f40 > 0 -> 0.5:(x'=1) + 0.5:(x'=0);",
        "endmodule",
    ]
    path = tmp_path / "pathological.prism"
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(ModelError, match="took longer than 15 s"):
        describe_program(path, use_cache=False)
