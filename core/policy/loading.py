"""Load a memoryless policy: a CSV or JSON table keyed by valuation, a scheduler Storm exported
with state valuations, or a Python callable.

Why keyed by valuation: state ids are Storm's numbering and change with the build; a valuation
(one value per model variable) names a state in the model's own terms, the way a trained agent
or a hand-written rule sees it. A row gives the action ("up") or a distribution
("up:0.7,left:0.3", fractions such as 1/3 allowed). Every mistake is one ``ExplaincheckError``
line naming the row: an unknown variable or action, an action not enabled in that state,
probabilities that do not sum to 1, a state given twice, and a reachable decision state without a
row (unless ``default`` is ``uniform`` or ``optimal``; the policy then lists the states it
filled). Rows whose valuation is no reachable state are ignored (tables often cover a whole grid)
and counted.

Which states need a row: every reachable non-goal state with two or more labelled actions. A state
with one labelled action takes it; goal states end the run (rows for them are checked, not used).
"""

from __future__ import annotations

import csv
import decimal
import io
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import IO, Any

from explaincheck.core.atomic_files import write_atomically
from explaincheck.core.csv_text import defused
from explaincheck.core.errors import ExplaincheckError
from explaincheck.core.json_input import parse, read_limited, text_of
from explaincheck.core.notices import warn_once
from explaincheck.core.oracle.types import OracleResult, StateFacts
from explaincheck.core.policy.types import DEFAULTS, OPTIMAL, Policy, choice_text

ACTION = "action"  # the column (CSV) or key (JSON) holding the action or distribution
SUM_TOLERANCE = Fraction(1, 10**9)  # decimals that sum to 1 up to this are normalised
MAX_POLICY_BYTES = 1 << 30  # a table of ten million states is ~300 MB


class PolicyError(ExplaincheckError):
    """A policy file or callable that does not fit the model (one line, names the row)."""


@dataclass(frozen=True)
class Loaded:
    """A loaded policy and what the loading noticed."""

    policy: Policy
    ignored_rows: int = 0  # rows whose valuation is no reachable state
    outside_rows: int = 0  # of them, rows with a value no reachable state takes


