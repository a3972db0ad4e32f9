"""Writing a training set: ``train.jsonl``, ``index.jsonl``, ``dataset_info.json`` and a
``README.md`` dataset card (what is in it, the split, the hashes).

Why a card: a training file without its provenance cannot be trusted to be free of the
held-out questions, nor traced back to the model and oracle its labels came from. The card is
a Hugging Face dataset card (YAML front matter naming the data file, then text); the same facts
are in ``dataset_info.json`` for programs.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from explaincheck.core.analysis.train_set import DPO, OPENAI_CHAT, TrainingSet, jsonl
from explaincheck.core.atomic_files import write_bytes_atomically
from explaincheck.core.campaign.split_file import RULE_TEXT, Split, category_counts
from explaincheck.core.errors import ExplaincheckError
from explaincheck.core.store import software_version

DATA_FILE, INDEX_FILE, INFO_FILE, CARD_FILE = (
    "train.jsonl",
    "index.jsonl",
    "dataset_info.json",
    "README.md",
)
OPENAI_MINIMUM = 10  # OpenAI refuses a fine-tuning file with fewer examples

FORMAT_WORDS = {
    OPENAI_CHAT: (
        'OpenAI chat fine-tuning JSONL: one `{"messages": [user, assistant]}` per line; the'
        " user turn is the prompt explaincheck asked, the assistant turn the oracle's answer in"
        " the reply schema."
    ),
    "sft": (
        "conversational `messages` records, as TRL's `SFTTrainer` reads them: the user turn is"
        " the prompt explaincheck asked, the assistant turn the oracle's answer in the reply"
        " schema."
    ),
    DPO: (
        "conversational preference records, as TRL's `DPOTrainer` reads them: `prompt` (the"
        " user turn), `chosen` (the oracle's answer) and `rejected` (an LLM's own reply that the"
        " grader failed), one per distinct failing reply."
    ),
}


def dataset_info(found: TrainingSet, split: Split, data_sha256: str, db: str) -> dict[str, Any]:
    return {
        "name": "explaincheck-training-set",
        "format": found.format,
        "explain": found.explain,
        "records": len(found.records),
        "records_per_category": found.per_category(),
        "training_questions_per_category": dict(sorted(found.questions.items())),
        "left_out": dict(sorted(found.left_out.items())),
        "data_file": DATA_FILE,
        "data_sha256": data_sha256,
        "source": db,
        "split": {
            "sha256": split.sha256,
            "by": split.by,
            "rule": RULE_TEXT[split.by],
            "seed": split.seed,
            "held_out_share": split.held_out_share,
            "train_questions": category_counts(split.train),
            "held_out_questions": category_counts(split.held_out),
        },
        "models": [{"environment": e, "model_hash": h} for h, e in sorted(found.models.items())],
        "explaincheck": software_version(),
    }


def card_text(info: dict[str, Any]) -> str:
    """The README: front matter, then what is in it, the split and the hashes."""
    split = info["split"]
    rows = "\n".join(
        f"| {category} | {count} | {info['training_questions_per_category'].get(category, 0)} |"
        f" {split['held_out_questions'].get(category, 0)} |"
        for category, count in info["records_per_category"].items()
    )
    left = "\n".join(f"- {why}: {n}" for why, n in info["left_out"].items()) or "- nothing"
    models = "\n".join(f"- {m['environment']}: `{m['model_hash']}`" for m in info["models"])
    explain = (
        "Each assistant turn starts with the oracle's values behind the answer on a line of its"
        " own (for example `Q(left) = 0.53 > Q(up) = 0.27`), then the JSON answer."
        if info["explain"]
        else "The assistant turn is the JSON answer alone."
    )
    return f"""---
configs:
- config_name: default
  data_files:
  - split: train
    path: {DATA_FILE}
tags:
- explaincheck
- mdp-explanations
---

# explaincheck training set ({info["format"]})

{info["records"]} records from the **train part** of a split of `{info["source"]}`, in
{FORMAT_WORDS[info["format"]]} {explain}

Every label is exact: the answer of a probabilistic model checker (Storm) for the MDP the
question is about, and every record was checked with explaincheck's own grader: a chosen answer
is in only if it passes, a rejected reply only if it fails (`fail` or `invalid`).
`{INDEX_FILE}` gives each record's origin on the same line (environment, model hash, case key,
category; the LLM of a rejected reply).

Load it with `datasets.load_dataset("json", data_files="{DATA_FILE}")`.

| category | records | training questions | held-out questions (not here) |
|---|--:|--:|--:|
{rows}

Left out:
{left}

## The split

- split.json sha256 `{split["sha256"]}`, by {split["by"]}, seed {split["seed"]}, held-out share
  {split["held_out_share"]}.
- Rule: {split["rule"]}.
- The held-out questions are **not** in this set: train on it, then judge on them
  (`explaincheck compare BASE NEW --cases split.json:held-out`).

## Models and hashes

{models}

`{DATA_FILE}` sha256 `{info["data_sha256"]}`; made by explaincheck {info["explaincheck"]}.
"""


def write_training_set(found: TrainingSet, split: Split, db: str, out: str | Path) -> Path:
    """The four files in ``out`` (each written whole); returns the folder."""
    folder = Path(out)
    if folder.exists() and not folder.is_dir():
        raise ExplaincheckError(f"--out {folder} is a file, not a folder")
    data = jsonl(found.records).encode()
    info = dataset_info(found, split, hashlib.sha256(data).hexdigest(), db)
    files = {
        DATA_FILE: data,
        INDEX_FILE: jsonl(found.origins).encode(),
        INFO_FILE: (json.dumps(info, indent=2, allow_nan=False) + "\n").encode(),
        CARD_FILE: card_text(info).encode(),
    }
    try:
        folder.mkdir(parents=True, exist_ok=True)
        for name, content in files.items():
            write_bytes_atomically(folder / name, content)
    except OSError as error:
        raise ExplaincheckError(
            f"--out {folder}: cannot write ({error.strerror or error})"
        ) from None
    return folder
