"""How large text and raw records are stored: zlib at level 1 (fast; transcripts compress ~5x)."""

from __future__ import annotations

import zlib


def pack(text: str | None) -> bytes | None:
    return None if text is None else zlib.compress(text.encode("utf-8", "surrogatepass"), 1)


def unpack(blob: bytes | None) -> str | None:
    return None if blob is None else zlib.decompress(blob).decode("utf-8", "surrogatepass")


def pack_record(data: bytes) -> bytes:
    return zlib.compress(data, 1)


def unpack_record(blob: bytes) -> bytes:
    return zlib.decompress(blob)
