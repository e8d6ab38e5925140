"""How large text and raw records are stored.

Text (an edit's whole file) is zlib at level 1. A raw record is a Zstandard frame at level 1:
faster to write than zlib at level 1, and smaller; a higher level makes a store only a little
smaller for more CPU, which an index spends on every record it reads. A record archived before
(a zlib stream) stays readable: a blob is read by its first bytes, a Zstandard frame's magic
number or a zlib header.

Frames are written by the standard library's Zstandard module (its backport before Python
3.14), which measured faster for writing, and read back by python-zstandard's decompressor,
kept per thread: the standard one sets up a new decompression context for every frame, most
of the cost of a record of a few kB. The measurements are in docs/performance.md (Index).
"""

from __future__ import annotations

import threading
import zlib

from hansard.files.zstdlib import MAGIC, zstd

RECORD_LEVEL = 1

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
    packed: bytes = comp[0].compress(data, mode=comp[1])
    return packed


def unpack_record(blob: bytes) -> bytes:
    """A raw record's bytes, stored by ``pack_record`` or (older stores) zlib."""
    if blob[:4] != MAGIC:
        return zlib.decompress(blob)
    dec = getattr(_local, "dec", None)
    if dec is None:
        import zstandard  # on first use, as above

        mod = zstd()
        dec = _local.dec = (zstandard.ZstdDecompressor().decompress, zstandard.ZstdError, mod.get_frame_size,
                            mod.ZstdError, mod.decompress)
    fast, fast_error, frame_size, error, decompress = dec
    try:
        whole = frame_size(blob) == len(blob)
    except error:
        whole = False
    if whole:
        try:
            return fast(blob)
        except fast_error:
            pass  # a frame that does not state its size
    # Several frames, or a damaged one: the standard module reads the former and raises its
    # own error for the latter, as it always did.
    data: bytes = decompress(blob)
    return data
