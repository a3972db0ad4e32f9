"""The built-in environments (every folder under ``environments/``), and resolving what a user
names (an id or a PRISM file).

Everything that takes ``--env ENV|MODEL`` goes through ``resolve``: a built-in id loads its
folder, a folder or a ``.prism`` file inside a folder with an ``environment.toml`` loads that
folder's wording, and any other PRISM file gets generic wording.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from explaincheck.core.environments.generic import generic_environment
from explaincheck.core.environments.loader import (
    DESCRIBE_NAME,
    MODEL_NAME,
    TOML_NAME,
    EnvironmentFolderError,
    load_environment,
    read_toml,
)
from explaincheck.core.environments.types import Environment
from explaincheck.core.notices import warn_once
from explaincheck.core.paths import environments_dir
from explaincheck.core.plugins import ENVIRONMENTS as PLUGIN_ENVIRONMENTS
from explaincheck.core.plugins import (
    ambiguous,
    claim,
    environment_offers,
    install_hint,
    left_out,
    unique_by_name,
)

PAPER_ORDER: tuple[str, ...] = (  # the paper's order, which every table keeps
    "frozen_lake",
    "wolf_goat_cabbage",
    "water_jug",
    "transporter",
    "stock_market",
    "job_shop",
    "dam",
)


def discover(root: Path) -> tuple[str, ...]:
    """The ids of the environment folders under ``root`` (those with an ``environment.toml``):
    the paper's seven in its order, then any others by name. A new environment is its folder
    alone (``model.prism`` + ``environment.toml``); nothing else lists it."""
    found = (
        sorted(p.name for p in root.iterdir() if (p / TOML_NAME).is_file()) if root.is_dir() else []
    )
    return tuple(i for i in PAPER_ORDER if i in found) + tuple(
        i for i in found if i not in PAPER_ORDER
    )


def _plugin_folders(own: tuple[str, ...]) -> dict[str, Path]:
    """Namespaced id (``DISTRIBUTION/ID``, the ID its ``environment.toml`` declares or its
    folder's name) -> folder, for the environment folders of installed plugin packages (entry
    points ``explaincheck.environments``, core/plugins.py); one that cannot be registered is one
    line on stderr."""
    folders: dict[str, Path] = {}
    for offer in environment_offers():
        folder = Path(offer.value)
        try:
            declared = read_toml(folder).get("id", folder.name)
        except EnvironmentFolderError as error:
            left_out(PLUGIN_ENVIRONMENTS, offer.source, offer.entry, str(error), folder.name)
            continue
        env_id = claim(PLUGIN_ENVIRONMENTS, offer, declared, (*own, *folders))
        if env_id is not None:
            folders[env_id] = folder
    return folders


# The environments this installation has: the folders under ``environments/`` (this project's
# own), then those of installed plugin packages under their namespaced ids.
OWN_IDS: tuple[str, ...] = discover(environments_dir())
PLUGIN_FOLDERS: dict[str, Path] = _plugin_folders(OWN_IDS)
BUILTIN_IDS: tuple[str, ...] = OWN_IDS + tuple(PLUGIN_FOLDERS)


def registered_id(env_id: str) -> str | None:
    """The built-in id ``env_id`` names: itself, or the one plugin environment whose own name it
    is (``ferry`` for ``explaincheck-mylab/ferry``: typed short, or stored before plugin ids
    were namespaced); None when it names none."""
    return env_id if env_id in BUILTIN_IDS else unique_by_name(env_id, PLUGIN_FOLDERS)


def builtin_folder(env_id: str) -> Path:
    found = registered_id(env_id)
    if found is None:
        raise EnvironmentFolderError(
            install_hint(env_id, PLUGIN_ENVIRONMENTS)
            or ambiguous(env_id, PLUGIN_FOLDERS, PLUGIN_ENVIRONMENTS)
            or f"unknown environment {env_id!r}; built-in ones are: {', '.join(BUILTIN_IDS)}"
        )
    return PLUGIN_FOLDERS.get(found) or environments_dir() / found


def load_builtin(env_id: str, *, constants: str | None = None) -> Environment:
    """A built-in environment; ``constants`` ("N=6") overrides its defaults by name. A plugin's
    answers to its namespaced id, and its ``describe.py`` does not run (code in an environment
    folder runs only for this project's own folders or one a program trusts): said once."""
    folder = builtin_folder(env_id)
    env = load_environment(folder, constants=constants)
    found = registered_id(env_id)
    if found not in PLUGIN_FOLDERS:
        return env
    if (folder / DESCRIBE_NAME).is_file():
        warn_once(
            f"environment {found}: its {DESCRIBE_NAME} does not run (code in an environment"
            " folder runs only for explaincheck's own environments or a folder a program"
            " trusts); its 'state' template words the states"
        )
    return replace(env, id=found)


def list_builtin() -> list[Environment]:
    return [load_builtin(env_id) for env_id in BUILTIN_IDS]


def _folder_of(model: Path) -> Path | None:
    """The environment folder a PRISM file belongs to, if its TOML names this very file."""
    folder = model.parent
    if not (folder / TOML_NAME).is_file():
        return None
    declared = folder / str(read_toml(folder).get("model", MODEL_NAME))
    return folder if declared.resolve() == model.resolve() else None


def is_bare_model(env_or_path: str | Path) -> bool:
    """A PRISM file that is no built-in and belongs to no environment folder: ``resolve``
    would give it generic wording, which a caller needing only its oracle request can skip."""
    text = str(env_or_path)
    if registered_id(text) is not None:
        return False
    path = Path(text).expanduser()
    return path.is_file() and _folder_of(path) is None


def resolve(
    env_or_path: str | Path,
    *,
    constants: str | None = None,
    goal_label: str | None = None,
    unsafe_label: str | None = None,
    trusted: bool = False,
) -> Environment:
    """The environment for a built-in id, an environment folder or a PRISM file.

    ``constants`` override the folder's defaults by name; for a bare PRISM file they are all
    there is. ``goal_label``/``unsafe_label`` override the folder's labels (generic wording
    defaults to ``goal``/``unsafe``).
    """
    text = str(env_or_path)
    if registered_id(text) is not None:
        env = load_builtin(text, constants=constants)
        return _relabelled(env, goal_label, unsafe_label)
    path = Path(text).expanduser()
    if path.is_dir():
        env = load_environment(path, constants=constants, trusted=trusted)
        return _relabelled(env, goal_label, unsafe_label)
    if path.is_file():
        folder = _folder_of(path)
        if folder is not None:
            env = load_environment(folder, constants=constants, trusted=trusted)
            return _relabelled(env, goal_label, unsafe_label)
        return generic_environment(
            path,
            constants=constants or "",
            goal_label=goal_label or "goal",
            unsafe_label=unsafe_label or "unsafe",
        )
    raise EnvironmentFolderError(
        install_hint(text, PLUGIN_ENVIRONMENTS)
        or ambiguous(text, PLUGIN_FOLDERS, PLUGIN_ENVIRONMENTS)
        or f"{text!r} is neither a built-in environment ({', '.join(BUILTIN_IDS)}) nor an"
        " existing PRISM file or environment folder"
    )


def _relabelled(env: Environment, goal: str | None, unsafe: str | None) -> Environment:
    if goal is None and unsafe is None:
        return env
    return replace(env, goal_label=goal or env.goal_label, unsafe_label=unsafe or env.unsafe_label)
