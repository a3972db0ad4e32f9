"""An environment folder's files, by name, and telling a PRISM file outside any such folder
without loading the registry.

``registry.is_bare_model`` decides whether ``explaincheck oracle TEXT`` names a built-in id, an
environment folder's model or a bare PRISM file; importing the registry discovers the plugins'
environments, 0.05 s of CPU of every ``oracle FILE`` (a twentieth of the 10^5-state grid's).
``surely_bare`` answers the common case first: a path no id can spell.
"""

from __future__ import annotations

from pathlib import Path

TOML_NAME = "environment.toml"
MODEL_NAME = "model.prism"
DESCRIBE_NAME = "describe.py"


def surely_bare(text: str) -> bool:
    """Whether ``text`` is a path no environment id can spell (it starts with ``/``, ``./``,
    ``../`` or ``~``: an id is a name, or a distribution's name, a slash and a name) to a file
    with no environment settings beside it: then it is a bare PRISM file, as
    ``registry.is_bare_model`` would say. False leaves the question to the registry."""
    if not text.startswith(("/", "./", "../", "~")):
        return False
    path = Path(text).expanduser()
    return path.is_file() and not (path.parent / TOML_NAME).is_file()
