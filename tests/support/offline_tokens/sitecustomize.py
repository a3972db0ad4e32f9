"""Put on PYTHONPATH of an ``inspect eval`` child: Inspect's ``mockllm`` counts tokens with
tiktoken's ``o200k_base``, which tiktoken downloads on first use; on a machine without network
(CI, this suite) that download fails and the eval stops. When the real encoding cannot be had,
a rough stand-in (one token per four characters) counts instead; nothing graded depends on it."""

import tiktoken

_real = tiktoken.get_encoding


class _Rough:
    name = "rough-offline"

    def encode(self, text, **_options):
        return list(range(max(1, len(text) // 4)))


def _get_encoding(name):
    try:
        return _real(name)
    except Exception:
        return _Rough()


tiktoken.get_encoding = _get_encoding
