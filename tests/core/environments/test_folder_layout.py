"""``folder_layout.surely_bare``: a bare PRISM file told from its path, without the registry.
Wherever it says yes the registry must say so too (``registry.is_bare_model``); where it cannot
tell, it says no and the registry decides. And ``oracle FILE`` on such a path does not import the
registry (its plugin discovery was 0.05 s of every run), while a built-in id still does."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

from explaincheck.core.environments.folder_layout import TOML_NAME, surely_bare
from explaincheck.core.environments.registry import is_bare_model
from explaincheck.core.paths import environments_dir

MODEL = (
    'mdp\nmodule m\n x : [0..1] init 0;\n [go] x=0 -> (x\'=1);\nendmodule\nlabel "goal" = x=1;\n'
)


@pytest.fixture
def bare(tmp_path, monkeypatch):
    folder = tmp_path / "models"
    folder.mkdir()
    (folder / "m.prism").write_text(MODEL)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOME", str(tmp_path))
    return folder / "m.prism"


def test_paths_no_id_can_spell_are_told_without_the_registry(bare, monkeypatch):
    for text in (str(bare), "./models/m.prism", "~/models/m.prism"):
        assert surely_bare(text), text
        assert is_bare_model(text), text
    monkeypatch.chdir(bare.parent)
    assert surely_bare("../models/m.prism") and is_bare_model("../models/m.prism")


def test_what_it_cannot_tell_it_leaves_to_the_registry(bare, tmp_path):
    assert not surely_bare("models/m.prism")  # could be a plugin's "distribution/name"
    assert is_bare_model("models/m.prism")  # the registry: no such id, so bare
    assert not surely_bare("frozen_lake")  # a built-in id
    assert not is_bare_model("frozen_lake")
    assert not surely_bare(str(tmp_path / "missing.prism"))
    assert not surely_bare(str(bare.parent))  # a folder
    builtin = environments_dir() / "frozen_lake" / "model.prism"
    assert not surely_bare(str(builtin))  # an environment folder's model
    assert not is_bare_model(str(builtin))
    # another PRISM file beside an environment's settings: bare by the registry (the settings
    # name another model), but the path alone cannot tell, so it says no
    (bare.parent / TOML_NAME).write_text('model = "other.prism"\n')
    assert not surely_bare(str(bare))
    assert is_bare_model(str(bare))


IMPORTS = textwrap.dedent(
    """
    import contextlib, io, json, sys
    from explaincheck.gui.launcher import main
    with contextlib.redirect_stdout(io.StringIO()):
        status = main(["oracle", sys.argv[1], "--no-cache"])
    print(json.dumps([status, "explaincheck.core.environments.registry" in sys.modules]))
    """
)


def test_oracle_on_a_file_path_does_not_load_the_registry(bare):
    def run(target: str) -> list:
        done = subprocess.run(
            [sys.executable, "-c", IMPORTS, target], capture_output=True, text=True, timeout=120
        )
        assert done.returncode == 0, done.stderr[-2000:]
        return json.loads(done.stdout.strip().splitlines()[-1])

    assert run(str(bare)) == [0, False]
    assert run("frozen_lake") == [0, True]  # a built-in id: the registry resolves it
