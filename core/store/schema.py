"""The results file's schema: the tables of version 1, the migrations that bring a file to the
current version, and the statements a new file is made of.

Each owner of a table (``campaigns``, ``executions``, ``reply_cache``, ``probes``) reads and
writes it; its columns are declared here alone, so a migration is one entry of ``MIGRATIONS``
and ``connection`` checks every file against the same statements.
"""

from __future__ import annotations

import functools
import sqlite3

# ``PRAGMA application_id`` marks our files ("EXCK"); ``PRAGMA user_version`` is the schema version.
APPLICATION_ID = 0x4558434B
SCHEMA_VERSION = 6

SCHEMA_V1 = """
CREATE TABLE campaigns (
    id INTEGER PRIMARY KEY,
    identity TEXT NOT NULL,
    settings TEXT NOT NULL,
    environment TEXT NOT NULL,
    model_path TEXT NOT NULL,
    model_hash TEXT NOT NULL,
    constants TEXT NOT NULL,
    planned INTEGER NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    status TEXT NOT NULL
);
CREATE TABLE executions (
    id INTEGER PRIMARY KEY,
    exec_key TEXT NOT NULL UNIQUE,
    campaign_id INTEGER NOT NULL REFERENCES campaigns(id),
    environment TEXT NOT NULL,
    model_hash TEXT NOT NULL,
    llm TEXT NOT NULL,
    host TEXT NOT NULL DEFAULT '',
    category TEXT NOT NULL,
    dimension TEXT NOT NULL,
    selection TEXT NOT NULL,
    case_index INTEGER NOT NULL,
    case_key TEXT NOT NULL,
    positive INTEGER,
    states TEXT NOT NULL,
    valuations TEXT NOT NULL,
    delta REAL NOT NULL,
    repeat INTEGER NOT NULL,
    prompt TEXT NOT NULL,
    schema TEXT NOT NULL,
    options TEXT NOT NULL,
    reply TEXT,
    thinking TEXT NOT NULL DEFAULT '',
    answer TEXT,
    expected TEXT,
    verdict TEXT NOT NULL,
    reason TEXT NOT NULL,
    abs_error REAL,
    grading TEXT NOT NULL,
    latency REAL,
    prompt_tokens INTEGER,
    completion_tokens INTEGER,
    cached INTEGER NOT NULL DEFAULT 0,
    error TEXT,
    attempts INTEGER NOT NULL DEFAULT 1,
    started_at TEXT NOT NULL,
    finished_at TEXT NOT NULL
);
CREATE INDEX executions_by_verdict ON executions(verdict);
CREATE INDEX executions_by_category ON executions(category);
CREATE TABLE replies (
    backend TEXT NOT NULL,
    host TEXT NOT NULL,
    model TEXT NOT NULL,
    request_hash TEXT NOT NULL,
    options TEXT NOT NULL,
    text TEXT NOT NULL,
    thinking TEXT NOT NULL,
    latency REAL,
    prompt_tokens INTEGER,
    completion_tokens INTEGER,
    created_at TEXT NOT NULL,
    PRIMARY KEY (backend, host, model, request_hash)
);
"""

# The behavioural probes' table (core/campaign/probes.py), created on the first probe stored.
PROBE_TABLE = """CREATE TABLE IF NOT EXISTS factor_behaviour (
    llm TEXT NOT NULL, exec_key TEXT NOT NULL, probe TEXT NOT NULL, state INTEGER NOT NULL,
    prompt TEXT NOT NULL, reply TEXT, action TEXT,
    PRIMARY KEY (llm, exec_key, probe))"""


