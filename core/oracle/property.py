"""The property the oracle is computed for: its form, read from PRISM property text or a file.

Why pure Python: the command line, the campaign file and the GUI check a property the moment it
is typed, long before a child process starts Storm, and the one-line errors name what is wrong
(an unsupported form, an unknown name in a ``.props`` file, a step bound without a value).
Storm reads the state formulas themselves later, in the oracle's child, where an unknown label
or variable is placed at its line and column.

The forms (``SUPPORTED``): ``Pmax=?``/``Pmin=?`` of ``[F φ]``, ``[φ U ψ]`` (reach ψ while staying
in φ: the states outside φ are avoided) and ``[F<=k φ]`` (reach φ within k steps), and
``R{"name"}min=?``/``R{"name"}max=?`` of ``[F φ]`` (the expected total reward of the model's
``rewards "name"`` block collected until φ; ``R`` without a name takes the model's only one).
``--goal X`` is the short form of ``Pmax=? [F X]`` (``reach_goal``).

A property file (``.props``/``.pctl``, as the PRISM benchmark suite ships them) holds
statements ending in ``;``: ``"name": formula``, an unnamed formula, ``const int T = 10;``
(a constant a step bound may name) and ``//`` comments. ``FILE:NAME`` picks one by name,
``FILE:N`` the N-th, ``FILE`` alone its only property.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from explaincheck.core.errors import ExplaincheckError, ModelError
from explaincheck.core.oracle.storm.targets import check_target_text

REACH, UNTIL, BOUNDED, REWARD = "reach", "until", "bounded", "reward"
KINDS = (REACH, UNTIL, BOUNDED, REWARD)
MAX, MIN = "max", "min"
DIRECTIONS = (MAX, MIN)

SUPPORTED = (
    "supported properties: Pmax=? or Pmin=? [F φ], [φ U ψ], [F<=k φ];"
    ' R{"name"}min=? or R{"name"}max=? [F φ]'
)
MAX_PROPS_FILE_BYTES = 1_000_000
MAX_BOUND = 10_000  # steps of a deadline: the product with the step counter has (k + 1)·|S| states
PROPS_SUFFIXES = (".props", ".pctl", ".prctl")
VARIABLE_STEPS = "steps left"  # the valuation key of the step counter of a step-bounded property


class PropertyError(ExplaincheckError):
    """A property text or file that cannot be read as one of the supported forms."""


@dataclass(frozen=True)
class Property:
    """One property of a supported form (the ``model.property`` object of ``oracle --json``).

    ``target`` and ``stay`` are state formulas as written in PRISM property syntax (a label in
    quotes, ``"done"``, or an expression, ``s1=12 & s2=12``). ``target_words`` and ``unit_words``
    are how the prompts say them (an environment's ``[[properties]]`` give them; empty: generic
    words from the formula), ``reward_words`` how the rewards add up (its ``[rewards]``, or the
    model's rewards block); they are presentation, not identity (left out of ``==``).
    """

    text: str  # the property in canonical PRISM syntax, e.g. 'R{"time"}min=? [F "done"]'
    kind: str  # REACH, UNTIL, BOUNDED or REWARD
    direction: str  # MAX or MIN
    target: str  # φ of [F φ] and [F<=k φ], ψ of [φ U ψ]
    stay: str | None = None  # φ of [φ U ψ]: the run must stay in it (its complement is avoided)
    bound: int | None = None  # k of [F<=k φ]
    reward: str | None = None  # the rewards block of R{"name"} (None: the model's only one)
    name: str = ""  # the name in a property file ("time_min"), or an environment's property
    target_words: str = field(default="", compare=False)
    unit_words: str = field(default="", compare=False)
    reward_words: str = field(default="", compare=False)  # how the reward adds up, in words

    @property
    def is_reward(self) -> bool:
        return self.kind == REWARD

    @property
    def maximising(self) -> bool:
        return self.direction == MAX

    @property
    def avoid(self) -> str | None:
        """The states the run must avoid on its way (``!φ`` of ``[φ U ψ]``), or None:
        ``!"unsafe" U "goal"`` avoids ``"unsafe"``."""
        if self.stay is None:
            return None
        return negated(self.stay)

    @property
    def stay_label(self) -> str:
        """The label the oracle's states carry where φ of ``[φ U ψ]`` holds: the label's name
        when φ is one quoted label, else the formula's text (the pipeline labels an
        expression's states under its text, as it does a goal's; ``storm/targets.py``)."""
        stay = self.stay or ""
        return label_name(stay) or stay

    @property
    def goal_text(self) -> str:
        """The target as a goal set is named elsewhere (``--goal``, ``OracleRequest``): the
        label's name when the target is one quoted label, else the expression."""
        return label_name(self.target) or self.target

    @property
    def reaches_goal(self) -> bool:
        """Whether this is ``Pmax=? [F φ]``, the property every older campaign was asked about
        (``--goal φ``): its questions keep their words (``taxonomy.property_words``)."""
        return self.kind == REACH and self.direction == MAX

    def to_json(self) -> dict[str, Any]:
        """``model.property`` of ``oracle --json``: ``{text, kind, direction, reward, bound}``
        (DESIGN.md, round 5) plus the target, the avoided states and the name."""
        return {
            "text": self.text,
            "kind": self.kind,
            "direction": self.direction,
            "reward": self.reward,
            "bound": self.bound,
            "target": self.target,
            "avoid": self.avoid,
            "name": self.name,
        }

    def stored(self) -> dict[str, Any]:
        """Every field, for the oracle cache (``from_stored`` reads it back)."""
        return {
            "text": self.text,
            "kind": self.kind,
            "direction": self.direction,
            "target": self.target,
            "stay": self.stay,
            "bound": self.bound,
            "reward": self.reward,
            "name": self.name,
            "target_words": self.target_words,
            "unit_words": self.unit_words,
            "reward_words": self.reward_words,
        }

    @classmethod
    def from_stored(cls, data: Mapping[str, Any]) -> Property:
        found = cls(
            str(data["text"]), str(data["kind"]), str(data["direction"]), str(data["target"])
        )
        return replace(
            found,
            stay=data.get("stay"),
            bound=data.get("bound"),
            reward=data.get("reward"),
            name=str(data.get("name") or ""),
            target_words=str(data.get("target_words") or ""),
            unit_words=str(data.get("unit_words") or ""),
            reward_words=str(data.get("reward_words") or ""),
        )

    def key(self) -> str:
        """What the oracle cache and a campaign's identity hold of this property: its canonical
        text (the name and the words change no value)."""
        return self.text


