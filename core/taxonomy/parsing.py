"""Reading an LLM reply as an answer of a given ``AnswerForm``; never raises.

Replies are untrusted text and real models wrap their answers in many ways, so reading goes in two
steps. ``find_value`` locates the raw value of the answer key: ``<think>…</think>`` blocks are
dropped, JSON is looked for as the whole reply, in markdown fences or anywhere in prose (the last
object that holds the key wins, since reasoning models put the answer last), with key matching
that ignores case; without JSON a ``key: value`` line or a bare value is accepted. ``read_value``
then turns the raw value into the canonical answer: action names and state letters match
regardless of case, surrounding spaces and ``_``/``-``/space differences; probabilities may be
``0.7``, ``"0.7"``, ``"70%"`` or ``"7/10"``. Whatever still cannot be read is returned as a reason,
which grading turns into verdict ``invalid``. Nothing here evaluates the text.
"""

from __future__ import annotations

import bisect
import json
import math
import re
from dataclasses import dataclass
from typing import Any

from explaincheck.core.taxonomy.answers import (
    CHOICE,
    NUMBER,
    PROBABILITY,
    RANKING,
    YES,
    AnswerForm,
)

MAX_REPLY_CHARS = 100_000  # longer replies are cut before searching (bounded work per reply)
MAX_JSON_STARTS = 2_000  # at most this many '{' / '[' positions are tried as JSON starts
# Keys that carry reasoning, never the answer (skipped when guessing the answer key).
REASONING_KEYS = frozenset(
    {"thinking", "thought", "thoughts", "reasoning", "reason", "explanation", "rationale"}
    | {"analysis", "justification", "confidence", "notes", "comment"}
)

_THINK_TAG = re.compile(r"</?(think|thinking|reasoning)>", re.IGNORECASE)
_THINK_CLOSE = re.compile(r"</(think|thinking|reasoning)>", re.IGNORECASE)
_FENCE = re.compile(r"```[a-zA-Z0-9_-]*\s*\n?(.*?)```", re.DOTALL)
_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")
_APPROX = re.compile(r"^(?:~|≈|about|approximately|approx\.?|around|roughly|p\s*=)\s*", re.I)
_SEPARATORS = re.compile(r"[\s_\-]+")
_MISSING = object()


@dataclass(frozen=True)
class Parsed:
    """A reply read as an answer: ``value`` is canonical (JSON-friendly) or ``reason`` says why
    it could not be read."""

    value: Any = None
    reason: str = ""

    @property
    def ok(self) -> bool:
        return not self.reason


def parse_reply(text: Any, form: AnswerForm) -> Parsed:
    """The answer in ``text`` as ``form`` asks for it, or the reason it cannot be read."""
    try:
        custom = getattr(form, "read_reply", None)  # a form of several keys reads itself
        if custom is not None:
            return custom(text)
        raw, reason = find_value(text, form.key)
        if reason:
            return Parsed(reason=reason)
        return read_value(form, raw)
    except Exception as exc:  # untrusted input must never crash grading
        return Parsed(reason=f"unreadable reply ({type(exc).__name__})")


def strip_thinking(text: str) -> str:
    """The reply without reasoning blocks; after an unmatched closing tag only the rest counts.

    Linear time (one pass over the tags; a regex with a lazy ``.*?`` and a back-reference was
    quadratic on thousands of unclosed ``<think>`` tags): a block runs from an opening tag to
    the next closing tag of the same name; opening tags that no closing tag follows stay."""
    tags = list(_THINK_TAG.finditer(text))
    if not tags:
        return text
    closes: dict[str, list[int]] = {}  # tag name -> indexes (into ``tags``) of closing tags
    for index, tag in enumerate(tags):
        if tag.group().startswith("</"):
            closes.setdefault(tag.group(1).lower(), []).append(index)
    pieces: list[str] = []
    kept: list[re.Match[str]] = []  # tags left outside every block
    position, index = 0, 0
    while index < len(tags):
        tag = tags[index]
        name = tag.group(1).lower()
        if not tag.group().startswith("</"):
            candidates = closes.get(name, [])
            after = bisect.bisect_right(candidates, index)
            if after < len(candidates):
                close = tags[candidates[after]]
                pieces.append(text[position : tag.start()])
                pieces.append(" ")
                position = close.end()
                index = candidates[after] + 1
                continue
        kept.append(tag)
        index += 1
    pieces.append(text[position:])
    text = "".join(pieces)
    if any(tag.group().startswith("</") for tag in kept):
        closing = [m.end() for m in _THINK_CLOSE.finditer(text)]
        text = text[closing[-1] :]
    return _THINK_TAG.sub(" ", text)


