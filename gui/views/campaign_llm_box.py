"""The Campaign tab's LLM picker: the LLMs under test, the Ollama host and the
OpenAI-compatible server whose models can be listed into it, and a box to add any spec.

Listing a host's models is asked of the window's controller (``check_requested``,
``openai_check_requested``); the answers come back through ``show_*``.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QGroupBox,
    QHBoxLayout,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from explaincheck.core.plural import counted
from explaincheck.gui.support.safe_text import plain_label
from explaincheck.gui.views.llm_choices import LlmChoices

SPEC = Qt.ItemDataRole.UserRole  # where each row keeps its LLM spec


def checked(on: bool) -> Qt.CheckState:
    return Qt.CheckState.Checked if on else Qt.CheckState.Unchecked


class LlmBox(QGroupBox):
    """ "LLMs under test": a checkable list of specs and where to find more."""

    check_requested = Signal(str)  # list the models of this Ollama host (empty: the default)
    openai_check_requested = Signal(str)  # list /v1/models of this OpenAI-compatible server

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("LLMs under test", parent)
        self.answerers = LlmChoices()
        layout = QVBoxLayout(self)
        self.llms = QListWidget(self)
        self.llms.setMinimumHeight(90)
        self.llms.setMaximumHeight(160)
        layout.addWidget(self.llms)
        host_row = QHBoxLayout()
        self.host = QLineEdit(self)
        self.host.setPlaceholderText("Ollama host, e.g. http://127.0.0.1:11434")
        host_row.addWidget(self.host, 1)
        self.check_button = QPushButton("Check")
        self.check_button.setToolTip("Connect to the Ollama host and list its models")
        self.check_button.clicked.connect(self.check_host)
        host_row.addWidget(self.check_button)
        layout.addLayout(host_row)
        layout.addLayout(self._build_openai_row())
        self.host_status = plain_label("")
        self.host_status.setWordWrap(True)
        layout.addWidget(self.host_status)
        add_row = QHBoxLayout()
        self.extra_spec = QLineEdit(self)
        self.extra_spec.setPlaceholderText(
            "another LLM spec, e.g. ollama:gemma3:1b@http://host:11434"
        )
        self.extra_spec.returnPressed.connect(self.add_typed_spec)
        add_row.addWidget(self.extra_spec, 1)
        add_button = QPushButton("Add")
        add_button.clicked.connect(self.add_typed_spec)
        add_row.addWidget(add_button)
        layout.addLayout(add_row)

    def _build_openai_row(self) -> QHBoxLayout:
        """An OpenAI-compatible server (vLLM, SGLang, llama-server, LM Studio, Ollama's /v1)
        and the button that lists its models (``/v1/models``) into the LLM list."""
        row = QHBoxLayout()
        self.openai_host = QLineEdit(self)
        self.openai_host.setPlaceholderText(server_placeholder(os.environ))
        row.addWidget(self.openai_host, 1)
        self.openai_button = QPushButton("List models")
        self.openai_button.setToolTip("Ask the server for its models (/v1/models)")
        self.openai_button.clicked.connect(self.check_openai)
        row.addWidget(self.openai_button)
        return row

    def offer(self, answerers: LlmChoices) -> None:
        """List the registered answerers that are not reference explainers (preselected: ticked)."""
        self.answerers = answerers
        for choice in answerers.offered:
            if not choice.reference:
                self.add_llm(
                    choice.spec,
                    choice.text,
                    on=choice.preselected,
                    enabled=choice.enabled,
                    tip=choice.tip,
                )

    # -- the list ----------------------------------------------------------------------------
    def add_llm(
        self, spec: str, text: str, on: bool, enabled: bool = True, tip: str = ""
    ) -> QListWidgetItem:
        """The row of ``spec`` (added if new; an existing row is left as it is)."""
        for i in range(self.llms.count()):
            if self.llms.item(i).data(SPEC) == spec:
                return self.llms.item(i)
        item = QListWidgetItem(text)
        item.setData(SPEC, spec)
        flags = Qt.ItemFlag.ItemIsUserCheckable | Qt.ItemFlag.ItemIsSelectable
        if enabled:
            flags |= Qt.ItemFlag.ItemIsEnabled
        item.setFlags(flags)
        item.setCheckState(checked(on))
        item.setToolTip(tip or spec)
        self.llms.addItem(item)
        return item

    def add_typed_spec(self) -> None:
        spec = self.extra_spec.text().strip()
        if spec:
            self.add_llm(spec, spec, on=True)
            self.extra_spec.clear()

    def set_llm_checked(self, spec: str, on: bool) -> None:
        for i in range(self.llms.count()):
            item = self.llms.item(i)
            if item.data(SPEC) == spec:
                item.setCheckState(checked(on))

    def ticked(self) -> list[str]:
        """The ticked LLMs that can be asked, in list order."""
        return [
            self.llms.item(i).data(SPEC)
            for i in range(self.llms.count())
            if self.llms.item(i).checkState() == Qt.CheckState.Checked
            and self.llms.item(i).flags() & Qt.ItemFlag.ItemIsEnabled
        ]

    def ollama_host(self) -> str:
        """The host typed in the panel ("" when empty)."""
        return self.host.text().strip()

    def openai_base_url(self) -> str:
        return self.openai_host.text().strip()

    # -- listing a server's models -------------------------------------------------------------
    def check_host(self) -> None:
        """Ask the controller to list the host's models (``show_host_models`` shows them)."""
        host = self.ollama_host()
        self.check_button.setEnabled(False)
        self.host_status.setText(f"Connecting to {host or 'the default host'}…")
        self.check_requested.emit(host)

    def show_host_error(self, host: str, message: str) -> None:
        self.check_button.setEnabled(True)
        self.host_status.setText(f"✗ {host}: {message}")

    def show_host_models(self, host: str, listing: dict[str, list[str]]) -> None:
        """Add the models each answering host lists (``{}``: none answered)."""
        self.check_button.setEnabled(True)
        self._add_listed(
            listing,
            lambda url, model: f"ollama:{model}@{url}" if host else f"ollama:{model}",
            "ollama",
            f"no Ollama server answers at {host or 'the default host'}",
        )

    def check_openai(self) -> None:
        url = self.openai_base_url()
        self.openai_button.setEnabled(False)
        self.host_status.setText(f"Connecting to {url or 'OPENAI_BASE_URL'}…")
        self.openai_check_requested.emit(url)

    def show_openai_models(self, url: str, listing: dict[str, list[str]]) -> None:
        """Add ``openai:MODEL@URL`` for each model the server lists."""
        self.openai_button.setEnabled(True)
        self._add_listed(
            listing,
            lambda base, model: f"openai:{model}@{base}",
            "openai",
            f"no OpenAI-compatible server answers at {url or '—'}",
        )

    def _add_listed(
        self,
        listing: dict[str, list[str]],
        spec: Callable[[str, str], str],
        kind: str,
        nobody: str,
    ) -> None:
        """Add each server's models (unticked) and say how many, or that ``nobody`` answered."""
        if not listing:
            self.host_status.setText(f"✗ {nobody}")
            return
        count = 0
        for url, models in listing.items():
            for model in models:
                self.add_llm(spec(url, model), f"{kind}:{model} ({url})", on=False)
                count += 1
        self.host_status.setText(f"✓ connected: {counted(count, 'model')} listed")

    def show_openai_error(self, url: str, message: str) -> None:
        self.openai_button.setEnabled(True)
        self.host_status.setText(f"✗ {url}: {message}")

    # -- remembered between sessions ------------------------------------------------------------
    def choices(self) -> dict[str, Any]:
        llms = []
        for i in range(self.llms.count()):
            item = self.llms.item(i)
            llms.append([item.data(SPEC), item.text(), item.checkState() == Qt.CheckState.Checked])
        return {"llms": llms, "openai_host": self.openai_base_url()}

    def apply(self, choices: dict[str, Any]) -> None:
        """Restore ``choices()``; entries that are not ``[spec, text, ticked]`` are skipped, and
        so are specs whose kind is no longer registered (an uninstalled plugin's backend would
        otherwise stay listed, with its old description, and fail only when run)."""
        for entry in choices.get("llms") or []:
            if not (isinstance(entry, list) and len(entry) == 3 and isinstance(entry[0], str)):
                continue
            if not self.answerers.registered(entry[0]):
                continue
            spec, text, on = entry
            item = self.add_llm(spec, str(text), on=bool(on))
            if item.flags() & Qt.ItemFlag.ItemIsEnabled:
                item.setCheckState(checked(bool(on)))
        if isinstance(choices.get("openai_host"), str):
            self.openai_host.setText(choices["openai_host"])

    def untick_all(self) -> None:
        for i in range(self.llms.count()):
            self.llms.item(i).setCheckState(Qt.CheckState.Unchecked)


def server_placeholder(environment: Mapping[str, str]) -> str:
    """What the empty server field says: the server ``OPENAI_BASE_URL`` names when it is set
    (an empty field uses it, as the command line does), else an example."""
    url = environment.get("OPENAI_BASE_URL", "").strip()
    parts = urlsplit(url)
    if parts.query or parts.fragment or "@" in parts.netloc:  # never a secret on the screen
        url = urlunsplit((parts.scheme, parts.netloc.rpartition("@")[2], parts.path, "", ""))
    if url:
        return f"{url} (from OPENAI_BASE_URL; key: OPENAI_API_KEY)"
    return "OpenAI-compatible server, e.g. http://gpu1:8000/v1 (key: OPENAI_API_KEY)"