def reach_goal(goal: str, labels: tuple[str, ...] | None = None) -> Property:
    """``--goal X`` as a property: ``Pmax=? [F X]``. ``X`` is a label's name or an expression;
    a name is quoted as a label when ``labels`` holds it (or when no labels are known and it is
    a bare identifier, as a label name is)."""
    bare = _IDENTIFIER.fullmatch(goal.strip()) is not None
    is_label = goal in labels if labels is not None else bare
    target = f'"{goal}"' if is_label else f"({goal.strip()})"
    return Property(f"Pmax=? [F {target}]", REACH, MAX, target)


def negated(formula: str) -> str:
    """``!φ`` written simply: ``!"x"`` -> ``"x"``, ``!(a & b)`` -> ``a & b``, else ``!(φ)``."""
    text = formula.strip()
    if text.startswith("!"):
        inner = text[1:].strip()
        if _ONE_LABEL.fullmatch(inner) or _IDENTIFIER.fullmatch(inner):
            return inner
        if inner.startswith("(") and inner.endswith(")") and _closes_at_end(inner):
            return inner[1:-1].strip()
    if _ONE_LABEL.fullmatch(text) or _IDENTIFIER.fullmatch(text):
        return f"!{text}"
    if text.startswith("(") and _closes_at_end(text):
        return f"!{text}"
    return f"!({text})"


def _closes_at_end(text: str) -> bool:
    """Whether the '(' at the start of ``text`` closes at its end (``(a) & (b)`` does not)."""
    return all(
        depth > 0 or index == len(text) - 1
        for index, ch, depth, quoted in _scan(text)
        if ch == ")" and not quoted
    )


def _scan(text: str) -> Iterator[tuple[int, str, int, bool]]:
    """(index, character, parenthesis depth after it, inside quotes) along ``text``."""
    depth = 0
    quoted = False
    for index, ch in enumerate(text):
        if ch == '"':
            quoted = not quoted
        elif not quoted and ch == "(":
            depth += 1
        elif not quoted and ch == ")":
            depth -= 1
        yield index, ch, depth, quoted


