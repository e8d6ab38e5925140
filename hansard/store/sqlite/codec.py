"""How large text and raw records are stored.

Text (an edit's whole file) is zlib at level 1. A raw record is a Zstandard frame at level 3:
about twice as fast to write as zlib at level 1, and smaller. A record archived before
(a zlib stream) stays readable: a blob is read by its first bytes, a Zstandard frame's magic
number or a zlib header.
"""

from __future__ import annotations

import threading
import zlib

from hansard.zstdlib import MAGIC, zstd

RECORD_LEVEL = 3

_local = threading.local()


def pack(text: str | None) -> bytes | None:
    return None if text is None else zlib.compress(text.encode("utf-8", "surrogatepass"), 1)


def unpack(blob: bytes | None) -> str | None:
    return None if blob is None else zlib.decompress(blob).decode("utf-8", "surrogatepass")


def pack_record(data: bytes) -> bytes:
    """A raw record's bytes as stored: one Zstandard frame."""
    comp = getattr(_local, "comp", None)
    if comp is None:
        mod = zstd()  # loaded on first use: `hansard why` never reads a raw record
        comp = _local.comp = (mod.ZstdCompressor(level=RECORD_LEVEL), mod.ZstdCompressor.FLUSH_FRAME)
    return comp[0].compress(data, mode=comp[1])


def unpack_record(blob: bytes) -> bytes:
    """A raw record's bytes, stored by ``pack_record`` or (older stores) zlib."""
    if blob[:4] == MAGIC:
        dec = getattr(_local, "decompress", None)
        if dec is None:
            dec = _local.decompress = zstd().decompress
        return dec(blob)
    return zlib.decompress(blob)
