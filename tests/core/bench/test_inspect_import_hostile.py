"""``import-inspect`` against hostile logs (issue 52 points 4, 5 and 6): tampered metadata, a
log naming a hostile question set, and zip bombs (stated and lying sizes) are one line on stderr
and exit status 2, refused before Inspect inflates anything. Logs are written by Inspect's own
writer."""

from __future__ import annotations

import json
import shutil
import struct
import zipfile
import zlib
from pathlib import Path

import pytest
from hostile_sets import DEEP, refused, small_set, tampered, with_line

from explaincheck.core.cli.main import main

pytest.importorskip("inspect_ai")
ZSTANDARD = 93  # zipfile's method number for zstd (through Inspect's zipfile_zstd)


@pytest.fixture(scope="module")
def bench(tmp_path_factory):
    return small_set(tmp_path_factory.mktemp("bench") / "set")


def write_log(path: Path, bench: Path, metadata: dict | None = None, extra: bytes = b"") -> Path:
    """An Inspect log of explaincheck/bench with five samples answered right (written by
    Inspect's own writer), with ``metadata`` instead of the task's when given."""
    from inspect_ai.log import (
        EvalConfig,
        EvalDataset,
        EvalLog,
        EvalSample,
        EvalSpec,
        write_eval_log,
    )
    from inspect_ai.model import ModelOutput
    from inspect_ai.scorer import Score

    lines = (bench / "questions.jsonl").read_text().splitlines()
    questions = [json.loads(line) for line in lines][:5]
    sha256 = json.loads((bench / "manifest.json").read_text())["sha256"]
    samples = [
        EvalSample(
            id=q["id"],
            epoch=1,
            input=q["prompt"],
            target="",
            output=ModelOutput.from_content("m", json.dumps(q["expected"])),
            scores={"bench": Score(value=1, metadata={"verdict": "pass"})},
        )
        for q in questions
    ]
    spec = EvalSpec(
        created="2025-01-01T00:00:00+00:00",
        task="explaincheck/bench",
        dataset=EvalDataset(),
        model="mockllm/model",
        config=EvalConfig(),
        metadata={"bench_dir": str(bench), "bench": {"sha256": sha256}}
        if metadata is None
        else metadata,
    )
    write_eval_log(EvalLog(eval=spec, samples=samples, status="success"), str(path))
    return path


def test_an_inspect_log_is_imported(bench, tmp_path, capsys):
    log = write_log(tmp_path / "ok.eval", bench)
    capsys.readouterr()
    assert main(["import-inspect", str(log), "--db", str(tmp_path / "r.sqlite")]) == 0
    assert "5 executions" in capsys.readouterr().out


def test_tampered_inspect_metadata_is_named_by_field(bench, tmp_path, capsys):
    cases = {
        "string": ({"bench": "x"}, "log metadata: field 'bench': expected an object, got a string"),
        "list": (
            {"bench_dir": ["a"]},
            "log metadata: field 'bench_dir': expected a string, got a list",
        ),
        "number": (
            {"bench": {"sha256": 5}, "bench_dir": str(bench)},
            "log metadata: field 'bench': field 'sha256': expected a string, got an integer",
        ),
    }
    for name, (metadata, said) in cases.items():
        log = write_log(tmp_path / f"{name}.eval", bench, metadata)
        line = refused(capsys, "import-inspect", str(log), "--db", str(tmp_path / "r.sqlite"))
        assert line.endswith(f"{name}.eval: {said}"), line


def test_a_log_pointing_at_a_hostile_set_is_one_line(bench, tmp_path, capsys):
    deep = tampered(bench, tmp_path / "deep", lambda lines: [DEEP + b"\n", *lines[1:]])
    binary = tampered(
        bench,
        tmp_path / "binary",
        with_line(lambda line: line.replace(b"frozen", b"fr\xffozen", 1)),
    )
    said = {
        deep: "nested too deeply (more than 64 levels)",
        binary: "not UTF-8 text (byte 0xff at column 92)",
    }
    for folder, words in said.items():
        log = write_log(tmp_path / f"{folder.name}.eval", bench, {"bench_dir": str(folder)})
        line = refused(capsys, "import-inspect", str(log), "--db", str(tmp_path / "r.sqlite"))
        assert line.endswith(f"questions.jsonl:1: {words}")