def label_name(formula: str) -> str | None:
    """The label's name when ``formula`` is one quoted label (``"done"``), else None."""
    match = _ONE_LABEL.fullmatch(formula.strip())
    return match.group(1) if match else None


# ---------------------------------------------------------------------------------------------
# property text

_IDENTIFIER = re.compile(r"[A-Za-z_]\w*")
_ONE_LABEL = re.compile(r'"([^"]*)"')
_HEAD = re.compile(
    r"""\s*(?P<op>[A-Za-z_]\w*)      # P, Pmax, R, Rmin, ... (split below)
        \s*(?:\{\s*(?P<reward>[^}]*)\})? # R{"name"}
        \s*(?P<dir>min|max)?
        \s*(?P<query>=\s*\?|[<>]=?\s*[^\[]*)?
        \s*\[""",
    re.VERBOSE,
)
_WORD_AT = re.compile(r"[A-Za-z_]\w*")


def parse_property(
    text: str,
    *,
    name: str = "",
    constants: Mapping[str, Any] | None = None,
    where: str = "",
) -> Property:
    """``text`` as a ``Property``, or a ``PropertyError`` naming what is wrong in one line.

    ``constants`` give the values a step bound may name (``F<=T``); ``where`` prefixes the
    message (a file and line)."""
    prefix = f"{where}: " if where else ""

    def fail(problem: str) -> PropertyError:
        return PropertyError(f"{prefix}{problem}")

    if not isinstance(text, str) or not text.strip():
        raise fail(f"the property is empty ({SUPPORTED})")
    try:  # the limits of every expression a user gives (characters, terms, nesting), so a
        # huge or deeply nested property never reaches Storm's recursive parser in the child
        check_target_text(text, "property")
    except ModelError as error:
        raise fail(str(error)) from None
    if any(ord(ch) < 32 and ch not in "\t\n\r" for ch in text):
        raise fail("the property holds control characters")
    body = text.strip().rstrip(";").strip()
    operator, reward, direction, rest = _head(body, fail)
    if not rest.endswith("]"):
        raise fail(f"the property must end with ']' ({SUPPORTED})")
    path = rest[:-1].strip()
    _check_balanced(path, fail)
    if operator == "P":
        if reward is not None:
            raise fail('a reward name {"..."} belongs to R, not P')
        kind, target, stay, bound = _probability_path(path, fail, constants or {})
    else:
        kind, target, stay, bound = REWARD, _reward_path(path, fail), None, None
    head = "P" if operator == "P" else ("R" + (f'{{"{reward}"}}' if reward else ""))
    canonical = f"{head}{direction}=? [{_path_text(kind, target, stay, bound)}]"
    return Property(canonical, kind, direction, target, stay, bound, reward, name)


def _head(body: str, fail: Any) -> tuple[str, str | None, str, str]:
    """(P or R, the reward name, max or min, the text from '[' on)."""
    match = _HEAD.match(body)
    if match is None:
        if body.startswith(("multi", "filter")):
            raise fail(f"multi-objective and filtered queries are not supported ({SUPPORTED})")
        raise fail(f"not a property of a supported form ({SUPPORTED})")
    word = match.group("op")
    direction = match.group("dir")
    for operator in ("P", "R"):
        if word in (operator + MAX, operator + MIN):  # "Pmax" read as one word
            word, direction = operator, word[1:]
    if word not in ("P", "R"):
        raise fail(f"{word!r} is not a supported operator ({SUPPORTED})")
    query = re.sub(r"\s+", "", match.group("query") or "")
    if query != "=?":
        shown = query or "nothing"
        raise fail(
            f"only queries are supported ({word}max=? or {word}min=?), not {shown!r} ({SUPPORTED})"
        )
    if direction not in DIRECTIONS:
        raise fail(
            f"{word}=? needs min or max on an MDP ({word}max=? or {word}min=?): the value depends"
            " on how the agent acts"
        )
    reward = None
    if match.group("reward") is not None:
        inside = match.group("reward").strip()
        found = _ONE_LABEL.fullmatch(inside)
        if found is None or not found.group(1).strip():
            raise fail(f'the reward name must be written R{{"name"}}, not R{{{inside}}}')
        reward = found.group(1)
    return word, reward, direction, body[match.end() :].strip()


