"""The property type and its parser (``core/oracle/property.py``): the supported forms, the one
line that names them for any other, property files with names and constants."""

from __future__ import annotations

import pytest

from explaincheck.core.oracle.property import (
    BOUNDED,
    MAX,
    MIN,
    REACH,
    REWARD,
    SUPPORTED,
    UNTIL,
    PropertyError,
    negated,
    parse_property,
    reach_goal,
    read_props_file,
    resolve_property,
    without_constants,
)
from explaincheck.core.oracle.storm.targets import MAX_CHARACTERS


@pytest.mark.parametrize(
    ("text", "canonical", "kind", "direction", "target", "stay", "bound", "reward"),
    [
        ('Pmax=? [F "goal"]', 'Pmax=? [F "goal"]', REACH, MAX, '"goal"', None, None, None),
        ('Pmin=?[ F  "unsafe" ]', 'Pmin=? [F "unsafe"]', REACH, MIN, '"unsafe"', None, None, None),
        (
            'Pmin=?[ !"collision_max_backoff" U "all_delivered" ]',  # the suite's csma
            'Pmin=? [!"collision_max_backoff" U "all_delivered"]',
            UNTIL,
            MIN,
            '"all_delivered"',
            '!"collision_max_backoff"',
            None,
            None,
        ),
        ('Pmax=? [F<=10 "goal"]', 'Pmax=? [F<=10 "goal"]', BOUNDED, MAX, '"goal"', None, 10, None),
        (
            'R{"time"}min=? [ F "all_delivered" ]',
            'R{"time"}min=? [F "all_delivered"]',
            REWARD,
            MIN,
            '"all_delivered"',
            None,
            None,
            "time",
        ),
        (
            "Rmax=? [F s1=12 & s2=12]",
            "Rmax=? [F s1=12 & s2=12]",
            REWARD,
            MAX,
            "s1=12 & s2=12",
            None,
            None,
            None,
        ),
        ('"time_min": R{"time"}min=? [F "done"];', None, None, None, None, None, None, None),
    ],
)
def test_the_supported_forms_are_read(
    text, canonical, kind, direction, target, stay, bound, reward
):
    if canonical is None:  # a named statement is a file's, not --property's
        with pytest.raises(PropertyError):
            parse_property(text)
        return
    found = parse_property(text)
    assert (found.text, found.kind, found.direction) == (canonical, kind, direction)
    assert (found.target, found.stay, found.bound, found.reward) == (target, stay, bound, reward)
    assert parse_property(found.text) == found  # the canonical text reads back the same


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ('P>=0.5 [F "goal"]', "only queries are supported"),
        ('P=? [F "goal"]', "needs min or max on an MDP"),
        ('Pmax=? [G "safe"]', "path operator G is not supported"),
        ('Pmax=? [X "goal"]', "path operator X is not supported"),
        ('R{"time"}min=? [F<=3 "goal"]', "step-bounded reward is not supported"),
        ('Pmax=? ["a" U<=3 "b"]', "step-bounded until is not supported"),
        ('R{time}min=? [F "goal"]', 'must be written R{"name"}'),
        ('S=? ["goal"]', "'S' is not a supported operator"),
        ('multi(Pmax=? [F "a"], Pmax=? [F "b"])', "multi-objective"),
        ('Pmax=? [F P>0.5 [F "goal"]]', "nested P or R operator"),
        ('Pmax=? [F "goal"', "must end with ']'"),
        ('Pmax=? [F ("goal"]', "'(' without its ')'"),
        ('Pmax=? [F "goal]', "unclosed quote"),
        ('Pmax=? [F<=T "goal"]', "the step bound T of F<=T has no value"),
        ("", "the property is empty"),
    ],
)
def test_any_other_form_is_one_line_naming_the_supported_ones(text, says):
    with pytest.raises(PropertyError) as error:
        parse_property(text)
    message = str(error.value)
    assert says in message and "\n" not in message
    if "supported" in says or "operator" in says or "multi" in says or "nested" in says:
        assert SUPPORTED in message


def test_a_step_bound_takes_a_given_constant_and_the_size_is_capped():
    assert parse_property('Pmax=? [F<=T "goal"]', constants={"T": "7"}).bound == 7
    with pytest.raises(PropertyError, match="between 0 and"):
        parse_property('Pmax=? [F<=99999 "goal"]')
    with pytest.raises(PropertyError, match=f"longer than the {MAX_CHARACTERS:,} characters"):
        parse_property('Pmax=? [F "goal" | ' + "x=1 | " * 2_000 + "x=2]")


