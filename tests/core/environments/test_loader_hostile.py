"""Hostile environment folders and model files: each gives one clear line, never a traceback,
a huge prompt, a file outside the folder or a multi-GB read."""

from __future__ import annotations

import shutil
import tracemalloc

import pytest

from explaincheck.core.cli.main import main
from explaincheck.core.environments.loader import (
    MAX_RENDERED,
    EnvironmentFolderError,
    fill,
    load_environment,
)
from explaincheck.core.errors import ModelError
from explaincheck.core.oracle.storm.building import _check_file
from explaincheck.core.paths import environments_dir

TEMPLATE_PLACE = "({A} litres)"  # in water_jug's state template


@pytest.fixture
def folder(tmp_path):
    """An untrusted copy of water_jug (its describe.py removed: the template words states)."""
    copy = tmp_path / "jugs"
    shutil.copytree(environments_dir() / "water_jug", copy)
    (copy / "describe.py").unlink(missing_ok=True)
    return copy


def edit(folder, old: str, new: str) -> None:
    path = folder / "environment.toml"
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def test_the_untouched_copy_loads(folder):
    env = load_environment(folder)
    assert env.model_path == str(folder / "model.prism")


@pytest.mark.parametrize(
    ("placeholder", "message"),
    [
        ("{A[0]}", r"\{A\[0\]\} is not allowed"),
        ("{A.__class__}", r"\{A.__class__\} is not allowed"),
        ("{}", r"\{\} is not allowed"),
        ("{0}", r"\{0\} is not allowed"),
        ("{A:x>20000000}", "asks for more than 200 characters"),
        ("{A:{B}}", "nests a placeholder"),
        ("{A", "malformed template"),
    ],
)
def test_template_tricks_are_refused_at_load(folder, placeholder, message):
    edit(folder, TEMPLATE_PLACE, f"({placeholder} litres)")
    with pytest.raises(EnvironmentFolderError, match=message):
        load_environment(folder)


def test_the_cli_gives_one_line_and_status_2(folder, capsys):
    edit(folder, TEMPLATE_PLACE, "({A[0]} litres)")
    assert main(["oracle", str(folder)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "{A[0]} is not allowed" in err


def test_filled_text_is_bounded():
    assert fill("{A:>200}", {"A": 1}, where="w").endswith("1")
    with pytest.raises(EnvironmentFolderError, match="at most 20,000"):
        fill("{A}" * 200, {"A": "x" * 200}, where="w")
    assert len(fill("{A}", {"A": "x" * MAX_RENDERED}, where="w")) == MAX_RENDERED
    with pytest.raises(EnvironmentFolderError, match="malformed template"):
        fill("{A:d}", {"A": "text"}, where="w")


def test_non_utf8_toml(folder):
    path = folder / "environment.toml"
    path.write_bytes(path.read_bytes().replace(b"jug", b"j\xffug", 1))
    with pytest.raises(EnvironmentFolderError, match=r"not UTF-8 text \(invalid start byte"):
        load_environment(folder)


def test_deeply_nested_toml(folder):
    with (folder / "environment.toml").open("a") as handle:
        handle.write("\nz = " + "[" * 100_000 + "]" * 100_000 + "\n")
    with pytest.raises(EnvironmentFolderError, match="nested too deeply"):
        load_environment(folder)


def test_huge_toml_is_refused_unread(folder):
    with (folder / "environment.toml").open("a") as handle:
        handle.write("\n# " + "x" * 1_100_000 + "\n")
    with pytest.raises(EnvironmentFolderError, match="too large for an environment file"):
        load_environment(folder)


@pytest.mark.parametrize("model", ["/etc/passwd", "../elsewhere.prism", "model.txt", "sub/../.."])
def test_model_must_be_a_prism_file_inside_the_folder(folder, model):
    (folder.parent / "elsewhere.prism").write_text("mdp\n")
    edit(folder, "title =", f'model = "{model}"\ntitle =')
    with pytest.raises(EnvironmentFolderError, match=r"model = .* (not allowed|outside)"):
        load_environment(folder)


def test_a_model_in_a_subfolder_is_fine(folder):
    (folder / "models").mkdir()
    shutil.move(folder / "model.prism", folder / "models" / "jugs.prism")
    edit(folder, "title =", 'model = "models/jugs.prism"\ntitle =')
    assert load_environment(folder).model_path.endswith("models/jugs.prism")


def test_binary_and_huge_model_files_are_refused_from_a_prefix(tmp_path):
    binary = tmp_path / "binary.prism"
    with binary.open("wb") as handle:
        handle.write(b"\x7fELF\x00\x01")
        handle.truncate(3 * 2**30)  # sparse: 3 GB on paper, nothing on disk
    text = tmp_path / "text.prism"
    with text.open("wb") as handle:
        handle.write(b"mdp\n// " + b"x" * 5000)
        handle.truncate(3 * 2**30)
    tracemalloc.start()
    try:
        with pytest.raises(ModelError, match="binary file"):
            _check_file(binary)
        with pytest.raises(ModelError, match="3,072 MB is too large"):
            _check_file(text)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 1_000_000  # a prefix was read, not gigabytes


def test_state_limit_must_be_positive(capsys):
    for value in ("-5", "0", "many"):
        with pytest.raises(SystemExit) as stopped:
            main(["oracle", "frozen_lake", "--state-limit", value])
        assert stopped.value.code == 2
        assert "--state-limit" in capsys.readouterr().err


def test_error_lines_quoting_a_template_are_terminal_safe(folder, capsys):
    edit(folder, TEMPLATE_PLACE, "({A.x\\u001b]0;pwned\\u0007} litres)")  # TOML escapes
    assert main(["oracle", str(folder)]) == 2
    err = capsys.readouterr().err
    assert "is not allowed" in err and "\x1b" not in err and "\x07" not in err
