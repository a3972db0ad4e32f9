"""The argument parser of every sub-command: a mistake is one line with the nearest right word.

argparse prints the whole usage (20 lines for ``run``) before its message and suggests nothing:
``invalid choice: 'rnu'`` or ``unrecognized arguments: --budgte``. A user who typed one letter
wrong wants the word they meant, so the message names the input, the nearest command, option or
choice (by ``difflib``), and where the full list is.

An option that takes one value and is given twice is refused (``StoreOnce``): argparse's own
``store`` keeps the last value without a word, so ``run --env frozen_lake --env water_jug``
once ran water_jug alone. Options that take several values say so with ``action="append"``.
"""

from __future__ import annotations

import argparse
import difflib
import re
from typing import Any, NoReturn

from explaincheck.core.terminal_text import safe_terminal

_CHOICE = re.compile(
    r"argument (?P<arg>[^:]+): invalid choice: '(?P<got>[^']*)' \(choose from (?P<options>.*)\)$"
)


def nearest(word: str, candidates: list[str]) -> str | None:
    """The candidate closest to ``word``, if any is close enough to be a likely typo."""
    found = difflib.get_close_matches(word, candidates, n=1, cutoff=0.6)
    return found[0] if found else None


_GIVEN_ONCE = "_given_once"  # the namespace attribute: dests a StoreOnce option has set


class StoreOnce(argparse._StoreAction):
    """argparse's ``store``, refusing a second value in one line instead of keeping the last."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: Any,
        option_string: str | None = None,
    ) -> None:
        given: dict[str, tuple[str, Any]] = getattr(namespace, _GIVEN_ONCE, None) or {}
        if self.dest in given:
            first_option, first = given[self.dest]
            name = option_string or self.dest
            also = "" if first_option == name else f" (as {first_option})"
            parser.error(
                f"{name} takes one value and was given twice{also}: {_shown(first)}, then"
                f" {_shown(values)}"
            )
        setattr(namespace, _GIVEN_ONCE, {**given, self.dest: (option_string or self.dest, values)})
        super().__call__(parser, namespace, values, option_string)


def _shown(value: Any) -> str:
    return " ".join(map(str, value)) if isinstance(value, list | tuple) else str(value)


class OneLineParser(argparse.ArgumentParser):
    """An ``ArgumentParser`` whose errors are one line on stderr, exit status 2, and whose
    single-value options refuse a second value (``StoreOnce``; groups share the registry)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.register("action", None, StoreOnce)
        self.register("action", "store", StoreOnce)

    def error(self, message: str) -> NoReturn:
        self.exit(2, safe_terminal(f"{self.prog}: {self.explain(message)}") + "\n")

    def explain(self, message: str) -> str:
        """argparse's ``message`` with a suggestion and a pointer to ``--help``."""
        hint = f"'{self.prog} --help' lists them"
        choice = _CHOICE.match(message)
        if choice:
            got, arg = choice["got"], choice["arg"]
            options = [o.strip().strip("'") for o in choice["options"].split(",")]
            guess = nearest(got, options)
            if arg == "COMMAND":
                tail = (
                    f"did you mean {guess}?" if guess else f"the commands are {', '.join(options)}"
                )
                return f"unknown command {got!r}: {tail}"
            if guess:
                return f"{arg} {got!r}: did you mean {guess}?"
            return f"{arg} {got!r} is not one of {', '.join(options)}"
        if message.startswith("unrecognized arguments: "):
            words = message.removeprefix("unrecognized arguments: ").split()
            first = words[0]
            if first.startswith("-"):
                option = first.split("=", 1)[0]
                guess = nearest(option, self.option_names())
                tail = f"did you mean {guess}?" if guess else hint.replace("them", "the options")
                return f"unknown option {option}: {tail}"
            return f"unexpected argument {first!r} ({hint.replace('them', 'what it takes')})"
        return f"{message} ({hint.replace('them', 'the options')})"

    def option_names(self) -> list[str]:
        return [s for action in self._actions for s in action.option_strings if s.startswith("--")]