@pytest.mark.parametrize(
    ("text", "says"),
    [
        # 4,014 characters: under the old 4,096-character guard, which left nesting and terms
        # to the later checks of the goal and the formula to stay in (Storm crashes at 2,000)
        ("Pmax=? [F " + "(" * 2_000 + "x=1" + ")" * 2_000 + "]", "nests parentheses 2,000 deep"),
        ("Pmax=? [F " + "x=1|" * 1_000 + "x=2]", "has 2,004 terms"),  # 4,014 characters
        ("Pmax=? [F " + "x=1 | " * 10_000 + "x=2]", "longer than the 10,000 characters"),
    ],
)
def test_a_property_has_the_limits_of_every_expression(text, says):
    """One place for the limits: a property goes through ``check_target_text`` as a goal does
    (it had its own 4,096-character guard, no term or depth limit)."""
    with pytest.raises(PropertyError) as error:
        parse_property(text)
    message = str(error.value)
    assert says in message and "\n" not in message and len(message) < 300
    assert message.startswith("the property expression 'Pmax=? [F ")


def test_goal_is_the_short_form_of_pmax_reach():
    assert reach_goal("goal").text == 'Pmax=? [F "goal"]'
    assert reach_goal("s=3").text == "Pmax=? [F (s=3)]"
    assert reach_goal("done", labels=("goal",)).text == "Pmax=? [F (done)]"  # not a label here
    assert reach_goal("goal").reaches_goal and reach_goal("goal").goal_text == "goal"
    assert parse_property('Pmax=? [F "goal"]') == reach_goal("goal")
    assert not parse_property('Pmin=? [F "goal"]').reaches_goal


def test_the_json_object_and_the_avoided_states():
    found = parse_property('Pmin=? [!"unsafe" U "goal"]', name="avoid")
    assert found.to_json() == {
        "text": 'Pmin=? [!"unsafe" U "goal"]',
        "kind": "until",
        "direction": "min",
        "reward": None,
        "bound": None,
        "target": '"goal"',
        "avoid": '"unsafe"',
        "name": "avoid",
    }
    assert found.stay_label == '!"unsafe"'
    assert negated('"safe"') == '!"safe"' and negated("!(a & b)") == "a & b"
    assert negated("(a) & (b)") == "!((a) & (b))" and negated("(x=1)") == "!(x=1)"


def test_a_props_file_with_names_constants_and_comments(tmp_path):
    path = tmp_path / "csma.props"
    path.write_text(
        "// the suite's csma properties\n"
        "const int T;\n"
        "const int K = 4;\n"
        '"time_min": R{"time"}min=? [ F "all_delivered" ];\n'
        '"before": Pmin=?[ !"collision_max_backoff" U "all_delivered" ];\n'
        '"deadline": Pmax=? [F<=T "all_delivered"];\n'
        '"soon": Pmax=? [F<=K "all_delivered"]\n'
    )
    found = read_props_file(path)
    assert [e.name for e in found.entries] == ["time_min", "before", "deadline", "soon"]
    assert found.constants == {"T": None, "K": "4"} and found.undefined == ("T",)
    picked = resolve_property(f"{path}:time_min").property
    assert (picked.text, picked.name) == ('R{"time"}min=? [F "all_delivered"]', "time_min")
    assert resolve_property(f"{path}:2").property.kind == UNTIL
    assert resolve_property(f"{path}:soon").property.bound == 4
    with pytest.raises(PropertyError, match=r"csma.props:6: the property needs the constant T"):
        resolve_property(f"{path}:deadline")
    given = resolve_property(f"{path}:deadline", constants="T=12,N=3")
    assert given.property.bound == 12 and given.property_constants == ("T",)
    assert without_constants("T=12,N=3", given.property_constants) == "N=3"
    with pytest.raises(PropertyError, match=r"holds 4 properties: pick one .*time_min, before"):
        resolve_property(str(path))
    with pytest.raises(PropertyError, match="has no property 'nope'"):
        resolve_property(f"{path}:nope")


@pytest.mark.parametrize(
    ("content", "says"),
    [
        (b'"a": Pmax=? [F "x"];\n"a": Pmin=? [F "x"];\n', ":2: the name 'a' is used twice"),
        (b'label "x" = s=1;\nPmax=? [F "x"];\n', ":1: labels in a property file are not supported"),
        (b"\0\0binary", "a binary file"),
        (b"// nothing\n", "no property in the file"),
        (b'"a": Pmax=? [G "x"];', ":1: the path operator G is not supported"),
    ],
)
def test_a_bad_props_file_is_one_line(tmp_path, content, says):
    path = tmp_path / "bad.pctl"
    path.write_bytes(content)
    with pytest.raises(PropertyError) as error:
        resolve_property(str(path))
    assert says in str(error.value) and "\n" not in str(error.value)


def test_property_of_an_environment_by_name_and_an_unknown_word():
    named = {"hours": parse_property('R{"hours"}min=? [F "goal"]', name="hours")}
    assert resolve_property("hours", named=named).property is named["hours"]
    with pytest.raises(PropertyError, match=r"'nope' is no property of this model \(its"):
        resolve_property("nope", named=named)
    with pytest.raises(PropertyError, match="no such property file"):
        resolve_property("missing.props:x")