def _probability_path(
    path: str, fail: Any, constants: Mapping[str, Any]
) -> tuple[str, str, str | None, int | None]:
    """(kind, target, stay, bound) of the path formula of a P query."""
    operator = _leading_operator(path)
    if operator == "F":
        rest = path[1:].strip()
        bound = None
        if rest.startswith("<="):
            rest = rest[2:].strip()
            found = re.match(r"[A-Za-z_]\w*|\d+", rest)
            if found is None:
                raise fail("F<= needs a whole number of steps, e.g. F<=10")
            bound = _bound(found.group(), fail, constants)
            rest = rest[found.end() :].strip()
        elif rest.startswith(("<", ">", "[")):
            raise fail(f"only an upper step bound F<=k is supported ({SUPPORTED})")
        target = _state_formula(rest, fail)
        return (BOUNDED if bound is not None else REACH), target, None, bound
    if operator in ("G", "X", "W", "R"):
        raise fail(f"the path operator {operator} is not supported ({SUPPORTED})")
    split = _top_level_until(path)
    if split is None:
        raise fail(f"the path must be F φ, φ U ψ or F<=k φ ({SUPPORTED})")
    left, right = path[:split].strip(), path[split + 1 :].strip()
    if right.startswith(("<", ">", "[")):
        raise fail(f"a step-bounded until is not supported; use F<=k φ ({SUPPORTED})")
    return UNTIL, _state_formula(right, fail), _state_formula(left, fail), None


def _reward_path(path: str, fail: Any) -> str:
    if _leading_operator(path) != "F":
        raise fail(f"a reward property must be R...=? [F φ] ({SUPPORTED})")
    rest = path[1:].strip()
    if rest.startswith(("<", ">", "[")):
        raise fail(f"a step-bounded reward is not supported ({SUPPORTED})")
    return _state_formula(rest, fail)


def _leading_operator(path: str) -> str | None:
    """The path operator the formula starts with (F, G, X, ...), or None."""
    match = _WORD_AT.match(path)
    if match is None:
        return None
    word = match.group()
    return word if word in ("F", "G", "X", "W", "R", "U") else None


def _state_formula(text: str, fail: Any) -> str:
    formula = re.sub(r"\s+", " ", text).strip()
    if not formula:
        raise fail("a state formula is missing (a label in quotes or an expression)")
    if "[" in formula or "]" in formula:
        raise fail(f"a nested P or R operator is not supported ({SUPPORTED})")
    return formula


def _bound(word: str, fail: Any, constants: Mapping[str, Any]) -> int:
    if word.isdigit():
        value: Any = int(word)
    elif word in constants:
        value = constants[word]
    else:
        raise fail(
            f"the step bound {word} of F<={word} has no value: define it in the property file"
            f" (const int {word} = 10;) or give --const {word}=10"
        )
    if isinstance(value, bool) or not isinstance(value, int):
        try:
            value = int(str(value))
        except ValueError:
            raise fail(f"the step bound {word} must be a whole number, not {value!r}") from None
    if not 0 <= value <= MAX_BOUND:
        raise fail(f"the step bound must lie between 0 and {MAX_BOUND:,}, not {value}")
    return int(value)


def _check_balanced(path: str, fail: Any) -> None:
    depth, quoted = 0, False
    for step in _scan(path):
        depth, quoted = step[2], step[3]
        if depth < 0:
            raise fail("the property has a ')' without its '('")
    if quoted:
        raise fail('the property has an unclosed quote "')
    if depth:
        raise fail("the property has a '(' without its ')'")


def _top_level_until(path: str) -> int | None:
    """The position of the top-level ``U`` of ``φ U ψ`` (outside quotes and parentheses)."""
    for index, ch, depth, quoted in _scan(path):
        if ch == "U" and depth == 0 and not quoted:
            before = path[index - 1] if index else " "
            after = path[index + 1] if index + 1 < len(path) else " "
            if not (before.isalnum() or before == "_") and not (after.isalnum() or after == "_"):
                return index
    return None