def with_member(
    log: Path,
    out: Path,
    data: bytes,
    *,
    stated: int | None = None,
    method: int = zipfile.ZIP_DEFLATED,
) -> Path:
    """``log`` with one more sample member holding ``data`` (compressed by ``method``);
    ``stated``: the size and checksum its headers claim instead (a lying zip, which ``zipfile``
    alone trusts)."""
    shutil.copyfile(log, out)
    name = "samples/extra_epoch_1.json"
    with zipfile.ZipFile(out, "a", compression=method) as archive:
        archive.writestr(name, data)
    if stated is not None:
        raw = bytearray(out.read_bytes())
        crc = zlib.crc32(data[:stated])
        for signature, crc_at, size_at, name_at in (
            (b"PK\x03\x04", 14, 22, 30),
            (b"PK\x01\x02", 16, 24, 46),
        ):
            at = raw.find(signature)
            while raw[at + name_at : at + name_at + len(name)] != name.encode():
                at = raw.find(signature, at + 1)
            struct.pack_into("<I", raw, at + crc_at, crc)
            struct.pack_into("<I", raw, at + size_at, stated)
        out.write_bytes(bytes(raw))
        with zipfile.ZipFile(out) as archive:  # zipfile reads it as the stated size, no error
            assert len(archive.read(name)) == stated
    return out


def test_a_zip_bomb_is_refused_before_inspect_inflates_it(bench, tmp_path, capsys, monkeypatch):
    """The limits are made small so the bombs are small; the rule is the same."""
    from explaincheck.core.bench import inspect_log_size

    monkeypatch.setattr(inspect_log_size, "MAX_MEMBER_BYTES", 1 << 20)
    monkeypatch.setattr(inspect_log_size, "MAX_INFLATED_BYTES", 2 << 20)
    log = write_log(tmp_path / "ok.eval", bench)
    db = str(tmp_path / "r.sqlite")
    honest = with_member(log, tmp_path / "honest.eval", b" " * (3 << 20))
    line = refused(capsys, "import-inspect", str(honest), "--db", db)
    assert line.endswith(
        "honest.eval: member 'samples/extra_epoch_1.json' inflates to 3 MB, over the 1 MB limit"
        " for one member; not read"
    )
    for method in (zipfile.ZIP_DEFLATED, ZSTANDARD):  # Inspect writes zstd members
        liar = tmp_path / f"liar{method}.eval"
        with_member(log, liar, b" " * (3 << 20), stated=1000, method=method)
        line = refused(capsys, "import-inspect", str(liar), "--db", db)
        assert line.endswith(
            f"liar{method}.eval: member 'samples/extra_epoch_1.json' inflates to more than the"
            " 1000 bytes it states; not read"
        )
    many = tmp_path / "many.eval"
    shutil.copyfile(log, many)
    with zipfile.ZipFile(many, "a", compression=zipfile.ZIP_DEFLATED) as archive:
        for index in range(3):
            archive.writestr(f"samples/x{index}_epoch_1.json", b" " * (900 << 10))
    line = refused(capsys, "import-inspect", str(many), "--db", db)
    assert "many.eval: its members inflate to 2.7 MB, over the 2 MB limit for a log" in line
    assert not Path(db).exists()


def test_nonsense_usage_and_times_in_a_log_are_not_stored():
    """A log's token counts and seconds are whatever its writer put there: negative or past
    SQLite's integers, NaN or infinite, they are stored as unknown, never as numbers."""
    from inspect_ai.log import EvalSample
    from inspect_ai.model import ModelOutput, ModelUsage

    from explaincheck.core.bench.inspect_import import logged_reply

    output = ModelOutput.from_content("m", "{}")
    output.usage = ModelUsage(input_tokens=-5, output_tokens=2**70, reasoning_tokens=3)
    output.time = float("nan")
    sample = EvalSample(
        id="a", epoch=1, input="i", target="", output=output, working_time=float("inf")
    )
    reply = logged_reply(sample)
    assert (reply.prompt_tokens, reply.completion_tokens, reply.reasoning_tokens) == (None, None, 3)
    assert reply.latency == 0.0 and reply.extra == {}
    sample.working_time = 1.5
    assert logged_reply(sample).latency == 1.5  # the sample's working time when the output's
