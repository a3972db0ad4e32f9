"""The result store (``facade.Store``) and the names callers import from
``explaincheck.core.store``; each module of the package owns one part (docs/architecture.md)."""

from explaincheck.core.store.connection import StoreError, Transaction, check_writable
from explaincheck.core.store.executions import LEAN_COLUMNS, LEAN_REPLY_CHARS
from explaincheck.core.store.facade import Store
from explaincheck.core.store.frame import (
    EXTRA_COLUMNS,
    RESULT_COLUMNS,
    result_dict,
    results_frame,
    rows_frame,
)
from explaincheck.core.store.records import (
    REPLY_FIELDS,
    CachedReply,
    CampaignRow,
    ExecutionRecord,
    StoredExecution,
    copy_reply,
)
from explaincheck.core.store.schema import (
    APPLICATION_ID,
    MIGRATIONS,
    MIGRATIONS_IF_TABLE,
    PROBE_TABLE,
    SCHEMA_V1,
    SCHEMA_VERSION,
)
from explaincheck.core.store.values import (
    VERSION_KEY,
    now,
    software_version,
    storable,
    storable_json,
    storable_text,
    to_json,
)

_SCHEMA_V1 = SCHEMA_V1  # the name tests and older scripts import

__all__ = [
    "APPLICATION_ID",
    "EXTRA_COLUMNS",
    "LEAN_COLUMNS",
    "LEAN_REPLY_CHARS",
    "MIGRATIONS",
    "MIGRATIONS_IF_TABLE",
    "PROBE_TABLE",
    "REPLY_FIELDS",
    "RESULT_COLUMNS",
    "SCHEMA_V1",
    "SCHEMA_VERSION",
    "VERSION_KEY",
    "CachedReply",
    "CampaignRow",
    "ExecutionRecord",
    "Store",
    "StoreError",
    "StoredExecution",
    "Transaction",
    "check_writable",
    "copy_reply",
    "now",
    "result_dict",
    "results_frame",
    "rows_frame",
    "software_version",
    "storable",
    "storable_json",
    "storable_text",
    "to_json",
]