def _path_text(kind: str, target: str, stay: str | None, bound: int | None) -> str:
    if kind == UNTIL:
        return f"{stay} U {target}"
    if kind == BOUNDED:
        return f"F<={bound} {target}"
    return f"F {target}"


# ---------------------------------------------------------------------------------------------
# property files and --property


@dataclass(frozen=True)
class PropsEntry:
    """One property statement of a file: its name ("" when unnamed), text and line."""

    name: str
    text: str
    line: int


@dataclass(frozen=True)
class PropsFile:
    """A ``.props``/``.pctl`` file read: its properties and its constants (None: undefined)."""

    path: str
    entries: tuple[PropsEntry, ...]
    constants: dict[str, str | None]

    @property
    def undefined(self) -> tuple[str, ...]:
        """The constants the file declares without a value: a step bound naming one needs it
        given (``--const``)."""
        return tuple(name for name, value in self.constants.items() if value is None)


_CONST = re.compile(r"const\s+(?:int|double|bool)?\s*([A-Za-z_]\w*)\s*(?:=\s*(.+))?$", re.S)
_NAMED = re.compile(r'"([^"]+)"\s*:\s*(.+)$', re.S)


def read_props_file(path: str | Path) -> PropsFile:
    """The properties and constants of a property file; a missing, binary or huge file, a
    label definition (Storm's parser has none for property files here) or a duplicate name is
    one line naming the file and line."""
    path = Path(path)
    try:
        with path.open("rb") as handle:
            data = handle.read(MAX_PROPS_FILE_BYTES + 1)
    except FileNotFoundError:
        raise PropertyError(f"{path}: no such property file") from None
    except IsADirectoryError:
        raise PropertyError(f"{path}: is a folder, not a property file") from None
    except OSError as error:
        raise PropertyError(f"{path}: cannot read ({error.strerror})") from None
    if len(data) > MAX_PROPS_FILE_BYTES:
        raise PropertyError(f"{path}: larger than {MAX_PROPS_FILE_BYTES:,} bytes")
    if b"\0" in data:
        raise PropertyError(f"{path}: a binary file, not a property file")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise PropertyError(f"{path}: not UTF-8 text (byte {error.start})") from None
    entries: list[PropsEntry] = []
    constants: dict[str, str | None] = {}
    for statement, line in _statements(text):
        where = f"{path}:{line}"
        if statement.startswith("const ") or statement.startswith("const\t"):
            found = _CONST.match(statement)
            if found is None:
                raise PropertyError(f"{where}: cannot read the constant {statement!r}")
            value = found.group(2)
            constants[found.group(1)] = value.strip() if value else None
            continue
        if statement.startswith("label "):
            raise PropertyError(
                f"{where}: labels in a property file are not supported; define the label in"
                " the model or write its expression into the property"
            )
        named = _NAMED.match(statement)
        name, formula = (named.group(1).strip(), named.group(2)) if named else ("", statement)
        if name and any(e.name == name for e in entries):
            raise PropertyError(f"{where}: the name {name!r} is used twice")
        entries.append(PropsEntry(name, formula.strip(), line))
    if not entries:
        raise PropertyError(f"{path}: no property in the file")
    return PropsFile(str(path), tuple(entries), constants)


def _statements(text: str) -> list[tuple[str, int]]:
    """The file's statements (``;``-separated, ``//`` comments dropped) with their first line."""
    found: list[tuple[str, int]] = []
    current: list[str] = []
    start = 0
    quoted = False
    for number, raw in enumerate(text.splitlines(), start=1):
        line = _without_comment(raw)
        for ch in line:
            if ch == '"':
                quoted = not quoted
            if ch == ";" and not quoted:
                statement = "".join(current).strip()
                if statement:
                    found.append((_spaced(statement), start))
                current = []
                continue
            if not current and not ch.strip():
                continue
            if not current:
                start = number
            current.append(ch)
        if current:
            current.append(" ")
    statement = "".join(current).strip()
    if statement:
        found.append((_spaced(statement), start))
    return found


def _without_comment(line: str) -> str:
    quoted = False
    for index, ch in enumerate(line):
        if ch == '"':
            quoted = not quoted
        elif not quoted and line.startswith("//", index):
            return line[:index]
    return line


