"""Meaning search's copy of a model's passage vectors beside the store, mapped instead of read.

Loading every vector from SQLite (the join of ``passage_vectors`` and ``vectors``, float16 to
float32, the sign bits) costs seconds at a few hundred thousand passages, and every new process
(each CLI search, each MCP server) paid it on its first meaning search. The copy is derived and
disposable: delete it and the next ``hansard embed`` (or a caching request's search, through
``hansard.store.kept.vector_copy``) writes it again.

Always true:

- It lives in ``<store folder>/vectors/<model>/``, owner-only (folder 0700, files 0600).
  ``meta.json`` names the store, the model, the ``vector_stamp`` it was read at, its row and
  message counts, and the four files of one build: ``mat-<build>.npy`` float32 (rows, dim),
  ``bits-<build>.npy`` uint64 (words, rows) sign bits (:func:`sign_bits`),
  ``rows-<build>.npy`` int64 (3, rows) message id, start, end, and ``hashes-<build>.npy`` uint8
  (rows, 16) the passages' text hashes. Rows are in the store's order (message id, start). A
  row whose text has no vector under the model has message id -1 and a zero vector: no message
  passes the filters with that id.
- Files are written under temporary names, moved into place, and only then is ``meta.json``
  replaced, so a reader sees one whole build or the one before; a process that mapped the
  old files keeps them (an unlinked file lives while it is mapped). Writers take ``lock``.
- A build is used only when its meta names this store, model and the store's current stamp,
  and every file's .npy header has the dtype and shape meta gives it (a truncated file fails
  to map). Anything else is rewritten by ``refresh``; :func:`open_current` never writes, and
  answers None for a copy that is not current.
- A rewrite trusts no arithmetic on stamps. A stamp cannot tell appended passages from a
  message edited and embedded again (the builder's mark steps back and returns) or from a
  reindex (message ids start over), and its time has one-second steps. So a rewrite reads the
  store's passage list afresh (ids, spans, text hashes: no vectors) and takes
  each passage's vector from the old build by its text hash, reading from SQLite only the
  texts it lacks: a text hash names one text and a model id its weights, so its vector never
  changes. Without an old build, or when most texts are new, it reads the join in one pass.
- Memory stays low: the files are mapped read-only, so their pages are the page cache's,
  shared by every process and dropped under pressure (the mapped pages a search touched show
  in its RSS as RssFile, not as its own memory), and a rewrite goes through in blocks of
  ``CHUNK`` rows. The kernel's read-ahead is left on: told to expect random reads, a search on
  a cold page cache read its rows one page at a time, slowly on every search until the pages
  were in; with read-ahead only the first search pays for reading them.

``HANSARD_VECTOR_CACHE=0`` turns it off (the benchmark's baseline).
"""

from __future__ import annotations

import json
import os
import re
import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hansard.files.privfile import write_private

FORMAT = "hansard-vector-cache/1"
CHUNK = 32768
HASH_BYTES = 16
_FILES = ("mat", "bits", "rows", "hashes")


@dataclass
class Cached:
    """One build, mapped: what :class:`meaning.VectorIndex` searches."""

    stamp: tuple[Any, ...]
    ids: Any
    starts: Any
    ends: Any
    mat: Any
    bits: Any
    hashes: Any
    messages: int


def enabled() -> bool:
    return os.environ.get("HANSARD_VECTOR_CACHE", "").lower() not in ("0", "off", "none", "no")


def folder(store: str, model: str) -> Path | None:
    """Where ``model``'s copy of the store at ``store`` lives; None for a store in memory."""
    if not store:
        return None
    return Path(store).parent / "vectors" / re.sub(r"[^A-Za-z0-9._@-]", "_", model)


def open_current(index: Any, model: str) -> Cached | None:
    """The copy of ``model``'s vectors at the store's current stamp, mapped when one is on disk;
    None when there is none (or it is turned off). Writes nothing."""
    if not enabled():
        return None
    store, *stamp = index.vector_stamp(model)
    where = folder(store, model)
    if where is None or not stamp[1]:
        return None  # in memory, or nothing embedded yet
    return load(where, store, model, tuple(stamp))


def sign_bits(mat: Any) -> Any:
    """(words, rows) uint64: bit i of a row is set where dimension i is positive; the last
    word is padded with zero bits, which never disagree."""
    import numpy as np

    packed = np.packbits(mat > 0, axis=1)
    pad = -packed.shape[1] % 8
    if pad:
        packed = np.pad(packed, ((0, 0), (0, pad)))
    return np.ascontiguousarray(packed.view(np.uint64).T)


