"""Prompt rendering: task, state words, actions with meanings, question, JSON shape and schema."""

from __future__ import annotations

from explaincheck.core.taxonomy.base import TestCase
from explaincheck.core.taxonomy.prompts import render_prompt
from explaincheck.core.taxonomy.registry import CATEGORIES
from explaincheck.core.taxonomy.selection import select_cases


def case(category_id, *states):
    return TestCase(category_id, tuple(states), 0.0, "prioritized", 0)


def test_single_state_prompt(toy, env):
    prompt = render_prompt(case("ranking", 0), toy, env)
    assert prompt.text.startswith("You are an agent in a toy world.")
    assert "Current state: you stand on tile 0." in prompt.text
    assert "Available actions:\n- left: step left\n- right: step right (slippery)\n- stay" in (
        prompt.text
    )
    assert "Order all available actions from best to worst" in prompt.text
    assert prompt.text.endswith(
        'Respond only with a JSON object of the form {"ranking": ["<best action>", ..., '
        '"<worst action>"]}.'
    )
    ranking = prompt.schema["properties"]["ranking"]
    assert ranking["items"]["enum"] == ["left", "right", "stay"]
    assert ranking["minItems"] == ranking["maxItems"] == 3 and ranking["uniqueItems"] is True
    assert prompt.schema["required"] == ["ranking"]


def test_state_without_actions(toy, env):
    prompt = render_prompt(case("satisfy", 4), toy, env)
    assert "No actions are available in this state." in prompt.text
    assert prompt.schema["properties"]["probability"] == {
        "type": "number",
        "minimum": 0,
        "maximum": 1,
    }


def test_action_prompt_lists_only_available_actions(toy, env):
    prompt = render_prompt(case("best_action", 6), toy, env)
    assert prompt.schema["properties"]["action"]["enum"] == ["x", "y", "z"]
    assert '{"action": "<one of: x, y, z>"}' in prompt.text
    assert "- left" not in prompt.text


def test_pair_prompt_names_states_by_letter(toy, env):
    prompt = render_prompt(case("more_promising", 6, 1), toy, env)
    assert "State K: you stand on tile 6.\nState L: you stand on tile 1." in prompt.text
    assert "Current state" not in prompt.text
    assert prompt.schema["properties"]["state"]["enum"] == ["K", "L"]
    assert '{"state": "<K or L>"}' in prompt.text


def test_subset_prompt(toy, env):
    prompt = render_prompt(case("subset_dead_end", 3, 0, 7, 2), toy, env)
    for letter, state in zip("KLMN", (3, 0, 7, 2), strict=True):
        assert f"State {letter}: you stand on tile {state}." in prompt.text
    assert "dead end" in prompt.text
    assert prompt.schema["properties"]["answer"]["enum"] == ["yes", "no"]


def test_every_category_renders(toy, env):
    for category_id in CATEGORIES:
        for c in select_cases(toy, category_id, budget=4):
            prompt = render_prompt(c, toy, env)
            assert "Respond only with a JSON object of the form" in prompt.text
            assert prompt.schema["additionalProperties"] is False