def find_value(text: Any, key: str) -> tuple[Any, str]:
    """(raw value of ``key``, "") or (None, reason)."""
    if not isinstance(text, str):
        return None, "the reply is not text"
    text = strip_thinking(text[:MAX_REPLY_CHARS]).strip()
    if not text:
        return None, "empty reply"
    found = json_values(text)
    for value in reversed(found):
        hit = lookup(value, key)
        if hit is not _MISSING:
            return hit, ""
    for value in reversed(found):
        if isinstance(value, dict):
            keys = [k for k in value if _norm(str(k)) not in REASONING_KEYS]
            if len(keys) == 1:
                return value[keys[0]], ""
    if len(found) == 1 and not isinstance(found[0], dict) and found[0] is not None:
        return found[0], ""  # a bare JSON value such as 0.7, "up" or ["up", "down"]
    if found:
        return None, f'the JSON in the reply has no "{key}" field'
    line = re.search(rf"[\"']?{re.escape(key)}[\"']?\s*[:=]\s*(.+)", text, re.IGNORECASE)
    if line:
        return _unquote(line.group(1)), ""
    if len(text) <= 80 and "\n" not in text:
        return _unquote(text), ""  # a bare answer such as: yes
    return None, "no JSON object in the reply"


def json_values(text: str) -> list[Any]:
    """Every JSON value the text holds, in order: the whole text, fenced blocks, or objects and
    arrays embedded in prose (single-quoted Python-style objects are retried with double quotes)."""
    whole = _loads(text)
    if whole is not _MISSING:
        return [whole]
    fenced = [_loads(block.strip()) for block in _FENCE.findall(text)]
    fenced = [v for v in fenced if v is not _MISSING]
    if fenced:
        return fenced
    found = _embedded(text)
    if not found and "'" in text:
        found = [v for v in _embedded(text.replace("'", '"')) if isinstance(v, dict)]
    return found


def _loads(text: str) -> Any:
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return _MISSING


def _embedded(text: str) -> list[Any]:
    decoder = json.JSONDecoder()
    found: list[Any] = []
    position, tries = 0, 0
    while tries < MAX_JSON_STARTS:
        starts = [i for i in (text.find("{", position), text.find("[", position)) if i >= 0]
        if not starts:
            break
        start = min(starts)
        tries += 1
        try:
            value, end = decoder.raw_decode(text, start)
        except (ValueError, RecursionError):
            position = start + 1
            continue
        if isinstance(value, dict | list):
            found.append(value)
        position = end
    return found


def lookup(value: Any, key: str, depth: int = 0) -> Any:
    """The value of ``key`` (case-insensitive) in a JSON value, searching nested objects."""
    if depth > 4:
        return _MISSING
    wanted = _norm(key)
    if isinstance(value, dict):
        for k, v in value.items():
            if _norm(str(k)) == wanted:
                return v
        children = list(value.values())
    elif isinstance(value, list):
        children = value
    else:
        return _MISSING
    for child in children:
        if isinstance(child, dict | list):
            hit = lookup(child, key, depth + 1)
            if hit is not _MISSING:
                return hit
    return _MISSING


def read_value(form: AnswerForm, raw: Any) -> Parsed:
    """Turn a raw value into the canonical answer of ``form``."""
    if form.kind == PROBABILITY:
        return read_probability(raw)
    if form.kind == NUMBER:
        return read_number(raw)
    if form.kind == CHOICE:
        return read_choice(raw, form.options)
    if form.kind == RANKING:
        return read_ranking(raw, form.options)
    return Parsed(reason=f"unknown answer kind {form.kind}")


def read_probability(raw: Any) -> Parsed:
    if isinstance(raw, bool) or raw is None:
        return Parsed(reason=f"{_show(raw)} is not a probability")
    number: float | None
    if isinstance(raw, int | float):
        number = float(raw)
    elif isinstance(raw, str):
        number = _number_from_text(raw)
        if number is None:
            return Parsed(reason=f"{_show(raw)} is not a probability")
    else:
        return Parsed(reason=f"{_show(raw)} is not a probability")
    if not math.isfinite(number) or not 0.0 <= number <= 1.0:
        return Parsed(reason=f"probability {_show(raw)} is outside [0, 1]")
    return Parsed(value=number)