def load(where: Path, store: str, model: str, stamp: tuple[Any, ...] | None) -> Cached | None:
    """The build in ``where`` when it is whole, of this store and model and (unless None) this
    stamp; else None. Never raises for a bad or missing file."""
    import numpy as np

    try:
        meta = json.loads((where / "meta.json").read_bytes())
        if (meta.get("format") != FORMAT or meta.get("store") != store or meta.get("model") != model
                or (stamp is not None and tuple(meta.get("stamp") or ()) != tuple(stamp))):
            return None
        n, dim, words = int(meta["rows"]), int(meta["dim"]), int(meta["words"])
        want = {"mat": (np.float32, (n, dim)), "bits": (np.uint64, (words, n)), "rows": (np.int64, (3, n)),
                "hashes": (np.uint8, (n, HASH_BYTES))}
        arrays = {}
        for name, (dtype, shape) in want.items():
            fname = meta["files"][name]
            if "/" in fname or not fname.startswith(name + "-"):
                return None
            a = np.load(where / fname, mmap_mode="r", allow_pickle=False)
            if a.dtype != np.dtype(dtype) or a.shape != shape or not a.flags.c_contiguous:
                return None
            arrays[name] = a
    except (OSError, ValueError, KeyError, TypeError, EOFError):
        return None  # missing, truncated, foreign: never trusted
    rows = arrays["rows"]
    return Cached(tuple(meta["stamp"]), rows[0], rows[1], rows[2], arrays["mat"], arrays["bits"],
                  arrays["hashes"], int(meta["messages"]))