def _spaced(statement: str) -> str:
    return re.sub(r"\s+", " ", statement).strip()


def is_props_path(text: str) -> bool:
    """Whether ``--property`` names a property file (``FILE.props``, ``FILE.pctl:NAME``)."""
    head = split_props_spec(text)[0]
    return head.lower().endswith(PROPS_SUFFIXES)


def split_props_spec(text: str) -> tuple[str, str]:
    """(``FILE``, ``NAME``) of ``FILE:NAME`` (the name after the last ':' that follows the
    file's suffix), or (text, "")."""
    for suffix in PROPS_SUFFIXES:
        index = text.lower().rfind(suffix + ":")
        if index >= 0:
            end = index + len(suffix)
            return text[:end], text[end + 1 :]
    return text, ""


@dataclass(frozen=True)
class ResolvedProperty:
    """``--property`` resolved: the property, and the constants of ``--const`` that belong to
    the property file rather than the model (the model must not be given them)."""

    property: Property
    property_constants: tuple[str, ...] = ()


def resolve_property(
    spec: str,
    *,
    constants: str = "",
    named: Mapping[str, Property] | None = None,
) -> ResolvedProperty:
    """What ``--property SPEC`` means: a property file (``FILE[:NAME]``), the name of one of
    the environment's own properties (``named``), or property text. ``constants`` is the
    ``--const`` text (values a step bound may name)."""
    from explaincheck.core.oracle.constants_text import constant_parts

    spec = spec.strip() if isinstance(spec, str) else ""
    if not spec:
        raise PropertyError(f"--property is empty ({SUPPORTED})")
    try:
        given = dict(constant_parts(constants))
    except ValueError as error:
        raise PropertyError(str(error)) from None
    if named and spec in named:
        return ResolvedProperty(named[spec])
    if is_props_path(spec):
        return _from_file(spec, given)
    if _IDENTIFIER.fullmatch(spec) and not spec.startswith(("P", "R")):
        known = ", ".join(named) if named else ""
        raise PropertyError(
            f"--property {spec!r} is no property of this model"
            + (f" (its properties: {known})" if known else "")
            + f"; give PRISM property text or FILE.props[:NAME] ({SUPPORTED})"
        )
    return ResolvedProperty(parse_property(spec, constants=given))


def _from_file(spec: str, given: Mapping[str, str]) -> ResolvedProperty:
    path, wanted = split_props_spec(spec)
    found = read_props_file(Path(path).expanduser())
    values: dict[str, Any] = {k: v for k, v in found.constants.items() if v is not None}
    values.update({k: v for k, v in given.items() if k in found.constants})
    entry = _pick(found, wanted)
    where = f"{path}:{entry.line}"
    missing = [c for c in found.undefined if c not in given and c in _words_of(entry.text)]
    if missing:
        raise PropertyError(
            f"{where}: the property needs the constant {', '.join(missing)}, which the file does"
            f" not define: give --const {','.join(f'{m}=...' for m in missing)}"
        )
    parsed = parse_property(entry.text, name=entry.name, constants=values, where=where)
    return ResolvedProperty(parsed, tuple(k for k in given if k in found.constants))


def _words_of(text: str) -> set[str]:
    return set(_IDENTIFIER.findall(re.sub(r'"[^"]*"', "", text)))


def _pick(found: PropsFile, wanted: str) -> PropsEntry:
    names = [e.name or str(i) for i, e in enumerate(found.entries, start=1)]
    if not wanted:
        if len(found.entries) == 1:
            return found.entries[0]
        raise PropertyError(
            f"{found.path} holds {len(found.entries)} properties: pick one with"
            f" {found.path}:NAME (names: {', '.join(names)})"
        )
    for index, entry in enumerate(found.entries, start=1):
        if wanted in (entry.name, str(index)):
            return entry
    raise PropertyError(f"{found.path} has no property {wanted!r} (names: {', '.join(names)})")


def without_constants(constants: str, names: tuple[str, ...]) -> str:
    """``--const`` text without the constants that belong to a property file."""
    if not names:
        return constants
    from explaincheck.core.oracle.constants_text import constant_parts

    kept = [f"{k}={v}" for k, v in constant_parts(constants) if k not in names]
    return ",".join(kept)