def read_number(raw: Any) -> Parsed:
    """A number of 0 or more (an expected reward): ``12.5``, ``"12.5"``, ``"25/2"``,
    ``"about 12"``; no percentages (a reward is not a share)."""
    if isinstance(raw, bool) or raw is None:
        return Parsed(reason=f"{_show(raw)} is not a number")
    number: float | None
    if isinstance(raw, int | float):
        number = float(raw)
    elif isinstance(raw, str) and not raw.strip().endswith("%"):
        number = _number_from_text(raw)
    else:
        number = None
    if number is None:
        return Parsed(reason=f"{_show(raw)} is not a number")
    if not math.isfinite(number) or number < 0:
        return Parsed(reason=f"{_show(raw)} is not a number of 0 or more")
    return Parsed(value=number)


def _number_from_text(text: str) -> float | None:
    text = _APPROX.sub("", _unquote(text)).strip()
    fraction = re.fullmatch(r"(\d+)\s*/\s*(\d+)", text)
    if fraction:
        denominator = int(fraction.group(2))
        return int(fraction.group(1)) / denominator if denominator else None
    match = re.fullmatch(rf"({_NUMBER.pattern})\s*(%?)", text)
    if not match:
        return None
    number = float(match.group(1))
    return number / 100.0 if match.group(2) else number


def read_choice(raw: Any, options: tuple[str, ...]) -> Parsed:
    """One of ``options``; yes/no also accepts JSON booleans."""
    if isinstance(raw, bool) and YES in options:
        return Parsed(value=YES if raw else "no")
    if isinstance(raw, list) and len(raw) == 1:
        raw = raw[0]
    if not isinstance(raw, str):
        return Parsed(reason=f"{_show(raw)} is not one of {', '.join(options)}")
    match = match_name(raw, options)
    if match is None and YES in options:
        match = {"true": YES, "false": "no", "y": YES, "n": "no"}.get(_norm(raw))
    if match is None:
        return Parsed(reason=f"{_show(raw)} is not one of {', '.join(options)}")
    return Parsed(value=match)


def read_ranking(raw: Any, options: tuple[str, ...]) -> Parsed:
    """A list of options (a string is split at commas, '>' or new lines). Whether it is a
    permutation is left to grading: a readable but incomplete ranking fails, it is not invalid."""
    if isinstance(raw, str):
        loaded = _loads(raw)
        if isinstance(loaded, list):
            raw = loaded
        else:
            raw = [part for part in re.split(r"\s*(?:,|>|;|\n|\bthen\b)\s*", raw) if part.strip()]
    if not isinstance(raw, list) or not raw:
        return Parsed(reason=f"{_show(raw)} is not a list of actions")
    ranking = []
    for item in raw:
        match = match_name(item, options) if isinstance(item, str) else None
        if match is None:
            return Parsed(reason=f"{_show(item)} is not one of {', '.join(options)}")
        ranking.append(match)
    return Parsed(value=ranking)


def match_name(text: str, options: tuple[str, ...]) -> str | None:
    """The option ``text`` names: exactly, ignoring case/quotes/spaces, ignoring ``_``/``-``/space
    differences, or after dropping a 'state'/'action' prefix or a ': meaning' suffix."""
    if text in options:
        return text
    attempts = [text]
    stripped = re.sub(r"^\s*(?:state|action)\s+", "", _unquote(text), flags=re.IGNORECASE)
    attempts.append(stripped)
    attempts.append(re.split(r"[:(]", stripped, maxsplit=1)[0])
    for normal in (_norm, _loose):
        table: dict[str, list[str]] = {}
        for option in options:
            table.setdefault(normal(option), []).append(option)
        for attempt in attempts:
            hits = table.get(normal(attempt), [])
            if len(hits) == 1:
                return hits[0]
    return None


def _unquote(text: str) -> str:
    """Without surrounding quotes/markdown and trailing punctuation ('.5' keeps its point)."""
    return text.strip().strip("\"'`*").rstrip(".,;!").strip().strip("\"'`*").strip()


def _norm(text: str) -> str:
    return " ".join(_unquote(text).casefold().split())


def _loose(text: str) -> str:
    return _SEPARATORS.sub("", _norm(text))


def _show(value: Any) -> str:
    shown = json.dumps(value) if not isinstance(value, str) else json.dumps(value[:60])
    return shown if len(shown) <= 80 else shown[:77] + "..."
