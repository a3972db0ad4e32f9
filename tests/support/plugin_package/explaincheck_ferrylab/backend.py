"""An answerer that always gives the first option of the answer schema (``first``).

It reads only the schema explaincheck sends with every prompt (docs/plugins.md, "The answer
schema"): the first value of an enum, the first ``maxItems`` values of an array of enums in the
order listed, the minimum of a number. A weak model with a position bias, in one rule.
"""

from __future__ import annotations

import json
from typing import Any

from explaincheck.core.backends.base import Backend, Reply
from explaincheck.core.backends.registry import BackendContext, BackendKind
from explaincheck.core.taxonomy.base import Prompt, TestCase


def first_value(schema: dict[str, Any]) -> Any:
    """The first admissible value of one property's schema."""
    if "enum" in schema:
        return schema["enum"][0]
    if schema.get("type") == "array":
        options = first_value_list(schema["items"])
        return options[: schema.get("maxItems", len(options))]
    if schema.get("type") in ("number", "integer"):
        return schema.get("minimum", 0)
    return ""


def first_value_list(schema: dict[str, Any]) -> list[Any]:
    return list(schema.get("enum", []))


class FirstOption(Backend):
    """Replies with the first option of every property of the answer schema."""

    concurrency = 16

    async def answer(self, prompt: Prompt, case: TestCase) -> Reply:
        properties = prompt.schema.get("properties", {})
        answer = {key: first_value(value) for key, value in properties.items()}
        return Reply(text=json.dumps(answer))


def _build(argument: str, context: BackendContext) -> Backend:
    return FirstOption()


KIND = BackendKind("first", _build, "always the first option (a position bias)", instant=True)
