"""The argument parser of every sub-command: a mistake is one line with the nearest right word.

argparse prints the whole usage (20 lines for ``run``) before its message and suggests nothing:
``invalid choice: 'rnu'`` or ``unrecognized arguments: --budgte``. A user who typed one letter
wrong wants the word they meant, so the message names the input, the nearest command, option or
choice (by ``difflib``), and where the full list is.
"""

from __future__ import annotations

import argparse
import difflib
import re
from typing import NoReturn

from explaincheck.core.terminal_text import safe_terminal

_CHOICE = re.compile(
    r"argument (?P<arg>[^:]+): invalid choice: '(?P<got>[^']*)' \(choose from (?P<options>.*)\)$"
)


def nearest(word: str, candidates: list[str]) -> str | None:
    """The candidate closest to ``word``, if any is close enough to be a likely typo."""
    found = difflib.get_close_matches(word, candidates, n=1, cutoff=0.6)
    return found[0] if found else None


class OneLineParser(argparse.ArgumentParser):
    """An ``ArgumentParser`` whose errors are one line on stderr, exit status 2."""

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