def _key(value: Any) -> str:
    """A valuation value as text that a table cell and a model value both map to."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value).strip().lower()


def valuation_index(oracle: OracleResult) -> dict[tuple[str, ...], int]:
    variables = oracle.model.variables
    return {tuple(_key(s.valuation[v]) for v in variables): s.id for s in oracle.states}


def needs_choice(state: StateFacts) -> bool:
    """Whether the policy must say what to do here (a real decision outside the goal)."""
    return not state.is_goal and len(state.q) >= 2


def state_words(state: StateFacts) -> str:
    return "(" + ", ".join(f"{k}={_key(v)}" for k, v in state.valuation.items()) + ")"


def parse_distribution(value: Any, where: str) -> dict[str, Fraction]:
    """An action or distribution as written in a table: "up", "up:0.7,left:0.3", or (JSON) an
    object {"up": 0.7, "left": 0.3}."""
    if isinstance(value, Mapping):
        items = [(str(a).strip(), p) for a, p in value.items()]
    elif isinstance(value, str) and value.strip():
        parts = [part.strip() for part in value.split(",") if part.strip()]
        if len(parts) == 1 and ":" not in parts[0]:
            return {parts[0]: Fraction(1)}
        items = []
        for part in parts:
            action, colon, weight = part.rpartition(":")
            if not colon or not action.strip():
                raise PolicyError(f"{where}: {part!r} is not ACTION:PROBABILITY")
            items.append((action.strip(), weight.strip()))
    else:
        raise PolicyError(f"{where}: no action given")
    distribution: dict[str, Fraction] = {}
    for action, weight in items:
        try:
            p = Fraction(str(weight)) if not isinstance(weight, bool) else None
        except (ValueError, ZeroDivisionError):
            p = None
        if p is None or p < 0:
            raise PolicyError(f"{where}: probability {weight!r} of {action!r} is not a number >= 0")
        if action in distribution:
            raise PolicyError(f"{where}: action {action!r} is given twice")
        if p:
            distribution[action] = p
    total = sum(distribution.values(), Fraction(0))
    if abs(total - 1) > SUM_TOLERANCE:
        raise PolicyError(f"{where}: probabilities sum to {exact_text(total)}, not 1")
    return {a: p / total for a, p in distribution.items()}


def exact_text(value: Fraction) -> str:
    """``value`` with every digit that tells it from 1 (``1.000001``, never ``1``), however
    large (``2E+308``: a float would overflow); a fraction when no decimal ends it."""
    context = decimal.Context(prec=MAX_DIGITS)
    shown = context.divide(decimal.Decimal(value.numerator), decimal.Decimal(value.denominator))
    if context.flags[decimal.Inexact] and value.denominator < 10**9:
        return f"{value.numerator}/{value.denominator}"
    shown = shown.normalize(context)
    return f"{shown:f}" if -30 < shown.adjusted() < 30 else str(shown)


MAX_DIGITS = 40


def check_choice(
    distribution: dict[str, Fraction], state: StateFacts, actions: tuple[str, ...], where: str
) -> None:
    for action in distribution:
        if action not in actions:
            raise PolicyError(
                f"{where}: unknown action {action!r} (the model's actions: {', '.join(actions)})"
            )
        if action not in state.q:
            enabled = ", ".join(state.q) or "none"
            raise PolicyError(
                f"{where}: action {action!r} is not enabled in state {state_words(state)}"
                f" (enabled: {enabled})"
            )


def default_choice(state: StateFacts, default: str) -> dict[str, Fraction]:
    """What ``--policy-default`` puts in a state the source left out."""
    if default == OPTIMAL and state.optimal_action in state.q:
        return {str(state.optimal_action): Fraction(1)}
    if default == OPTIMAL:
        return {state.best[0]: Fraction(1)}
    return {a: Fraction(1, len(state.q)) for a in state.q}


def complete(
    oracle: OracleResult,
    given: dict[int, dict[str, Fraction]],
    source: str,
    default: str = "",
    missing_hint: str = "",
) -> Policy:
    """The policy of ``given`` over every state: forced choices filled in, missing decision
    states filled by ``default`` (or an error naming the first one)."""
    if default and default not in DEFAULTS:
        raise PolicyError(f"unknown policy default {default!r} (valid: {', '.join(DEFAULTS)})")
    choices: dict[int, dict[str, Fraction]] = {}
    defaulted = []
    for state in oracle.states:
        if state.is_goal or not state.q:
            continue
        if state.id in given:
            choices[state.id] = given[state.id]
        elif not needs_choice(state):
            choices[state.id] = {next(iter(state.q)): Fraction(1)}
        elif default:
            choices[state.id] = default_choice(state, default)
            defaulted.append(state.id)
        else:
            hint = missing_hint or "; give --policy-default uniform|optimal to fill missing states"
            raise PolicyError(
                f"{source}: no choice for reachable state {state.id} {state_words(state)}{hint}"
            )
    return Policy(choices, source, default, tuple(defaulted))


def _match_rows(
    oracle: OracleResult, rows: list[tuple[str, dict[str, Any]]], source: str, default: str
) -> Loaded:
    variables = oracle.model.variables
    index = valuation_index(oracle)
    actions = oracle.model.actions
    given: dict[int, dict[str, Fraction]] = {}
    first_row: dict[int, str] = {}
    ignored = outside = 0
    taken = _values_taken(oracle)
    for where, row in rows:
        unknown = [k for k in row if k not in variables and k != ACTION]
        if unknown:
            raise PolicyError(
                f"{where}: unknown variable {unknown[0]!r} (the model's variables:"
                f" {', '.join(variables)})"
            )
        missing = [v for v in variables if v not in row]
        if missing:
            raise PolicyError(f"{where}: no value for variable {missing[0]!r}")
        distribution = parse_distribution(row.get(ACTION), where)
        key = tuple(_key(row[v]) for v in variables)
        state_id = index.get(key)
        if state_id is None:
            outside += _check_cells(key, variables, taken, where)
            for action in distribution:
                if action not in actions:
                    raise PolicyError(
                        f"{where}: unknown action {action!r} (the model's actions:"
                        f" {', '.join(actions)})"
                    )
            ignored += 1
            continue
        if state_id in first_row:
            raise PolicyError(
                f"{where}: state {state_words(oracle.state(state_id))} is already given in"
                f" {first_row[state_id]}"
            )
        first_row[state_id] = where
        check_choice(distribution, oracle.state(state_id), actions, where)
        given[state_id] = distribution
    if ignored:
        beyond = f", {outside} of them outside the values the variables take" if outside else ""
        warn_once(f"{source}: {ignored} rows name no reachable state{beyond}; they are ignored")
    return Loaded(complete(oracle, given, source, default), ignored, outside)


def _values_taken(oracle: OracleResult) -> dict[str, tuple[set[str], bool]]:
    """variable -> (the values its reachable states take, as table text; whether all are
    integers)."""
    found: dict[str, tuple[set[str], bool]] = {}
    for variable in oracle.model.variables:
        values = [s.valuation[variable] for s in oracle.states]
        integer = all(isinstance(v, int) and not isinstance(v, bool) for v in values)
        found[variable] = ({_key(v) for v in values}, integer)
    return found


def _check_cells(key: tuple[str, ...], variables: tuple[str, ...], taken: dict, where: str) -> int:
    """1 when a cell is outside what its variable takes (counted, warned), 0 when the row is
    only unreachable; a non-integer in an integer column is an error naming row and column."""
    outside = 0
    for variable, text in zip(variables, key, strict=True):
        values, integer = taken[variable]
        if integer and not _is_integer(text):
            raise PolicyError(
                f"{where}, column {variable!r}: {text!r} is not an integer ({variable} takes"
                f" integers such as {min(values, key=_number)})"
            )
        if text not in values:
            outside = 1
    return outside


def _is_integer(text: str) -> bool:
    try:
        return int(text) == float(text)
    except (ValueError, OverflowError):
        return False


def _number(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        return 0.0


def read_rows(path: Path) -> list[tuple[str, dict[str, Any]]]:
    """(where, row) pairs of a CSV or JSON policy table, read by the project's one reader of a
    user's files (``json_input``: size limit, UTF-8 checked, JSON depth bounded)."""
    if not path.exists():
        raise PolicyError(f"cannot read policy {path}: no such file")
    data = read_limited(path, limit=MAX_POLICY_BYTES, what="policy table")
    if b"\0" in data[:8192]:
        raise PolicyError(f"{path}: not a text file (expected CSV or JSON)")
    text = text_of(data, str(path))
    if path.suffix.lower() == ".json" or text.lstrip().startswith(("[", "{")):
        return _json_rows(path, text)
    return _csv_rows(path, text)


