"""``explaincheck plugins``: the installed plugin packages, and ``plugins check DIST``: the
generic contract checks on one of them (core/plugin_checks.py, shared with the project's tests).

Why: a plugin's category, backend or environment is used like a built-in, so its author needs to
see what explaincheck made of the package (which ids it registered, from which entry points,
what it left out and why) and whether it keeps the promises a built-in keeps, before a campaign
finds out; as napari's ``npe2 list`` and ``npe2 validate`` do for napari's plugins.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterable
from typing import Any

from explaincheck.core.errors import ExplaincheckError

NAME = "plugins"
HELP = """List the installed plugin packages (entry point groups explaincheck.categories,
explaincheck.backends and explaincheck.environments, docs/plugins.md): each distribution with
its version and where it is installed, its entry points, and what each registered under its
namespaced id (DISTRIBUTION/NAME) or why it was left out.

'plugins check DIST' runs the generic contract checks on DIST's categories (on this project's
environments and the plugin's own), backends and environments: the answer schema's shape, the
three wordings, applicability counted without facts, the words, README and expect.toml of an
environment, describe.py. Each failure is one line; exit status 1 when something fails, 0 when
nothing does.

examples:
  explaincheck plugins
  explaincheck plugins --json
  explaincheck plugins check explaincheck-mylab
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print one JSON value")
    actions = parser.add_subparsers(dest="action", metavar="ACTION")
    check = actions.add_parser("check", help="run the contract checks on one plugin package")
    check.add_argument("distribution", metavar="DIST", help="the plugin package (its pip name)")
    check.add_argument("--json", action="store_true", help="print one JSON object")


def run(args: argparse.Namespace) -> int:
    _load_registries()
    if getattr(args, "action", None) == "check":
        return _check(args.distribution, args.json)
    listing = installed()
    if args.json:
        print(json.dumps(listing, indent=2, allow_nan=False))
        return 0
    print("\n".join(listing_lines(listing)))
    return 0


def _load_registries() -> None:
    """The registries claim their plugins' ids when imported (``core/plugins.CLAIMS``)."""
    import explaincheck.core.backends.registry
    import explaincheck.core.environments.registry
    import explaincheck.core.taxonomy.registry  # noqa: F401


def installed() -> list[dict[str, Any]]:
    """One object per plugin distribution: ``{"distribution", "version", "location",
    "entry_points": [{"group", "name", "value"}], "registered": [{"kind", "id",
    "entry_point"}], "left_out": [{"kind", "entry_point", "name", "problem"}]}``."""
    from explaincheck.core.plugins import CLAIMS, GROUPS, KIND_WORDS, plugin_entries

    found: dict[str, dict[str, Any]] = {}
    for group in GROUPS:
        for entry in plugin_entries(group):
            source = entry.source
            item = found.setdefault(
                source.distribution,
                {
                    "distribution": source.distribution,
                    "version": source.version,
                    "location": _location(entry) or source.location,
                    "entry_points": [],
                    "registered": [],
                    "left_out": [],
                },
            )
            item["entry_points"].append({"group": group, "name": entry.name, "value": entry.value})
    for claim in sorted(CLAIMS, key=lambda c: GROUPS.index(c.group)):
        if claim.source.distribution not in found:
            continue
        item = found[claim.source.distribution]
        kind = KIND_WORDS[claim.group]
        if claim.id is not None:
            item["registered"].append({"kind": kind, "id": claim.id, "entry_point": claim.entry})
        else:
            item["left_out"].append(
                {
                    "kind": kind,
                    "entry_point": claim.entry,
                    "name": claim.name,
                    "problem": claim.problem,
                }
            )
    return [found[name] for name in sorted(found)]


def _location(entry: Any) -> str:
    """Where the entry point's code is: the editable source folder pip recorded, else the
    folder its module is in (an unreadable record is passed over: it is someone else's file)."""
    from explaincheck.core.json_input import parse
    from explaincheck.core.plugins import MAX_METADATA_BYTES, one_line

    dist = getattr(entry.point, "dist", None)
    try:
        text = dist.read_text("direct_url.json") if dist else None
        recorded = (
            parse(text, "direct_url.json") if text and len(text) < MAX_METADATA_BYTES else None
        )
    except (OSError, ValueError, ExplaincheckError):
        recorded = None
    if isinstance(recorded, dict) and isinstance(recorded.get("dir_info"), dict):
        url = recorded.get("url")
        if recorded["dir_info"].get("editable") and isinstance(url, str):
            return one_line(url.removeprefix("file://"), 500)
    from importlib.util import find_spec
    from pathlib import Path

    try:
        spec = find_spec(entry.module)
    except Exception:  # importing its parent package runs someone else's code
        return ""
    return str(Path(spec.origin).parent) if spec and spec.origin else ""


def listing_lines(listing: list[dict[str, Any]]) -> list[str]:
    from explaincheck.core.plugins import GROUPS
    from explaincheck.core.terminal_text import safe_terminal

    if not listing:
        return [f"no plugin package is installed (entry point groups: {', '.join(GROUPS)})"]
    lines = []
    for item in listing:
        lines.append(f"{item['distribution']} {item['version']}  ({item['location']})")
        for entry in item["entry_points"]:
            lines.append(f"  entry point {entry['group']}: {entry['name']} = {entry['value']}")
        for done in item["registered"]:
            lines.append(f"  {done['kind']:<12} {done['id']}  (entry point {done['entry_point']})")
        for left in item["left_out"]:
            named = f" {left['name']!r}" if left["name"] else ""
            lines.append(
                f"  left out:    {left['kind']}{named} (entry point {left['entry_point']}):"
                f" {left['problem']}"
            )
    return [safe_terminal(line) for line in lines]


def _check(distribution: str, as_json: bool) -> int:
    from explaincheck.core.plugin_checks import distribution_findings
    from explaincheck.core.plugins import normalized

    listing = {item["distribution"]: item for item in installed()}
    name = normalized(distribution)
    if name not in listing:
        known = ", ".join(listing) or "none"
        raise ExplaincheckError(
            f"no plugin package {distribution!r} is installed (plugin packages: {known})"
        )
    item = listing[name]
    findings = distribution_findings(name)
    checked = _checked(item["registered"])
    if as_json:
        data = {
            "distribution": name,
            "version": item["version"],
            "checked": checked,
            "findings": [f.as_json() for f in findings],
        }
        print(json.dumps(data, indent=2, allow_nan=False))
    else:
        from explaincheck.core.plural import counted
        from explaincheck.core.terminal_text import safe_terminal

        for finding in findings:
            print(safe_terminal(finding.line()))
        what = ", ".join(counted(len(ids), kind) for kind, ids in checked.items() if ids)
        verdict = f"{len(findings)} failed" if findings else "nothing fails"
        print(f"{name} {item['version']}: {what or 'nothing registered'} checked; {verdict}")
    return 1 if findings else 0


def _checked(registered: Iterable[dict[str, str]]) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {"category": [], "backend": [], "environment": []}
    for done in registered:
        found.setdefault(done["kind"], []).append(done["id"])
    return found