# Migrations from version N to N+1 (SQL run inside one transaction); a new file runs them all
# after ``SCHEMA_V1``.
# v2: ``wording`` (which phrasing of the question) and ``family`` (the key of the case a
# metamorphic variant came from, else the case's own key), read from ``case_key``
# (``TestCase.key``: ``...~w1~m:swap``) as virtual columns, so no writer has to fill them and
# rows stored before v2 get wording 0 and their own key as family.
_WORDING_MARK, _VARIANT_MARK = "~w", "~m:"
MIGRATIONS: dict[int, str] = {
    1: f"""
    ALTER TABLE executions ADD COLUMN wording INTEGER GENERATED ALWAYS AS (
        CASE WHEN instr(case_key, '{_WORDING_MARK}') > 0
        THEN CAST(substr(case_key, instr(case_key, '{_WORDING_MARK}') + 2) AS INTEGER)
        ELSE 0 END) VIRTUAL;
    ALTER TABLE executions ADD COLUMN family TEXT GENERATED ALWAYS AS (
        CASE WHEN instr(case_key, '{_VARIANT_MARK}') > 0
        THEN substr(case_key, 1, instr(case_key, '{_VARIANT_MARK}') - 1)
        ELSE case_key END) VIRTUAL
    """,
    # v3: ``reading`` (1: a case answered by reading its words, docs/method.md §4) and ``gap``
    # (the value difference that decides the case); NULL in rows stored before v3 (unknown).
    2: """
    ALTER TABLE executions ADD COLUMN reading INTEGER;
    ALTER TABLE executions ADD COLUMN gap REAL
    """,
    # v4: usage beyond prompt/completion tokens (reasoning tokens, of the completion) and the
    # structured-output mode a reply was asked with (json_schema, json_object, text; '' when
    # the backend has one way only). Old rows: NULL and ''.
    3: """
    ALTER TABLE executions ADD COLUMN reasoning_tokens INTEGER;
    ALTER TABLE executions ADD COLUMN output_mode TEXT NOT NULL DEFAULT '';
    ALTER TABLE replies ADD COLUMN reasoning_tokens INTEGER;
    ALTER TABLE replies ADD COLUMN output_mode TEXT NOT NULL DEFAULT ''
    """,
    # v5: an execution's key ends with the identity of the campaign that planned it
    # (``plan.campaign_key``), so a second campaign in the file never reuses the first one's
    # rows. Old rows get the identity of the campaign they are stored under, the behavioural
    # probes the key of their execution (first: they are found by the old key). A key that
    # already ends with its campaign's identity (rows copied from a newer file) is kept.
    4: """
    UPDATE executions SET exec_key = exec_key || '|' || (
        SELECT identity FROM campaigns WHERE campaigns.id = executions.campaign_id)
    WHERE EXISTS (SELECT 1 FROM campaigns WHERE campaigns.id = executions.campaign_id
        AND substr(executions.exec_key, -length(campaigns.identity) - 1) != '|' || identity)
    """,
    # v6: the part of the prompt tokens a server took from its prompt cache
    # (``usage.prompt_tokens_details.cached_tokens``), priced apart (core/campaign/prices.py).
    # Old rows and servers that do not say: NULL (unknown, priced as uncached input).
    5: """
    ALTER TABLE executions ADD COLUMN cached_prompt_tokens INTEGER;
    ALTER TABLE replies ADD COLUMN cached_prompt_tokens INTEGER
    """,
}

# Statements of a migration step run first, and only where their table exists (the probes'
# table is made on the first probe stored, so most files have none).
MIGRATIONS_IF_TABLE: dict[int, tuple[str, str]] = {
    4: (
        "factor_behaviour",
        """UPDATE factor_behaviour SET exec_key = exec_key || '|' || (
        SELECT c.identity FROM executions e JOIN campaigns c ON c.id = e.campaign_id
        WHERE e.exec_key = factor_behaviour.exec_key)
    WHERE EXISTS (SELECT 1 FROM executions e JOIN campaigns c ON c.id = e.campaign_id
        WHERE e.exec_key = factor_behaviour.exec_key
        AND substr(e.exec_key, -length(c.identity) - 1) != '|' || c.identity)""",
    )
}


def full_schema() -> list[str]:
    """The statements a new file is made of (version 1, then every migration), read when called
    so that a migration added to ``MIGRATIONS`` is part of it."""
    return [SCHEMA_V1, *(MIGRATIONS[v] for v in sorted(MIGRATIONS))]


@functools.cache
def expected_tables() -> dict[str, tuple[tuple[str, str], ...]]:
    """table -> ((column, declared type), ...) of the tables every file must hold."""
    memory = sqlite3.connect(":memory:")
    memory.executescript(SCHEMA_V1)
    tables = {
        name: tuple((row[1], row[2]) for row in memory.execute(f"PRAGMA table_info({name})"))
        for (name,) in memory.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
    }
    memory.close()
    return tables
