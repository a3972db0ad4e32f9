"""The one reader of a user's JSON and JSON Lines (``core/json_input.py``, issue 52 point 7): its
bounds hold at their edges (64 levels read, 65 refused; a line of the limit read, one byte more
refused), NaN and overflow are named by field path, bytes that are not UTF-8 by line and column,
and every field is checked for its type. Hostile bytes go to files, never to the terminal."""

from __future__ import annotations

import pytest

from explaincheck.core import json_input
from explaincheck.core.json_input import (
    MAX_DEPTH,
    Fields,
    JsonInputError,
    parse,
    read_json,
    read_json_lines,
    read_limited,
)


def nested(levels: int) -> str:
    return "[" * levels + "]" * levels


def test_depth_is_read_up_to_the_limit_and_refused_past_it():
    assert parse(nested(MAX_DEPTH), "x") == parse(nested(MAX_DEPTH), "x")
    with pytest.raises(JsonInputError, match=r"^x: nested too deeply \(more than 64 levels\)$"):
        parse(nested(MAX_DEPTH + 1), "x")
    with pytest.raises(JsonInputError, match="nested too deeply"):
        parse(nested(200_000), "x")  # past Python's own recursion limit: the same line
    wide = "[" + ",".join(["[1]"] * 10_000) + "]"  # many brackets, shallow: read
    assert len(parse(wide, "x")) == 10_000


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ('{"delta": NaN}', "f:1: field 'delta': NaN is not a number JSON has"),
        ('{"a": {"b": [1, Infinity]}}', "f:1: field 'a.b[1]': Infinity is not a number JSON has"),
        ("[-Infinity]", "f:1: field '[0]': -Infinity is not a number JSON has"),
        ('{"x": 1e999}', "f:1: field 'x': 1e999 is not a number JSON has"),
        ('{"x": 1,}', "f:1:9: not valid JSON (expecting property name enclosed in double quotes)"),
        ("9" * 5000, "f:1: not valid JSON (an integer of more than 4,300 digits)"),
    ],
)
def test_what_is_not_json_is_named(text, said):
    with pytest.raises(JsonInputError) as refused:
        parse(text, "f:1")
    assert str(refused.value).startswith(said), str(refused.value)


def test_a_document_syntax_error_names_line_and_column(tmp_path):
    path = tmp_path / "d.json"
    path.write_text('{\n  "a": 1\n  "b": 2\n}\n')
    with pytest.raises(JsonInputError, match=r"d.json:3:3: not valid JSON \(expecting ','"):
        read_json(path)


def test_json_lines_bounds_encoding_and_blank_lines(tmp_path, monkeypatch):
    path = tmp_path / "a.jsonl"
    path.write_bytes(b'\xef\xbb\xbf{"a": 1}\r\n\n   \n{"a": 2}\n')  # BOM, CRLF, blank lines
    assert read_json_lines(path) == [(1, {"a": 1}), (4, {"a": 2})]
    path.write_bytes(b'{"a": 1}\n{"a": "\xc3\x28"}\n')
    with pytest.raises(
        JsonInputError, match=r"a.jsonl:2: not UTF-8 text \(byte 0xc3 at column 8\)$"
    ):
        read_json_lines(path)
    monkeypatch.setattr(json_input, "MAX_LINE_BYTES", 10)
    path.write_bytes(b'["123456"]\n["1234567"]\n')
    with pytest.raises(JsonInputError, match=r"a.jsonl:2: a line of 11 bytes, over the 10 bytes"):
        read_json_lines(path)


def test_a_file_past_its_limit_is_not_read(tmp_path):
    path = tmp_path / "big.json"
    path.write_bytes(b"[" + b"0," * 600 + b"0]")
    assert len(read_json(path)) == 601
    with pytest.raises(JsonInputError, match=r"big.json: larger than the 1 KB limit for a set"):
        read_limited(path, limit=1024, what="set")
    with pytest.raises(JsonInputError, match=r"nowhere.json: no such file$"):
        read_json(tmp_path / "nowhere.json")
    with pytest.raises(JsonInputError, match=r": a folder, not a JSON file$"):
        read_json(tmp_path)


def test_a_document_not_utf8_names_line_and_column(tmp_path):
    path = tmp_path / "d.json"
    path.write_bytes(b'{\n "a": "ok",\n "b": "\xff"\n}')
    with pytest.raises(JsonInputError, match=r"byte 0xff at line 3, column 8\)$"):
        read_json(path)


def test_fields_are_checked_by_type_and_named():
    row = Fields({"id": "q1", "n": 3, "ok": True, "p": 0.5, "s": [1, 2], "m": {}}, "f:7")
    assert (row.text("id"), row.integer("n"), row.boolean("ok")) == ("q1", 3, True)
    assert (row.number("p"), row.number("n"), row.items("s", int), row.mapping("m")) == (
        0.5,
        3.0,
        [1, 2],
        {},
    )
    assert row.text("missing", optional=True) is None
    for call, said in (
        (lambda: row.text("n"), "f:7: field 'n': expected a string, got an integer"),
        (lambda: row.integer("ok"), "f:7: field 'ok': expected an integer, got true"),
        (lambda: row.number("id"), "f:7: field 'id': expected a number, got a string"),
        (lambda: row.items("m"), "f:7: field 'm': expected a list, got an object"),
        (lambda: row.items("s", str), "f:7: field 's': item 1: expected a string, got an integer"),
        (lambda: row.text("gone"), "f:7: missing field 'gone'"),
        (lambda: Fields([1], "f:8", "an answer"), "f:8: expected an answer, got a list"),
    ):
        with pytest.raises(JsonInputError) as refused:
            call()
        assert str(refused.value) == said
