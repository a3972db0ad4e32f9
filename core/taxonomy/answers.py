"""The form of an answer: one JSON key and the values it may take.

One ``AnswerForm`` per test case is the single source of the JSON schema sent to the LLM (enums
of the real action names or state letters, so constrained decoding can only produce well-formed
answers), the shape shown in the prompt, the answer space of the random answerer and what the
parser accepts (``parsing.read_value``).
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from typing import Any

PROBABILITY = "probability"  # a number in [0, 1]
NUMBER = "number"  # a number of 0 or more: an expected reward (satisfy under a reward property)
CHOICE = "choice"  # one of ``options``
RANKING = "ranking"  # a permutation of ``options``

YES, NO = "yes", "no"


@dataclass(frozen=True)
class AnswerForm:
    """``{key: value}`` where value is a probability, one option, or a permutation of options."""

    key: str
    kind: str
    options: tuple[str, ...] = ()
    # NUMBER: the range the random answerer draws from (the model's finite values; not in the
    # schema, which tells the LLM nothing about the scale)
    low: float = field(default=0.0, kw_only=True)
    high: float = field(default=1.0, kw_only=True)

    def schema(self) -> dict[str, Any]:
        """JSON schema of the whole reply. Ranking arrays pin minItems/maxItems/uniqueItems:
        without them a small constrained-decoding model loops or repeats actions."""
        if self.kind == PROBABILITY:
            value: dict[str, Any] = {"type": "number", "minimum": 0, "maximum": 1}
        elif self.kind == NUMBER:
            value = {"type": "number", "minimum": 0}
        elif self.kind == CHOICE:
            value = {"type": "string", "enum": list(self.options)}
        elif self.kind == RANKING:
            value = {
                "type": "array",
                "items": {"type": "string", "enum": list(self.options)},
                "minItems": len(self.options),
                "maxItems": len(self.options),
                "uniqueItems": True,
            }
        else:
            raise ValueError(f"unknown answer kind {self.kind!r}")
        return {
            "type": "object",
            "properties": {self.key: value},
            "required": [self.key],
            "additionalProperties": False,
        }

    def shape(self) -> str:
        """The JSON shape the prompt shows after "Respond only with a JSON object of the form"."""
        key = json.dumps(self.key)
        if self.kind == PROBABILITY:
            return "{" + key + ": <a number between 0 and 1>}"
        if self.kind == NUMBER:
            return "{" + key + ": <a number of 0 or more>}"
        if self.kind == CHOICE:
            if len(self.options) == 2:
                choices = " or ".join(self.options)
            else:
                choices = "one of: " + ", ".join(self.options)
            return "{" + key + ': "<' + choices + '>"}'
        return "{" + key + ': ["<best action>", ..., "<worst action>"]}'

    def random(self, rng: random.Random) -> Any:
        """A uniform draw from the answer space (the random baseline answerer)."""
        if self.kind == PROBABILITY:
            return rng.random()
        if self.kind == NUMBER:
            return self.low + (self.high - self.low) * rng.random()
        if self.kind == CHOICE:
            return rng.choice(self.options)
        return rng.sample(self.options, len(self.options))

    def reply(self, value: Any) -> str:
        """The JSON text of a reply with this value (oracle and random answerers)."""
        return json.dumps({self.key: value})


def probability_form() -> AnswerForm:
    return AnswerForm(PROBABILITY, PROBABILITY)


def number_form(low: float, high: float) -> AnswerForm:
    """An expected reward ``{"value": x}``; the random answerer draws from [low, high]."""
    return AnswerForm("value", NUMBER, low=low, high=high)


def yes_no_form() -> AnswerForm:
    return AnswerForm("answer", CHOICE, (YES, NO))


def action_form(actions: tuple[str, ...]) -> AnswerForm:
    return AnswerForm("action", CHOICE, actions)


def ranking_form(actions: tuple[str, ...]) -> AnswerForm:
    return AnswerForm("ranking", RANKING, actions)


def state_form(letters: tuple[str, ...]) -> AnswerForm:
    return AnswerForm("state", CHOICE, letters)
