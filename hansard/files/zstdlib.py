"""The Zstandard module: the standard library's ``compression.zstd`` from Python 3.14, its
backport (``backports.zstd``, the same API) before. Loaded on first use by whoever needs it
(the archive's codec, the reader of compressed rollouts), never by `hansard why`'s start-up."""

from __future__ import annotations

from typing import Any

# The four bytes every Zstandard frame starts with.
MAGIC = b"\x28\xb5\x2f\xfd"


def zstd() -> Any:
    try:
        from compression import zstd as mod  # type: ignore[import-not-found]  # Python 3.14+
    except ImportError:
        from backports import zstd as mod
    return mod
