"""User settings kept between runs (QSettings), with typed accessors and defaults.

One place knows the keys, so views never spell them, and tests can point the store at a
temporary INI file (``EXPLAINCHECK_SETTINGS``) instead of the user's real settings.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QByteArray, QSettings

from explaincheck.core.backends.ollama_hosts import redact_url
from explaincheck.core.oracle.types import OracleRequest
from explaincheck.core.workspace.presentation.text_size import NORMAL, clamped

ORGANISATION = "explaincheck"
APPLICATION = "explaincheck"
MAX_RECENT = 10
THEMES = ("system", "light", "dark")
# The local models' llama.cpp binding (core.backends.llama_binding); "automatic" leaves the choice
# to EXPLAINCHECK_LLAMA_BINDING, else the prebuilt xllamacpp.
LLAMA_BINDINGS = ("automatic", "xllamacpp", "llama-cpp-python")


@dataclass
class Preferences:
    """The settings a user edits in the Settings dialog."""

    ollama_host: str = "http://127.0.0.1:11434"
    timeout: float = 120.0
    concurrency: int = 4
    budget: int = 20
    theme: str = "system"
    llama_binding: str = "automatic"
    openai_base_url: str = ""  # an OpenAI-compatible server ("": OPENAI_BASE_URL or none)
    # models with more states are refused (the CLI's --state-limit of oracle and run)
    state_limit: int = OracleRequest.state_limit
    # every view's text, graph labels and plots, in percent of normal (Ctrl+plus, Ctrl+minus)
    text_size: int = NORMAL


class Settings:
    """Typed wrapper over QSettings (native store, or an INI file for tests)."""

    def __init__(self, path: str | None = None) -> None:
        path = path or os.environ.get("EXPLAINCHECK_SETTINGS")
        if path:
            self._store = QSettings(path, QSettings.Format.IniFormat)
        else:
            self._store = QSettings(ORGANISATION, APPLICATION)

    # -- preferences -------------------------------------------------------------------------
    def preferences(self) -> Preferences:
        default = Preferences()
        host = os.environ.get("OLLAMA_HOST") or default.ollama_host
        theme = str(self._store.value("theme", default.theme))
        binding = str(self._store.value("local/binding", default.llama_binding))
        return Preferences(
            ollama_host=redact_url(str(self._store.value("ollama/host", host))),
            timeout=_as_float(self._store.value("ollama/timeout"), default.timeout),
            concurrency=_as_int(self._store.value("ollama/concurrency"), default.concurrency),
            budget=_as_int(self._store.value("campaign/budget"), default.budget),
            theme=theme if theme in THEMES else default.theme,
            llama_binding=binding if binding in LLAMA_BINDINGS else default.llama_binding,
            openai_base_url=redact_url(
                str(self._store.value("openai/base_url", os.environ.get("OPENAI_BASE_URL", "")))
            ),
            state_limit=max(
                1, _as_int(self._store.value("oracle/state_limit"), default.state_limit)
            ),
            text_size=clamped(_as_int(self._store.value("view/text_size"), default.text_size)),
        )

    def save_preferences(self, prefs: Preferences) -> None:
        # never a user name, key or token in the settings file (the CLI refuses them too)
        self._store.setValue("ollama/host", redact_url(prefs.ollama_host))
        self._store.setValue("ollama/timeout", float(prefs.timeout))
        self._store.setValue("ollama/concurrency", int(prefs.concurrency))
        self._store.setValue("campaign/budget", int(prefs.budget))
        self._store.setValue("theme", prefs.theme)
        self._store.setValue("local/binding", prefs.llama_binding)
        self._store.setValue("openai/base_url", redact_url(prefs.openai_base_url))
        self._store.setValue("oracle/state_limit", int(prefs.state_limit))
        self.save_text_size(prefs.text_size)

    def save_text_size(self, percent: int) -> None:
        """The presentation size, as Ctrl+plus/minus or Settings left it."""
        self._store.setValue("view/text_size", clamped(percent))
        self._store.sync()

    # -- recent files ------------------------------------------------------------------------
    def recent_files(self) -> list[str]:
        value: Any = self._store.value("recent/files", [])
        if isinstance(value, str):
            value = [value]
        return [str(v) for v in (value or []) if v]

    def add_recent_file(self, path: str) -> list[str]:
        path = _absolute(path)  # a relative path would mean another file from another folder
        files = [path] + [p for p in self.recent_files() if p != path]
        files = files[:MAX_RECENT]
        self._store.setValue("recent/files", files)
        return files

    def recent_databases(self) -> list[str]:
        value: Any = self._store.value("recent/databases", [])
        if isinstance(value, str):
            value = [value]
        return [str(v) for v in (value or []) if v]

    def add_recent_database(self, path: str) -> None:
        path = _absolute(path)
        files = [path] + [p for p in self.recent_databases() if p != path]
        self._store.setValue("recent/databases", files[:MAX_RECENT])

    # -- facts remembered to show before an oracle runs ----------------------------------------
    def known_size(self, key: str) -> int | None:
        value = self._store.value(f"sizes/{key}")
        return _as_int(value, None) if value is not None else None

    def remember_size(self, key: str, states: int) -> None:
        self._store.setValue(f"sizes/{key}", int(states))

    # -- the campaign set-up last used ----------------------------------------------------------
    def campaign_choices(self) -> dict:
        """LLMs, categories, budget, selection, seed, repeat… as last set (empty if none)."""
        raw = self._store.value("campaign/choices")
        try:
            value = json.loads(str(raw)) if raw else {}
        except ValueError:
            return {}
        return value if isinstance(value, dict) else {}

    def save_campaign_choices(self, choices: dict) -> None:
        self._store.setValue("campaign/choices", json.dumps(choices))
        self._store.sync()

    # -- window state --------------------------------------------------------------------------
    def window_state(self) -> tuple[QByteArray | None, QByteArray | None]:
        geometry = self._store.value("window/geometry")
        state = self._store.value("window/state")
        return (
            geometry if isinstance(geometry, QByteArray) else None,
            state if isinstance(state, QByteArray) else None,
        )

    def save_window_state(self, geometry: QByteArray, state: QByteArray) -> None:
        self._store.setValue("window/geometry", geometry)
        self._store.setValue("window/state", state)
        self._store.sync()

    def split_sizes(self, name: str) -> list[int] | None:
        """A splitter's sizes as last left (None when never saved or unreadable)."""
        raw = self._store.value(f"splitters/{name}")
        try:
            value = json.loads(str(raw)) if raw else None
        except ValueError:
            return None
        if isinstance(value, list) and all(isinstance(v, int) for v in value):
            return value
        return None

    def save_split_sizes(self, name: str, sizes: list[int]) -> None:
        self._store.setValue(f"splitters/{name}", json.dumps([int(s) for s in sizes]))
        self._store.sync()


def _as_int(value: Any, default: Any) -> Any:
    try:
        return int(value)
    except (TypeError, ValueError):
        return default


def _as_float(value: Any, default: Any) -> Any:
    try:
        return float(value)
    except (TypeError, ValueError):
        return default


def _absolute(path: str) -> str:
    """``path`` made absolute against the current folder (recent lists outlive it)."""
    return os.path.abspath(os.path.expanduser(str(path)))
