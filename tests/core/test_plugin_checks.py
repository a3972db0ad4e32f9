"""The generic contract checks (core/plugin_checks.py) over every registered kind, this
project's and any installed plugin's, and what each check catches: the same checks ``explaincheck
plugins check DIST`` runs on one plugin package (tests/core/test_plugins_command.py).

The environment checks run in tests/core/environments/test_builtin.py over every environment
(the same functions); the applicability count in tests/core/taxonomy/test_pool_counts.py."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest

from explaincheck.core import plugin_checks
from explaincheck.core.backends.base import Backend, Reply
from explaincheck.core.backends.registry import KINDS, BackendKind
from explaincheck.core.environments.registry import BUILTIN_IDS, PLUGIN_FOLDERS
from explaincheck.core.plugin_checks import (
    backend_findings,
    category_findings,
    describe_problems,
    expected_problems,
    schema_problems,
)
from explaincheck.core.taxonomy import registry
from explaincheck.core.taxonomy.answers import AnswerForm
from explaincheck.core.taxonomy.registry import CATEGORIES
from explaincheck.core.taxonomy.satisfy import Satisfy


@pytest.fixture(scope="module")
def samples():
    return [plugin_checks.sample(env_id) for env_id in BUILTIN_IDS]


@pytest.mark.parametrize("category_id", list(CATEGORIES))
def test_every_category_keeps_the_contract(samples, category_id):
    assert [f.line() for f in category_findings(CATEGORIES[category_id], samples)] == []


@pytest.mark.parametrize("prefix", list(KINDS))
def test_every_backend_kind_keeps_the_contract(samples, prefix):
    assert [f.line() for f in backend_findings(KINDS[prefix], samples)] == []


@pytest.mark.parametrize("env_id", BUILTIN_IDS)
def test_no_environment_ships_code_that_does_not_run(env_id):
    assert describe_problems(env_id) == []


# ---- what the checks catch: each kind below breaks one promise


class _Unworded(Satisfy):
    """Satisfy without its wordings 1 and 2 (a plugin's first draft)."""

    id = "test/unworded"

    def rephrasings(self, case, oracle):
        return ()


class _Open(Satisfy):
    """Satisfy whose schema lets anything else in."""

    id = "test/open"

    def answer_form(self, case, oracle):
        return _OpenForm("probability", "probability")


class _OpenForm(AnswerForm):
    def schema(self) -> dict[str, Any]:
        schema = super().schema()
        del schema["additionalProperties"]
        return schema


class _Silent(Satisfy):
    """Satisfy that says it applies where it selects nothing."""

    id = "test/silent"

    def candidates(self, oracle, seed=0):
        return []


@pytest.mark.parametrize(
    "broken, check",
    [(_Unworded, "rephrasings"), (_Open, "schema"), (_Silent, "applicability")],
)
def test_a_broken_category_is_found_out(samples, monkeypatch, broken, check):
    monkeypatch.setitem(registry.CATEGORIES, broken.id, broken())
    found = category_findings(registry.CATEGORIES[broken.id], samples[:1])
    assert found and {f.check for f in found} == {check}, [f.line() for f in found]
    assert found[0].subject == f"category {broken.id}"


def test_declarations_are_checked(samples):
    odd = _Unworded()
    odd.dimension, odd.label = "feelings", ""
    lines = [f.line() for f in category_findings(odd, samples[:1])]
    assert lines == [
        "category test/unworded: declaration: dimension 'feelings' is none of state,"
        " preference, scope, mode, explanation",
        "category test/unworded: declaration: label must be one line of text (got '')",
    ]


@pytest.mark.parametrize(
    "schema, problem",
    [
        ({"type": "array"}, "not a JSON schema of an object"),
        ({"type": "object", "properties": {}}, "no 'properties'"),
        (
            {
                "type": "object",
                "properties": {"p": {"type": "number", "minimum": 0}},
                "required": ["p"],
                "additionalProperties": False,
            },
            "property 'p' is none of",
        ),
        (
            {
                "type": "object",
                "properties": {"a": {"type": "string", "enum": ["x"]}},
                "additionalProperties": False,
            },
            "'required' must name every property",
        ),
        (
            {
                "type": "object",
                "properties": {"r": {"type": "array", "items": {"enum": ["x"]}, "maxItems": 1}},
                "required": ["r"],
                "additionalProperties": False,
            },
            "property 'r' is none of",
        ),
    ],
)
def test_schema_shapes_outside_the_documented_ones_are_found(schema, problem):
    problems = schema_problems(schema)
    assert len(problems) == 1 and problems[0].startswith(problem), problems


def test_every_answer_form_has_a_documented_shape():
    for form in (
        AnswerForm("probability", "probability"),
        AnswerForm("answer", "choice", ("yes", "no")),
        AnswerForm("ranking", "ranking", ("a", "b", "c")),
    ):
        assert schema_problems(form.schema()) == []


def test_an_expected_answer_outside_the_schema_is_found():
    schema = AnswerForm("action", "choice", ("left", "right")).schema()
    assert expected_problems({"action": ["left"]}, schema) == []
    assert expected_problems({"action": ["up"]}, schema) == [
        "expected action ['up'] lies outside the schema"
    ]
    assert expected_problems({"move": "left"}, schema) == [
        "expected answer names 'move', which the schema has not"
    ]
    probability = AnswerForm("probability", "probability").schema()
    assert expected_problems({"probability": 1.5}, probability) == [
        "expected probability 1.5 lies outside the schema"
    ]


class _Chatty(Backend):
    """Answers in prose: never within the schema."""

    async def answer(self, prompt, case):
        return Reply(text="I think it depends.")


def test_a_backend_that_answers_outside_the_schema_is_found(samples):
    kind = BackendKind("test/chatty", lambda argument, context: _Chatty(), "prose", instant=True)
    with pytest.MonkeyPatch.context() as patch:
        patch.setitem(KINDS, kind.prefix, kind)
        found = backend_findings(kind, samples[:1])
    assert found and {f.check for f in found} == {"answers"}
    assert "its reply is invalid" in found[0].problem


def test_a_backend_kind_whose_example_does_not_parse_is_found(samples):
    kind = BackendKind("test/bad", lambda argument, context: _Chatty(), "", argument="N")
    with pytest.MonkeyPatch.context() as patch:
        patch.setitem(KINDS, kind.prefix, kind)
        problems = [f.problem for f in backend_findings(kind, samples[:1])]
    assert problems == [
        "summary is empty (help texts and the GUI show it)",
        "takes N but gives no example spec",
    ]


def test_a_plugin_environments_describe_py_is_found(tmp_path, monkeypatch):
    folder = tmp_path / "cave"
    folder.mkdir()
    (folder / "describe.py").write_text("def describe(state):\n    return 'here'\n")
    monkeypatch.setitem(PLUGIN_FOLDERS, "test/cave", folder)
    (problem,) = describe_problems("test/cave")
    assert problem.startswith("describe.py does not run for a plugin's environment")


def test_findings_are_strict_json():
    finding = plugin_checks.Finding("category x/y", "schema", "no 'properties'")
    assert json.loads(json.dumps(finding.as_json(), allow_nan=False)) == dataclasses.asdict(finding)
