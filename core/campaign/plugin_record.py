"""Which plugin packages a campaign used, kept with the campaign, and what a reader is missing.

Why: a results file made with a plugin's environment, category or answerer can only be re-graded
(or its cases shown with their oracle) where that plugin is installed. The campaign stores the
distribution and version of every plugin it used (as Inspect AI's EvalSpec keeps the versions of
the packages an evaluation ran with), reports and share files show them, and a file read where
one is missing says which package to install, at which version, in one line.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from explaincheck.core.backends.registry import kind_of, prefix_of
from explaincheck.core.environments.registry import registered_id as environment_id
from explaincheck.core.plugins import (
    BACKENDS,
    CATEGORIES,
    ENVIRONMENTS,
    KIND_WORDS,
    Source,
    install_hint,
    is_distribution_name,
    is_version,
    source_of_id,
)
from explaincheck.core.taxonomy.registry import registered_id as category_id

PLUGINS_KEY = "plugins"  # in a campaign's stored settings
MAX_RECORDED = 100  # plugin packages read from one stored record (a campaign uses a few)
MAX_USE_CHARS = 300  # one "category DISTRIBUTION/NAME" entry


def plugin_record(
    environments: Iterable[str], categories: Iterable[str], llms: Iterable[str] = ()
) -> list[dict[str, Any]]:
    """One entry per plugin package among what a campaign (or a question set) uses, by
    distribution: ``{"distribution", "version", "uses": ["environment ID", "category ID",
    "backend PREFIX", ...]}``."""
    uses: dict[Source, list[str]] = {}
    asked = (
        (ENVIRONMENTS, list(dict.fromkeys(environments))),
        (CATEGORIES, list(dict.fromkeys(categories))),
        (BACKENDS, list(dict.fromkeys(prefix_of(llm) for llm in llms))),
    )
    for group, ids in asked:
        for identifier in ids:
            source = source_of_id(identifier, group)
            if source is not None:
                uses.setdefault(source, []).append(f"{KIND_WORDS[group]} {identifier}")
    return [
        {**source.record(), "uses": used}
        for source, used in sorted(uses.items(), key=lambda item: item[0].distribution)
    ]


def recorded_plugins(settings: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The plugin entries a campaign stored (none for a file made before they were kept);
    malformed ones are left out (a shared file is not trusted)."""
    found = settings.get(PLUGINS_KEY)
    if not isinstance(found, list):
        return []
    return [
        {**entry, "uses": [u for u in _strings(entry.get("uses")) if len(u) <= MAX_USE_CHARS]}
        for entry in found[:MAX_RECORDED]
        if isinstance(entry, dict)
        and is_distribution_name(entry.get("distribution"))
        and is_version(entry.get("version"))
    ]


def plugins_in_words(recorded: Sequence[Mapping[str, Any]]) -> str:
    """``explaincheck-mylab 0.1 (environment ..., category ...)``, one per package; "none"."""
    if not recorded:
        return "none"
    parts = []
    for entry in recorded:
        uses = _strings(entry.get("uses"))
        named = f"{entry['distribution']} {entry['version']}"
        parts.append(f"{named} ({', '.join(uses)})" if uses else named)
    return "; ".join(parts)


def missing_plugin(
    settings: Mapping[str, Any],
    environment: str,
    categories: Iterable[str] = (),
    llms: Iterable[str] = (),
) -> str | None:
    """The one line naming the plugin package (and the version the campaign recorded) that
    reading this campaign needs and this installation lacks, or None when nothing is missing.
    ``categories``/``llms``: those of its stored rows (a default campaign stores none)."""
    recorded = recorded_plugins(settings)
    used: dict[str, list[str]] = {word: [] for word in KIND_WORDS.values()}  # as recorded
    for entry in recorded:
        for use in _strings(entry.get("uses")):
            word, _, identifier = use.partition(" ")
            used.get(word, []).append(identifier)
    wanted = (
        (
            ENVIRONMENTS,
            [environment, *used[KIND_WORDS[ENVIRONMENTS]]],
            lambda i: environment_id(i) is not None,
        ),
        (
            CATEGORIES,
            [*_strings(settings.get("categories")), *categories, *used[KIND_WORDS[CATEGORIES]]],
            _has_category,
        ),
        (
            BACKENDS,
            [*_strings(settings.get("llms")), *llms, *used[KIND_WORDS[BACKENDS]]],
            lambda i: kind_of(i) is not None,
        ),
    )
    for group, ids, registered in wanted:
        for identifier in dict.fromkeys(ids):
            if registered(identifier):
                continue
            named = prefix_of(identifier) if group == BACKENDS else identifier
            hint = install_hint(named, group, recorded)
            if hint:
                return hint
    return None


def missing_plugins(campaigns: Iterable[Any]) -> list[str]:
    """``missing_plugin`` of each campaign (``CampaignRow``s), each line once."""
    lines = (missing_plugin(c.settings, c.environment) for c in campaigns)
    return list(dict.fromkeys(line for line in lines if line))


def _has_category(identifier: str) -> bool:
    return category_id(identifier) is not None


def _strings(value: Any) -> list[str]:
    """The strings of a stored list (anything else in it left out)."""
    return [v for v in value if isinstance(v, str)] if isinstance(value, list | tuple) else []