def refresh(index: Any, model: str) -> Cached | None:
    """Write the copy for the store's current stamp unless it is already on disk (what the
    builder calls after embedding). Raises OSError when the folder cannot be written."""
    import fcntl

    store, _at, top, _mark = index.vector_stamp(model)
    where = folder(store, model)
    if where is None or not top or not enabled():
        return None
    where.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    where.mkdir(mode=0o700, exist_ok=True)
    fd = os.open(where / "lock", os.O_CREAT | os.O_RDWR, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        with index.snapshot():  # the stamp first, then the passages it stands for, in one state
            stamp = tuple(index.vector_stamp(model)[1:])
            got = load(where, store, model, stamp)
            if got is not None:
                return got  # another process wrote it while this one waited
            old = load(where, store, model, None)
            meta = _write(index, model, where, old)
        meta.update(format=FORMAT, store=store, model=model, stamp=list(stamp))
        write_private(where / "meta.json", json.dumps(meta).encode())
        _sweep(where, set(meta["files"].values()))
        return load(where, store, model, stamp)
    finally:
        os.close(fd)


def _write(index: Any, model: str, where: Path, old: Cached | None) -> dict[str, Any]:
    """The four files of a new build (moved into place, not yet named by meta.json)."""
    import numpy as np

    keys = None
    reuse: dict[bytes, int] = {}
    if old is not None and len(old.ids):
        keys = index.passage_keys()
        reuse = dict(zip(np.ascontiguousarray(old.hashes).view(f"V{HASH_BYTES}")[:, 0].tolist(),
                         range(len(old.ids)), strict=True))
        missing = {k[3] for k in keys} - reuse.keys()
        if len(missing) > len(keys) // 2:
            keys, reuse = None, {}  # mostly new texts: one pass over the join is cheaper
    n = len(keys) if keys is not None else index.passage_count()
    dim = index.vector_dim(model) or 1
    build = secrets.token_hex(6)
    tmp: dict[str, Path] = {}
    try:
        if keys is not None and old is not None and old.mat.shape[1] == dim:
            blocks = _blocks_reused(keys, reuse, index.vectors_by_hash(model, sorted(missing)), old)
        else:
            blocks = _blocks_read(index.passages_with_vectors(model), dim)
        words = -(-dim // 64)
        arr = {name: _create(where, name, build, dtype, shape, tmp) for name, dtype, shape in (
            ("mat", np.float32, (n, dim)), ("bits", np.uint64, (words, n)), ("rows", np.int64, (3, n)),
            ("hashes", np.uint8, (n, HASH_BYTES)))}
        messages, last, at = 0, None, 0
        for ids, starts, ends, mat, hashes in blocks:
            e = at + len(ids)
            arr["mat"][at:e] = mat
            arr["bits"][:, at:e] = sign_bits(mat)
            arr["rows"][0, at:e], arr["rows"][1, at:e], arr["rows"][2, at:e] = ids, starts, ends
            arr["hashes"][at:e] = hashes
            real = ids[ids >= 0]
            if len(real):
                messages += int((np.diff(real) != 0).sum()) + (1 if real[0] != last else 0)
                last = int(real[-1])
            at = e
        if at != n:
            raise RuntimeError(f"the store's passages changed while the vector cache was written ({at} of {n})")
        files = {}
        for name, a in arr.items():
            a.flush()  # msync: the data is on disk before meta.json names it
            final = where / f"{name}-{build}.npy"
            os.replace(tmp[name], final)
            files[name] = final.name
        arr.clear()
        tmp.clear()
        return {"rows": n, "dim": dim, "words": words, "messages": messages, "files": files}
    finally:
        for p in tmp.values():
            p.unlink(missing_ok=True)


def _blocks_read(rows: Any, dim: int) -> Any:
    """(ids, starts, ends, float32 matrix, hashes) blocks of the join, ``CHUNK`` rows each."""
    buf: list[Any] = []
    for r in rows:
        buf.append(r)
        if len(buf) == CHUNK:
            yield _block(buf, dim)
            buf = []
    if buf:
        yield _block(buf, dim)


def _block(buf: list[Any], dim: int) -> tuple[Any, ...]:
    import numpy as np

    zero = bytes(dim * 2)
    ok = [r[4] is not None and len(r[4]) == dim * 2 for r in buf]
    ids = np.fromiter((r[0] if good else -1 for r, good in zip(buf, ok, strict=True)), np.int64, len(buf))
    starts = np.fromiter((r[1] for r in buf), np.int64, len(buf))
    ends = np.fromiter((r[2] for r in buf), np.int64, len(buf))
    mat = np.frombuffer(b"".join(r[4] if good else zero for r, good in zip(buf, ok, strict=True)),
                        np.float16).reshape(len(buf), dim).astype(np.float32)
    hashes = np.frombuffer(b"".join(_hash16(r[3]) for r in buf), np.uint8).reshape(len(buf), HASH_BYTES)
    return ids, starts, ends, mat, hashes


def _blocks_reused(keys: list[Any], reuse: dict[bytes, int], fetched: dict[bytes, bytes], old: Cached) -> Any:
    """The same blocks from the store's passage list: vectors from the old build by text hash,
    the rest from ``fetched``."""
    import numpy as np

    dim = old.mat.shape[1]
    for a in range(0, len(keys), CHUNK):
        part = keys[a:a + CHUNK]
        m = len(part)
        src = np.fromiter((reuse.get(k[3], -1) for k in part), np.int64, m)
        mat = np.zeros((m, dim), np.float32)
        have = src >= 0
        mat[have] = old.mat[src[have]]
        ids = np.fromiter((k[0] for k in part), np.int64, m)
        for i in np.flatnonzero(~have).tolist():
            blob = fetched.get(part[i][3])
            if blob is not None and len(blob) == dim * 2:
                mat[i] = np.frombuffer(blob, np.float16)
            else:
                ids[i] = -1
        starts = np.fromiter((k[1] for k in part), np.int64, m)
        ends = np.fromiter((k[2] for k in part), np.int64, m)
        hashes = np.frombuffer(b"".join(_hash16(k[3]) for k in part), np.uint8).reshape(m, HASH_BYTES)
        yield ids, starts, ends, mat, hashes


def _hash16(h: bytes) -> bytes:
    return bytes(h[:HASH_BYTES]).ljust(HASH_BYTES, b"\0")


def _create(where: Path, name: str, build: str, dtype: Any, shape: tuple[int, ...], tmp: dict[str, Path]) -> Any:
    """A new .npy of ``shape`` under a temporary name, created owner-only, mapped for writing."""
    import numpy as np

    path = where / f".{name}-{build}.npy.tmp"
    os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
    tmp[name] = path
    return np.lib.format.open_memmap(path, mode="w+", dtype=dtype, shape=shape)


def _sweep(where: Path, keep: set[str]) -> None:
    """Files of older builds and temporary files left by a writer that died (under the lock,
    so no other writer is mid-build)."""
    for p in where.iterdir():
        if p.name in keep or p.name in ("meta.json", "lock"):
            continue
        if p.suffix in (".npy", ".tmp"):
            p.unlink(missing_ok=True)
