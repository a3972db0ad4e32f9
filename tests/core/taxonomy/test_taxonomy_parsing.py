"""Reply parsing: what real models send is read; anything else is a reason, never an exception."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from explaincheck.core.taxonomy.answers import (
    action_form,
    probability_form,
    ranking_form,
    state_form,
    yes_no_form,
)
from explaincheck.core.taxonomy.parsing import parse_reply

ACTIONS = ("move_left", "move_right", "Pick Up")


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ('{"action": "move_left"}', "move_left"),
        ('```json\n{"action": "move_right"}\n```', "move_right"),
        (
            '<think>left looks bad, {"action": "move_left"}?</think>\n{"action": "move_right"}',
            "move_right",
        ),
        ('Sure! The answer is {"action": "move_right"} because it is safe.', "move_right"),
        ('{"thinking": "hmm", "action": "MOVE_LEFT "}', "move_left"),
        ('{"Action": "move left"}', "move_left"),
        ('{"action": "pick up"}', "Pick Up"),
        ('{"action": "pick_up"}', "Pick Up"),
        ('{"best_action": "move-right"}', "move_right"),
        ('{"action": "move_left: go one tile left"}', "move_left"),
        ("{'action': 'move_left'}", "move_left"),
        ('{"response": {"action": "move_right"}}', "move_right"),
        ("action: move_right", "move_right"),
        ("move_left", "move_left"),
        ('"move_right"', "move_right"),
        (
            'First {"action": "move_left"} then, reconsidering: {"action": "move_right"}',
            "move_right",
        ),
        ('{"action": ["move_left"]}', "move_left"),
    ],
)
def test_action_replies_that_read(text, value):
    parsed = parse_reply(text, action_form(ACTIONS))
    assert parsed.ok, parsed.reason
    assert parsed.value == value


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("", "empty reply"),
        ("   <think>only thinking</think>  ", "empty reply"),
        ('{"action": "jump"}', "jump"),
        ('{"action": 3}', "3"),
        ('{"verdict": "move_left", "explanation": "x", "other": 1}', '"action"'),
        (
            "I would probably go somewhere sensible, depending on the weather and the tiles ahead.",
            "",
        ),
        ("Line one\nline two without any answer", "no JSON"),
        (None, "not text"),
        ('{"action": "move"}', "move"),  # ambiguous prefix is not guessed
    ],
)
def test_action_replies_that_do_not_read(text, reason):
    parsed = parse_reply(text, action_form(ACTIONS))
    assert not parsed.ok and parsed.value is None
    assert reason in parsed.reason


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ('{"probability": 0.7}', 0.7),
        ('{"probability": "0.7"}', 0.7),
        ('{"probability": "70%"}', 0.7),
        ('{"probability": "70 %"}', 0.7),
        ('{"probability": 1}', 1.0),
        ('{"probability": "1/4"}', 0.25),
        ('{"probability": "~0.3"}', 0.3),
        ('{"probability": ".5"}', 0.5),
        ("0.25", 0.25),
        ("probability: 0.9", 0.9),
    ],
)
def test_probability_replies_that_read(text, value):
    parsed = parse_reply(text, probability_form())
    assert parsed.ok, parsed.reason
    assert parsed.value == pytest.approx(value)


@pytest.mark.parametrize(
    "text",
    [
        '{"probability": 70}',
        '{"probability": -0.1}',
        '{"probability": "high"}',
        '{"probability": true}',
        '{"probability": null}',
        '{"probability": "NaN"}',
        '{"probability": "between 0.6 and 0.8"}',
        '{"probability": "1/0"}',
    ],
)
def test_probability_replies_that_do_not_read(text):
    parsed = parse_reply(text, probability_form())
    assert not parsed.ok and parsed.reason


def test_yes_no_and_state_letters():
    yes_no = yes_no_form()
    assert parse_reply('{"answer": "Yes."}', yes_no).value == "yes"
    assert parse_reply('{"answer": false}', yes_no).value == "no"
    assert parse_reply("No", yes_no).value == "no"
    assert not parse_reply('{"answer": "perhaps"}', yes_no).ok
    letters = state_form(("A", "B"))
    assert parse_reply('{"state": "b"}', letters).value == "B"
    assert parse_reply('{"state": "State A"}', letters).value == "A"
    assert not parse_reply('{"state": "both"}', letters).ok


def test_ranking_replies():
    form = ranking_form(ACTIONS)
    assert parse_reply('{"ranking": ["Pick Up", "move_left", "move_right"]}', form).value == [
        "Pick Up",
        "move_left",
        "move_right",
    ]
    assert parse_reply('{"ranking": "pick up > move left > move right"}', form).value == [
        "Pick Up",
        "move_left",
        "move_right",
    ]
    # a readable but incomplete ranking is an answer (grading fails it), unknown names are not
    assert parse_reply('{"ranking": ["move_left"]}', form).value == ["move_left"]
    assert not parse_reply('{"ranking": ["move_left", "fly"]}', form).ok
    assert not parse_reply('{"ranking": []}', form).ok
    assert parse_reply('["move_right", "move_left", "pick up"]', form).ok


@given(st.text(max_size=300))
def test_parsing_never_raises(text):
    for form in (probability_form(), yes_no_form(), action_form(ACTIONS), ranking_form(ACTIONS)):
        parsed = parse_reply(text, form)
        assert parsed.ok or parsed.reason


@given(
    st.recursive(
        st.none() | st.booleans() | st.floats() | st.text(max_size=20),
        lambda children: (
            st.lists(children, max_size=4)
            | st.dictionaries(st.text(max_size=10), children, max_size=4)
        ),
        max_leaves=12,
    )
)
def test_parsing_arbitrary_json_never_raises(value):
    import json

    text = json.dumps({"answer": value, "ranking": value, "probability": value})
    for form in (probability_form(), yes_no_form(), ranking_form(ACTIONS)):
        parsed = parse_reply(text, form)
        assert parsed.ok or parsed.reason
