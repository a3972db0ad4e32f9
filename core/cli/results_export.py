"""What ``results`` writes besides its table: costs per row, the open export formats and the
campaign file of a stored campaign.

Why here and not in ``results_command``: the report and the Python API write the same files
and costs, so the rules (which prices apply, where a file goes) are in one place.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from explaincheck.core import json_output
from explaincheck.core.atomic_files import write_bytes_atomically, write_text_atomically
from explaincheck.core.campaign.prices import campaign_prices, with_costs
from explaincheck.core.errors import ExplaincheckError
from explaincheck.core.store import CampaignRow


def costed(
    rows: list[dict[str, Any]], campaigns: Sequence[CampaignRow], args: argparse.Namespace
) -> list[dict[str, Any]]:
    prices = campaign_prices(
        campaigns, getattr(args, "price", ()) or (), getattr(args, "prices", None)
    )
    return with_costs(rows, prices)


# C1 controls, bidi controls and line/paragraph separators: json.dumps(ensure_ascii=False)
# writes them raw, and a terminal or editor acts on them.
_JSON_UNSAFE = re.compile("[\x7f-\x9f\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def json_text(rows: list[dict[str, Any]]) -> str:
    """The rows as JSON, readable UTF-8 but with every control character escaped as \\uXXXX
    (they can only occur inside strings, where the escape means the same character)."""
    text = json_output.dumps(rows, ensure_ascii=False)
    return _JSON_UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def export(rows: list[dict[str, Any]], fmt: str, out: str | None, db: str = "") -> int:
    """Write the rows in ``fmt`` to ``out`` (stdout when None; Parquet only to a pipe), never
    over the results database ``db`` they were read from."""
    from explaincheck.core.analysis.export import write_file, write_rows

    if fmt in ("table", "json"):
        if fmt == "table":
            raise ExplaincheckError("--out needs a file format: --format json|jsonl|csv|parquet")
        text = (json_text(rows) + "\n").encode("utf-8")
        if out is None:
            sys.stdout.buffer.write(text)
        else:
            write_bytes_atomically(_writable(out, db), text)
        return 0
    if out is None:
        if fmt == "parquet" and sys.stdout.isatty():
            raise ExplaincheckError("--format parquet is binary: give --out FILE")
        sys.stdout.flush()
        write_rows(lambda: rows, fmt, sys.stdout.buffer)
        sys.stdout.buffer.flush()
        return 0
    path = write_file(rows, fmt, _writable(out, db))
    print(f"wrote {len(rows)} executions to {path}", file=sys.stderr)
    return 0


def _writable(out: str, db: str = "") -> Path:
    path = Path(out)
    if db and path.exists() and Path(db).exists() and path.resolve() == Path(db).resolve():
        raise ExplaincheckError(f"--out {path} is the results database itself: choose another file")
    if path.is_dir():
        raise ExplaincheckError(f"--out {path} is a folder")
    if not path.parent.is_dir():
        raise ExplaincheckError(f"--out {path}: folder {path.parent} does not exist")
    return path


def write_config(campaigns: Sequence[CampaignRow], out: str, db: str) -> int:
    """The campaign file of the last campaign that recorded its run options."""
    from explaincheck.core.cli.campaign_file import config_text

    recorded = [c for c in campaigns if isinstance(c.settings.get("run_options"), dict)]
    if not recorded:
        raise ExplaincheckError(
            f"{db} records no run options (its campaigns ran before campaign files existed)"
        )
    campaign = recorded[-1]
    # the file read holds the campaign (a merged file, a copy): resuming it means this one
    options = {**campaign.settings["run_options"], "db": db}
    comment = (
        f"campaign {campaign.id} of {db}, run with explaincheck"
        f" {campaign.settings.get('explaincheck_version', '?')} on {campaign.created_at}\n"
        "re-run it with: explaincheck run --config THIS_FILE"
    )
    text = config_text(options, comment)
    if out == "-":
        sys.stdout.write(text)
    else:
        write_text_atomically(_writable(out, db), text)
        print(f"wrote the campaign file of campaign {campaign.id} to {out}", file=sys.stderr)
    return 0
