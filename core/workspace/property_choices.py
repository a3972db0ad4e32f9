"""The properties a front end offers for the open model: the goal's own, the environment's, and
every statement of the property file beside the PRISM file.

Why all statements of the file, and not only the ones of a supported form: a user who opens
``csma.prism`` beside ``csma.props`` sees the file's whole list; choosing one the oracle cannot
compute says why in one line (``ModelWorkspace.choose_property``), instead of the property
silently missing from the list. Each choice carries the ``--property`` text it stands for, so
the GUI resolves it exactly as the command line does (``Environment.resolve_property``) and a
campaign started from the window records the same text.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from explaincheck.core.environments.types import Environment
from explaincheck.core.oracle.property import (
    PROPS_SUFFIXES,
    PropertyError,
    PropsFile,
    read_props_file,
)

GOAL_SPEC = ""  # the choice "Pmax=? [F goal]" of the Goal box: no --property at all


@dataclass(frozen=True)
class PropertyChoice:
    """One entry of the property list: what it reads as, and the ``--property`` text it is."""

    label: str  # e.g. 'time_min: R{"time"}min=? [F "done"]  (csma.props)'
    spec: str  # the --property text ("" for the Goal box's Pmax=? [F goal])
    source: str  # "goal", "environment" or the property file's name


def property_choices(environment: Environment | None) -> list[PropertyChoice]:
    """The Goal box's property, the environment's own properties (``environment.toml``), then
    every property of the ``.props``/``.pctl`` file beside the model (unsupported forms too)."""
    found = [PropertyChoice("Pmax=? [F goal]: the Goal box's target", GOAL_SPEC, "goal")]
    if environment is None:
        return found
    beside = props_beside(environment.model_path)
    in_file = {entry.name for entry in beside.entries} if beside else set()
    for name, prop in environment.properties.items():
        if name not in in_file:  # a bare model's properties are its file's: listed below
            found.append(PropertyChoice(f"{name}: {prop.text}", name, "environment"))
    if beside is not None:
        file_name = Path(beside.path).name
        for index, entry in enumerate(beside.entries, start=1):
            name = entry.name or str(index)
            shown = f"{entry.name}: {entry.text}" if entry.name else entry.text
            found.append(
                PropertyChoice(f"{shown}  ({file_name})", f"{beside.path}:{name}", file_name)
            )
    return found


def props_beside(model_path: str) -> PropsFile | None:
    """The property file beside the model (``model.props``, ``.pctl`` or ``.prctl``), read; None
    when there is none or it cannot be read (choosing a property by hand then names the error)."""
    for suffix in PROPS_SUFFIXES:
        beside = Path(model_path).with_suffix(suffix)
        if beside.is_file():
            try:
                return read_props_file(beside)
            except PropertyError:
                return None
    return None