def _json_rows(path: Path, text: str) -> list[tuple[str, dict[str, Any]]]:
    data = parse(text, str(path), document=True)
    if isinstance(data, dict):
        data = data.get("policy", data.get("states"))
    if not isinstance(data, list):
        raise PolicyError(f'{path}: expected a JSON list of rows (or {{"policy": [...]}})')
    if data and all(
        isinstance(row, dict) and set(row) == {"s", "c"} and isinstance(row["c"], list)
        for row in data
    ):
        return _storm_rows(path, data)
    rows = []
    for number, row in enumerate(data, start=1):
        if not isinstance(row, dict):
            raise PolicyError(f"{path} row {number}: expected an object of variables and action")
        rows.append((f"{path} row {number}", row))
    return rows


def _storm_rows(path: Path, data: list[dict[str, Any]]) -> list[tuple[str, dict[str, Any]]]:
    """A scheduler exported by Storm (``scheduler.to_json_str(model)``, ``storm
    --exportscheduler x.json``): per state ``s`` (its valuation) the choices ``c`` with their
    ``labels`` and ``prob``. Only valuations are trusted: a state named by Storm's number is
    refused, since another build (other constants, options or version) may number states
    differently. Choices without a label (the goal's or a trap's self-loop) are skipped."""
    rows = []
    for number, entry in enumerate(data, start=1):
        where = f"{path} scheduler entry {number}"
        state = entry["s"]
        if not isinstance(state, dict):
            raise PolicyError(
                f"{where}: the state is named by Storm's number ({state!r}), which another build"
                " may give another state; export the scheduler with state valuations"
            )
        choices = entry["c"] if isinstance(entry["c"], list) else []
        distribution: dict[str, Any] = {}
        for choice in choices:
            labels = choice.get("labels") if isinstance(choice, dict) else None
            if not labels:
                continue
            action = "+".join(sorted(str(label) for label in labels))
            distribution[action] = str(choice.get("prob", 1))
        if distribution:
            rows.append((where, {**state, ACTION: distribution}))
    return rows


