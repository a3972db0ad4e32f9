"""How big an Inspect log ``import-inspect`` reads: checked before Inspect inflates anything.

Why before: an ``.eval`` log is a zip archive, and Inspect inflates each member whole into
memory; a 7 MB log holding a member that inflates to 1.5 GB took 3.2 GB of memory before it was
refused, a bigger one exhausts memory. The zip's central directory states each member's
inflated size: a member past ``MAX_MEMBER_BYTES``, or members past ``MAX_INFLATED_BYTES`` in
all, are refused by those stated sizes at once. A stated size may lie (``zipfile`` inflates a
member's whole stream in one call, then cuts it at the stated size), so each member is then
inflated once here as a stream, in pieces of at most ``PIECE`` bytes, counting: it is refused as
soon as it passes its limit or inflates to more than it states. Only then does Inspect read the
log. A ``.json`` log is read whole and is held to ``MAX_INFLATED_BYTES`` on disk.
"""

from __future__ import annotations

import struct
import zipfile
import zlib
from pathlib import Path
from typing import IO, BinaryIO, cast
from urllib.parse import urlparse
from urllib.request import url2pathname

from explaincheck.core.errors import ExplaincheckError
from explaincheck.core.json_input import size_text

MAX_LOG_BYTES = 1 << 30  # the log file on disk
MAX_MEMBER_BYTES = 256 << 20  # one member inflated (one sample of explaincheck/bench: ~20 KB)
MAX_INFLATED_BYTES = 1 << 30  # every member inflated (the default set's 1,000+ samples: ~50 MB)
PIECE = 1 << 16  # bytes inflated at a time while counting
ZIP_ZSTANDARD = 93  # the method Inspect writes members with (``zipfile_zstd``)
_LOCAL_HEADER = struct.Struct("<4s22xHH")  # signature, ..., name length, extra length


def local_path(name: str | Path) -> Path:
    """The file a log name stands for (Inspect lists a folder's logs as ``file://`` URIs)."""
    parsed = urlparse(str(name))
    if parsed.scheme == "file":
        return Path(url2pathname(parsed.path))
    return Path(name)


def check_log_size(name: str | Path) -> None:
    """Refuse, in one line naming the limit, a log too big to read."""
    path = local_path(name)
    try:
        size = path.stat().st_size
    except OSError as error:
        raise ExplaincheckError(f"{path}: cannot read it ({error.strerror or error})") from None
    if size > MAX_LOG_BYTES:
        raise ExplaincheckError(
            f"{path}: {size_text(size)}, over the {size_text(MAX_LOG_BYTES)} limit for a log"
        )
    if not zipfile.is_zipfile(path):
        if size > MAX_INFLATED_BYTES:
            raise ExplaincheckError(
                f"{path}: {size_text(size)}, over the {size_text(MAX_INFLATED_BYTES)} limit"
                " for a log read whole"
            )
        return
    try:
        with zipfile.ZipFile(path) as archive:
            members = archive.infolist()
    except (zipfile.BadZipFile, OSError, ValueError) as error:
        raise ExplaincheckError(f"{path}: not an Inspect log ({error})") from None
    stated = 0
    for member in members:
        if member.file_size > MAX_MEMBER_BYTES:
            raise ExplaincheckError(_over(path, member, member.file_size))
        stated += member.file_size
    if stated > MAX_INFLATED_BYTES:
        raise ExplaincheckError(
            f"{path}: its members inflate to {size_text(stated)}, over the"
            f" {size_text(MAX_INFLATED_BYTES)} limit for a log; not read"
        )
    with path.open("rb") as handle:
        for member in members:
            real = _inflated(handle, member, path)
            if real > member.file_size:
                raise ExplaincheckError(
                    f"{path}: member {member.filename[:80]!r} inflates to more than the"
                    f" {size_text(member.file_size)} it states; not read"
                )


def _over(path: Path, member: zipfile.ZipInfo, size: int) -> str:
    return (
        f"{path}: member {member.filename[:80]!r} inflates to {size_text(size)}, over the"
        f" {size_text(MAX_MEMBER_BYTES)} limit for one member; not read"
    )


class _Segment:
    """The compressed bytes of one member, as a stream that ends where they end."""

    def __init__(self, handle: BinaryIO, size: int):
        self._handle, self._left = handle, size

    def read(self, size: int = -1) -> bytes:
        size = self._left if size < 0 else min(size, self._left)
        data = self._handle.read(size)
        self._left -= len(data)
        return data


def _inflated(handle: BinaryIO, member: zipfile.ZipInfo, path: Path) -> int:
    """How many bytes ``member`` really inflates to, counted piece by piece and given up one
    piece past what it states (so never more than ``PIECE`` bytes past its limit are made)."""
    handle.seek(member.header_offset)
    header = handle.read(_LOCAL_HEADER.size)
    if len(header) < _LOCAL_HEADER.size or header[:4] != b"PK\x03\x04":
        raise ExplaincheckError(f"{path}: not an Inspect log (a damaged zip member)")
    _, name_length, extra_length = _LOCAL_HEADER.unpack(header)
    handle.seek(member.header_offset + _LOCAL_HEADER.size + name_length + extra_length)
    raw, limit = _Segment(handle, member.compress_size), member.file_size
    if member.compress_type == zipfile.ZIP_STORED:
        return member.compress_size
    if member.compress_type == zipfile.ZIP_DEFLATED:
        return _count_deflated(raw, limit)
    if member.compress_type == ZIP_ZSTANDARD:
        return _count_zstandard(raw, limit)
    raise ExplaincheckError(
        f"{path}: member {member.filename[:80]!r} is compressed with zip method"
        f" {member.compress_type}, which an Inspect log does not use; not read"
    )


def _count_deflated(raw: _Segment, limit: int) -> int:
    inflater, total = zlib.decompressobj(-zlib.MAX_WBITS), 0
    try:
        while chunk := raw.read(PIECE):
            while chunk:
                total += len(inflater.decompress(chunk, PIECE))
                if total > limit:
                    return total
                chunk = inflater.unconsumed_tail
        return total + len(inflater.flush())
    except zlib.error:
        return total  # a damaged stream: Inspect's own reader names it


def _count_zstandard(raw: _Segment, limit: int) -> int:
    import zstandard  # what Inspect's zstd members need anyway (through zipfile_zstd)

    source = cast(IO[bytes], raw)  # it reads like a file, which is all the reader asks
    reader = zstandard.ZstdDecompressor().stream_reader(source, read_across_frames=True)
    total = 0
    try:
        while piece := reader.read(PIECE):
            total += len(piece)
            if total > limit:
                return total
    except zstandard.ZstdError:
        return total  # a damaged stream: Inspect's own reader names it
    return total
