"""Open exports of stored results: JSON Lines, CSV and Parquet, one record per execution with
the fields of ``results --json`` (and ``cost``), readable back with pandas.

Why nested fields become JSON text in CSV and Parquet: ``states``, ``answer``, ``expected``,
``valuations``, ``schema``, ``options`` and ``grading`` hold lists and objects whose shape
differs by category, which neither a CSV cell nor one Parquet column type can hold; as JSON
text every reader gets them back exactly (``read_export`` decodes them). JSON Lines keeps them
as JSON values.
"""

from __future__ import annotations

import io
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

import pandas as pd

from explaincheck.core import json_output
from explaincheck.core.atomic_files import write_atomically
from explaincheck.core.csv_text import defused_frame, undefused
from explaincheck.core.json_input import parse, read_json_lines

if TYPE_CHECKING:
    import pyarrow as pa

JSONL, CSV, PARQUET = "jsonl", "csv", "parquet"
SUFFIX = {JSONL: ".jsonl", CSV: ".csv", PARQUET: ".parquet"}
NESTED = ("states", "answer", "expected", "valuations", "schema", "options", "grading")

# C1 controls, bidi controls and line separators, escaped in JSON text (as ``results --json``)
_JSON_UNSAFE = re.compile("[\x7f-\x9f\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def json_line(value: Any) -> str:
    text = json_output.dumps(value, ensure_ascii=False)  # strict: a NaN is null
    return _JSON_UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def flat_row(row: Mapping[str, Any]) -> dict[str, Any]:
    """The row with its nested fields as JSON text (null stays null)."""
    return {
        k: (None if v is None else json_output.dumps(v, ensure_ascii=False)) if k in NESTED else v
        for k, v in row.items()
    }


CHUNK = 100  # rows held at once while an export is written (a thinking text can be 50 KB)


def write_rows(rows: Callable[[], Iterable[Mapping[str, Any]]], fmt: str, out: IO[bytes]) -> None:
    """Write the rows (``rows()`` gives them afresh, one at a time) to a binary stream in
    ``fmt``, ``CHUNK`` rows at a time: memory stays flat however long the texts are. Parquet
    reads the rows twice, first for each column's type (a column empty in the first chunk would
    otherwise get the null type and refuse a later value)."""
    if fmt == JSONL:
        for r in rows():
            out.write((json_line(dict(r)) + "\n").encode("utf-8"))
    elif fmt == CSV:
        header = True
        for chunk in _chunks(rows()):
            text = io.StringIO()
            frame = defused_frame(_frame([flat_row(r) for r in chunk]))
            frame.to_csv(text, index=False, header=header)
            out.write(text.getvalue().encode("utf-8"))
            header = False
    elif fmt == PARQUET:
        import pyarrow as pa
        import pyarrow.parquet as pq

        schema = _parquet_schema(rows())
        with pq.ParquetWriter(out, schema) as writer:
            for chunk in _chunks(rows()):
                writer.write_table(pa.Table.from_pylist([flat_row(r) for r in chunk], schema))
    else:
        raise ValueError(f"unknown export format {fmt!r}")


def _chunks(rows: Iterable[Mapping[str, Any]]) -> Iterator[list[Mapping[str, Any]]]:
    chunk: list[Mapping[str, Any]] = []
    for row in rows:
        chunk.append(row)
        if len(chunk) == CHUNK:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def _parquet_schema(rows: Iterable[Mapping[str, Any]]) -> pa.Schema:
    """One Arrow type per column, unified over every chunk (null where a column is empty)."""
    import pyarrow as pa

    schemas = [pa.Table.from_pylist([flat_row(r) for r in chunk]).schema for chunk in _chunks(rows)]
    if not schemas:
        return pa.schema([])
    return pa.unify_schemas(schemas, promote_options="permissive")


def write_file(
    rows: Callable[[], Iterable[Mapping[str, Any]]] | Iterable[Mapping[str, Any]],
    fmt: str,
    path: str | Path,
) -> Path:
    """``rows``: a function giving the rows afresh (streamed), or the rows themselves."""
    path = Path(path)
    source = rows if callable(rows) else _again(list(rows))
    write_atomically(path, lambda out: write_rows(source, fmt, out), binary=True)
    return path


def _again(rows: list[Mapping[str, Any]]) -> Callable[[], Iterable[Mapping[str, Any]]]:
    return lambda: rows


def _frame(rows: list[dict[str, Any]]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=list(rows[0]) if rows else None)


def read_export(path: str | Path) -> pd.DataFrame:
    """An export read back as a DataFrame, nested fields decoded (the ``--json`` values)."""
    path = Path(path)
    if path.suffix == SUFFIX[JSONL]:
        # written by this project, read back from wherever the user kept it: the one reader
        # (older exports may hold NaN, hence ``constants``)
        records = [value for _, value in read_json_lines(path, what="export", constants=True)]
        return pd.DataFrame(records, columns=list(records[0]) if records else None)
    if path.suffix == SUFFIX[PARQUET]:
        frame = pd.read_parquet(path)
    else:
        frame = pd.read_csv(path).map(undefused)
    for column in NESTED:
        if column in frame.columns:
            where = f"{path}: column {column}"
            frame[column] = [
                parse(v, where, constants=True) if isinstance(v, str) else None
                for v in frame[column]
            ]
    return frame