def _csv_rows(path: Path, text: str) -> list[tuple[str, dict[str, Any]]]:
    lines = [line for line in text.splitlines() if line.strip() and not line.startswith("#")]
    reader = csv.reader(io.StringIO("\n".join(lines)))
    try:
        header = [name.strip() for name in next(reader)]
    except StopIteration:
        raise PolicyError(f"{path}: empty policy table") from None
    if ACTION not in header:
        raise PolicyError(
            f"{path}: the header needs an {ACTION!r} column after the variables (got"
            f" {', '.join(header)})"
        )
    rows = []
    for number, cells in enumerate(reader, start=2):
        if len(cells) != len(header):
            raise PolicyError(
                f"{path} row {number}: {len(cells)} cells, the header has {len(header)}"
            )
        rows.append((f"{path} row {number}", dict(zip(header, cells, strict=True))))
    return rows


def load_policy(path: str | Path, oracle: OracleResult, default: str = "") -> Loaded:
    """The policy in the CSV or JSON table at ``path``, checked against ``oracle``."""
    path = Path(path)
    return _match_rows(oracle, read_rows(path), str(path), default)


PolicyFunction = Callable[[dict[str, Any]], str | Mapping[str, float] | None]


def policy_from_callable(
    function: PolicyFunction, oracle: OracleResult, default: str = "", name: str = "callable"
) -> Policy:
    """The policy of ``function(valuation) -> action | {action: probability} | None`` (None:
    no choice here, filled by ``default``), called once per decision state."""
    actions = oracle.model.actions
    given = {}
    for state in oracle.states:
        if state.is_goal or not state.q:
            continue
        where = f"{name} at state {state.id} {state_words(state)}"
        answer = function(dict(state.valuation))
        if answer is None:
            continue
        distribution = parse_distribution(answer, where)
        check_choice(distribution, state, actions, where)
        given[state.id] = distribution
    return complete(oracle, given, name, default)


TABLE_FORMATS = {".csv": "csv", ".json": "json"}


def table_format(path: str | Path) -> str:
    """The format a policy table's name says (``.csv`` or ``.json``); any other name is
    refused, since a file named ``P.json`` holding CSV is read back by nobody."""
    suffix = Path(path).suffix.lower()
    if suffix not in TABLE_FORMATS:
        raise PolicyError(
            f"{path}: name a policy table .csv or .json (the format is read from the name)"
        )
    return TABLE_FORMATS[suffix]


def write_policy(policy: Policy, oracle: OracleResult, path: str | Path) -> None:
    """The policy as a table that ``load_policy`` reads back (one row per decision state), in
    the format its name says: CSV for ``.csv``, a JSON ``{"policy": [rows]}`` for ``.json``."""
    variables = oracle.model.variables
    rows = [
        (oracle.state(state_id).valuation, choice_text(distribution))
        for state_id, distribution in sorted(policy.choices.items())
    ]

    def write_csv(handle: IO) -> None:
        writer = csv.writer(handle)
        writer.writerow([defused(v) for v in (*variables, ACTION)])
        for valuation, action in rows:
            cells = [_key(valuation[v]) for v in variables] + [action]
            writer.writerow([defused(cell) for cell in cells])

    def write_json(handle: IO) -> None:  # one row per line, as the CSV has
        table = [
            json.dumps({**{v: valuation[v] for v in variables}, ACTION: action}, allow_nan=False)
            for valuation, action in rows
        ]
        handle.write('{"policy": [\n' + ",\n".join(table) + "\n]}\n")

    writer = write_json if table_format(path) == "json" else write_csv
    write_atomically(path, writer, binary=False, newline="")
