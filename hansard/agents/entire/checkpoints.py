"""Entire's checkpoints as hansard reads them from git: which refs hold them, which sessions
each checkpoint kept, and one transcript per session put together from its copies.

Two layouts:

* the branch ``entire/checkpoints/v1`` (local, or a remote's copy ``refs/remotes/<r>/...``):
  ``<id[:2]>/<id[2:]>/metadata.json`` for a checkpoint, and one folder per session ``0/``,
  ``1/``… holding ``full.jsonl`` (split in ``full.jsonl.NNN`` chunks when large), in newer
  versions Entire's compact ``transcript.jsonl`` beside it (hansard.agents.entire.compact), and
  the session's ``metadata.json`` (``session_id``, ``created_at``, ``agent``, ``files_touched``);
* Entire's v2 ref ``refs/entire/checkpoints/v2/main``: the same sharded folders, a session
  holding ``transcript.jsonl`` but no ``full.jsonl`` (its raw transcript is kept on other refs,
  ``v2/full/*``, not read here);
* one ref per checkpoint, ``refs/entire/checkpoints/<id>``: a commit whose tree holds the same
  checkpoint folder, at its root or under its ``<id[:2]>/<id[2:]>`` path.

A session is saved at every checkpoint it reached: newer Entire versions keep the whole
transcript so far each time, older ones only the part since the previous checkpoint. The copies
are taken in time order; a copy holding half or more of the lines gathered so far is a whole
transcript and replaces them when it is at least as long, any other copy is a slice whose new
lines are appended. A JSON document (Gemini) is whole each time: the one with most messages
wins. Which agent wrote it is read from the content by the agents' own sniffers, never from
Entire's ``agent`` field (blank in early checkpoints, wrong on some). A session without a
readable ``full.jsonl`` can be read from its compact copies instead, put together the same way
(``assemble_compact``; hansard.ingest.git_sources decides): one or the other, never both.

Nothing here writes to the repository or fetches: objects are read through one
`git cat-file --batch` (hansard.git.objects). Nothing raises on odd content: a folder that
is not a checkpoint is passed over, and unreadable metadata counts as none. What is read is
bounded by sizes git gives before reading, never by what the content claims: a blob is read
once however many entries name it, and a transcript put together from its chunks has a total
budget (``assemble``).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import orjson

from hansard.agents.entire.compact import NAME as COMPACT

if TYPE_CHECKING:
    from hansard.git.objects import CatFile

BRANCH = "entire/checkpoints/"
REF_PREFIX = "refs/entire/checkpoints/"
V2_MAIN = "refs/entire/checkpoints/v2/main"
CHECKPOINT_ID = re.compile(r"^[0-9a-f]{12}$")
_CHUNK = re.compile(r"^full\.jsonl(?:\.(\d{1,6}))?$")
UUID_TAIL = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
# Session metadata is a few KB; anything larger is not Entire's. What one reading of a store of
# refs reads of metadata in all stops at META_TOTAL: past it, a copy's metadata counts as none.
META_MAX = 1 << 20
META_TOTAL = 64 << 20
# A whole folder walk stops this deep (checkpoint folder + session folder + file, sharded).
MAX_DEPTH = 4


@dataclass
class Copy:
    """One session as one checkpoint kept it."""

    checkpoint: str
    folder: str  # path of the session folder in its tree, e.g. ``00/c9e2351016/0``
    entire_session: str  # Entire's session_id (the agent's, or ``<date>-<uuid>`` in early versions)
    created_at: str
    chunks: list[str]  # blob ids of full.jsonl and its chunks, in order
    files_touched: list[str] = field(default_factory=list)
    agent: str | None = None
    compact: str | None = None  # blob id of the compact transcript.jsonl


def checkpoint_refs(pairs: Iterable[tuple[str, str]]) -> dict[str, list[tuple[str, str]]]:
    """Refs holding checkpoints, grouped into stores read together: each branch copy is a store
    of its own (``refs/heads/entire/checkpoints/v1``, ``refs/remotes/origin/entire/checkpoints/v1``),
    all one-per-checkpoint refs of a prefix are one store (``refs/entire/checkpoints``)."""
    out: dict[str, list[tuple[str, str]]] = {}
    for name, sha in pairs:
        if name == V2_MAIN:
            out.setdefault(name, []).append((name, sha))
        elif name.startswith(REF_PREFIX):
            if CHECKPOINT_ID.match(name.rsplit("/", 1)[-1]):
                out.setdefault(REF_PREFIX.rstrip("/"), []).append((name, sha))
        elif name.startswith("refs/heads/" + BRANCH) or (name.startswith("refs/remotes/") and f"/{BRANCH}" in name):
            out.setdefault(name, []).append((name, sha))
    return out


def store_key(refs: list[tuple[str, str]]) -> str:
    """What a store stands for: its refs and their tips (unchanged: nothing to read)."""
    h = hashlib.blake2b(digest_size=16)
    for name, sha in sorted(refs):
        h.update(f"{name}\t{sha}\n".encode())
    return h.hexdigest()


def read_copies(cat: CatFile, refs: list[tuple[str, str]]) -> list[Copy]:
    """Every session copy the refs' trees hold. The trees are read level by level (the refs'
    roots, then shards, checkpoint folders, session folders), each level's objects in batches
    of one round trip, and a tree seen under another ref is not read twice."""
    from hansard.git.objects import parse_tree

    walked: dict[str, list[tuple[str, str, str]]] = {}

    def load(shas: Iterable[str]) -> None:
        need = [s for s in dict.fromkeys(shas) if s not in walked]
        for sha, got in zip(need, cat.get_many(need), strict=True):
            walked[sha] = parse_tree(got[1]) if got is not None and got[0] == "tree" else []

    tips = cat.get_many([tip for _name, tip in refs])
    roots: list[tuple[str, str]] = []  # (ref name, root tree)
    for (name, _tip), got in zip(refs, tips, strict=True):
        if got is not None and got[0] == "commit" and got[1].startswith(b"tree "):
            roots.append((name, got[1][5:45].decode("ascii", "replace")))
    load(t for _n, t in roots)
    # Level 1: a root's session folders (one ref per checkpoint) and its shards (the branch).
    load(sha for _n, t in roots for mode, name, sha in walked[t] if mode == "40000" and (name.isdigit() or len(name) == 2))
    shards = [sha for _n, t in roots for mode, name, sha in walked[t] if mode == "40000" and len(name) == 2]
    # Level 2: checkpoint folders; level 3: their session folders.
    load(sha for sh in shards for mode, name, sha in walked[sh] if mode == "40000" and len(name) == 10)
    load(s2 for sh in shards for mode, name, sha in walked[sh] if mode == "40000" and len(name) == 10
         for m2, n2, s2 in walked[sha] if m2 == "40000" and n2.isdigit())
    found: list[tuple[str, str, dict[str, str]]] = []  # (checkpoint, session folder path, files)
    seen: set[tuple[str, str]] = set()
    for name, root in roots:
        ref_id = name.rsplit("/", 1)[-1] if name.startswith(REF_PREFIX) else None
        for folder, sessions in _checkpoint_folders(root, walked):
            cid = _checkpoint_id(folder, ref_id)
            if cid is None:
                continue
            for sub, files in sessions.items():
                key = (cid, "/".join(f"{n}={s}" for n, s in sorted(files.items())))
                if key not in seen:
                    seen.add(key)
                    found.append((cid, f"{folder}/{sub}" if folder else sub, files))
    metas = _metadata(cat, [files.get("metadata.json", "") for _c, _f, files in found])
    return [_copy(cid, folder, files, metas.get(files.get("metadata.json", "")))
            for cid, folder, files in found]


def _metadata(cat: CatFile, shas: list[str]) -> dict[str, dict[str, Any]]:
    """Each distinct metadata blob among ``shas``, parsed, read once however many folders name
    it; one over ``META_MAX``, or past ``META_TOTAL`` read in all, counts as none."""
    distinct = [sha for sha in dict.fromkeys(shas) if sha]
    out: dict[str, dict[str, Any]] = {}
    total = 0
    for i in range(0, len(distinct), 256):
        part = distinct[i:i + 256]
        fits = []
        for sha, info in zip(part, cat.info_many(part), strict=True):
            if info is not None and info[1] == "blob" and info[2] <= META_MAX and total + info[2] <= META_TOTAL:
                total += info[2]
                fits.append(sha)
        for sha, got in zip(fits, cat.get_many(fits, max_bytes=META_MAX), strict=True):
            if got is not None and got[0] == "blob":
                try:
                    obj = orjson.loads(got[1])
                except orjson.JSONDecodeError:
                    continue
                if isinstance(obj, dict):
                    out[sha] = obj
    return out


def _checkpoint_id(folder: str, ref_id: str | None) -> str | None:
    parts = folder.split("/") if folder else []
    if len(parts) == 2 and CHECKPOINT_ID.match(parts[0] + parts[1]):
        return parts[0] + parts[1]
    if not parts and ref_id and CHECKPOINT_ID.match(ref_id):
        return ref_id
    return None


def _checkpoint_folders(root: str, walked: dict[str, list[tuple[str, str, str]]]
                        ) -> Iterable[tuple[str, dict[str, dict[str, str]]]]:
    """(folder path, {session folder name: {file name: blob id}}) of each folder that holds
    numbered session folders with a transcript: the root itself (one ref per checkpoint) or
    ``aa/bbbbbbbbbb`` below it. Reads only trees ``read_copies`` loaded."""

    def sessions_in(tree: str) -> dict[str, dict[str, str]]:
        out: dict[str, dict[str, str]] = {}
        for mode, name, sha in walked.get(tree, ()):
            if mode == "40000" and name.isdigit():
                files = {n: s for m, n, s in walked.get(sha, ()) if m.startswith("100")}
                if any(_CHUNK.match(n) for n in files) or COMPACT in files:
                    out[name] = files
        return out

    here = sessions_in(root)
    if here:
        yield "", here
    for mode, shard, sha in walked.get(root, ()):
        if mode != "40000" or len(shard) != 2:
            continue
        for mode2, rest, sha2 in walked.get(sha, ()):
            if mode2 == "40000" and len(rest) == 10:
                found = sessions_in(sha2)
                if found:
                    yield f"{shard}/{rest}", found


def _copy(cid: str, folder: str, files: dict[str, str], meta: dict[str, Any] | None) -> Copy:
    chunks = sorted(((int(m.group(1) or 0), sha) for n, sha in files.items() if (m := _CHUNK.match(n))))
    meta = meta or {}
    sid = meta.get("session_id")
    created = meta.get("created_at")
    touched = meta.get("files_touched")
    agent = meta.get("agent")
    return Copy(checkpoint=cid, folder=folder, compact=files.get(COMPACT),
                entire_session=sid if isinstance(sid, str) and sid else folder,
                created_at=created if isinstance(created, str) else "",
                chunks=[sha for _n, sha in chunks],
                files_touched=[p for p in touched if isinstance(p, str)] if isinstance(touched, list) else [],
                agent=agent if isinstance(agent, str) else None)


def by_session(copies: Iterable[Copy]) -> dict[str, list[Copy]]:
    """Copies grouped by the agent's session: Entire named sessions ``<date>-<uuid>`` before it
    named them ``<uuid>``, and one history can hold both names for one session."""
    out: dict[str, list[Copy]] = {}
    for c in copies:
        m = UUID_TAIL.search(c.entire_session)
        out.setdefault(m.group(0) if m else c.entire_session, []).append(c)
    for cs in out.values():
        cs.sort(key=lambda c: (_when(c.created_at), c.checkpoint, c.folder))
    return out


def _when(s: str) -> str:
    """A sortable form of Entire's created_at (Go: up to 9 fractional digits, any offset)."""
    from hansard.values.timebounds import parse_ts

    t = parse_ts(s) if s else None
    return f"{t:020.6f}" if t is not None else ""


def signature(copies: Iterable[Copy], sizes: dict[str, int | None] | None = None) -> int:
    """What a session's transcript is made of (its copies' checkpoints, folders and blobs, and
    which of their ``full.jsonl`` chunks the repository lacks, from ``sizes``), as a 63-bit
    number: equal means nothing to read again; a blob that arrives (a fetch) changes it."""
    h = hashlib.blake2b(digest_size=8)
    for c in copies:
        lost = "!" if sizes is not None and any(sizes.get(sha) is None for sha in c.chunks) else ""
        h.update(f"{c.checkpoint}\t{c.folder}\t{','.join(c.chunks)}{'+' + c.compact if c.compact else ''}{lost}\n"
                 .encode())
    return int.from_bytes(h.digest(), "big") >> 1


class Merged:
    """A session's lines put together from its copies, added in time order: a copy holding at
    least half of the lines gathered so far is a whole transcript, and the longer (then the
    newer) of the two is kept; any other copy is a slice, and its lines not seen yet are added."""

    def __init__(self) -> None:
        self.lines: list[bytes] = []
        self._seen: set[bytes] = set()
        self.size = 0  # bytes of the lines, a newline each

    def add(self, lines: list[bytes], max_bytes: int | None = None) -> bool:
        """Add one copy's lines; False (and nothing added) when a slice would take the lines
        past ``max_bytes``."""
        seen = self._seen
        if not self.lines or sum(map(seen.__contains__, lines)) * 2 >= len(self.lines):
            if len(lines) >= len(self.lines):
                self.lines, self._seen = list(lines), set(lines)
                self.size = sum(map(len, lines)) + len(lines)
            return True
        new = [x for x in dict.fromkeys(lines) if x not in seen]
        grown = self.size + sum(map(len, new)) + len(new)
        if max_bytes is not None and grown > max_bytes:
            return False
        self.lines += new
        self._seen.update(new)
        self.size = grown
        return True


def blob_sizes(cat: CatFile, copies: Iterable[Copy]) -> dict[str, int | None]:
    """Each chunk blob's size (None: not a blob the repository has), from one `git cat-file
    --batch-check` round of every copy's chunks: what ``assemble`` checks its budget against."""
    wanted = list(dict.fromkeys(sha for c in copies for sha in [*c.chunks, *([c.compact] if c.compact else [])]))
    return {sha: (got[2] if got is not None and got[1] == "blob" else None)
            for sha, got in zip(wanted, cat.info_many(wanted), strict=True)}


def assemble(cat: CatFile, copies: list[Copy], max_bytes: int, sizes: dict[str, int | None] | None = None
             ) -> tuple[bytes | None, dict[str, int]]:
    """One transcript from a session's copies (in time order, see the module docstring), and
    how many copies were used, missing (a blob the repository lacks) or over the budget.

    Bounded by ``max_bytes`` in total, checked from the blobs' sizes before any is read: a copy
    whose chunks add up to more (a chunk may be named any number of times) is left out, and so
    is a slice that would take the transcript past it. A copy made of the same blobs as the one
    before adds nothing and is not read again. The copies are read one at a time: a session kept
    whole at each of many checkpoints is never all in memory at once. ``sizes``: ``blob_sizes``
    of these copies (or more), when the caller asked once for many sessions."""
    used = missing = over = 0
    doc_best: tuple[int, int, bytes] | None = None
    merged = Merged()
    if sizes is None:
        sizes = blob_sizes(cat, copies)
    last: list[str] | None = None
    newest_lost = False  # the newest copy with a full.jsonl could not be read
    newest = max((i for i, c in enumerate(copies) if c.chunks), default=-1)
    for i, c in enumerate(copies):
        each = [sizes.get(sha) for sha in c.chunks]
        if not c.chunks or any(n is None for n in each):
            missing += 1
            newest_lost |= i == newest
            continue
        if sum(n for n in each if n is not None) > max_bytes:
            over += 1
            newest_lost |= i == newest
            continue
        if c.chunks == last:
            used += 1
            continue
        distinct = list(dict.fromkeys(c.chunks))
        got = dict(zip(distinct, cat.get_many(distinct, max_bytes=max_bytes), strict=True))
        parts = [got.get(sha) for sha in c.chunks]
        if any(p is None or p[0] != "blob" for p in parts):
            missing += 1
            continue
        data = b"".join(p[1] for p in parts if p is not None)
        del got, parts
        last = c.chunks
        if not data.strip():
            continue
        used += 1
        if is_document(data):
            try:
                doc = orjson.loads(data)
            except orjson.JSONDecodeError:
                continue
            msgs = doc.get("messages") if isinstance(doc, dict) else None
            n = len(msgs) if isinstance(msgs, list) else 0
            if doc_best is None or (n, i) >= doc_best[:2]:
                doc_best = (n, i, data)
            continue
        if not merged.add([x for x in data.split(b"\n") if x.strip()], max_bytes):
            over += 1
    info = {"copies": len(copies), "used": used, "missing": missing, "over_budget": over,
            "newest_lost": int(newest_lost)}
    if merged.lines:
        return b"\n".join(merged.lines) + b"\n", info
    if doc_best is not None:
        return doc_best[2], info
    return None, info


def assemble_compact(cat: CatFile, copies: list[Copy], max_bytes: int, sizes: dict[str, int | None] | None = None
                     ) -> tuple[list[bytes], dict[str, int]]:
    """The lines of a session's compact transcript, put together from its copies' compact files
    as ``assemble`` puts ``full.jsonl`` together (Entire keeps the whole compact session at each
    checkpoint; a slice adds its new lines), bounded by ``max_bytes`` from the blobs' sizes."""
    used = missing = over = 0
    merged = Merged()
    if sizes is None:
        sizes = blob_sizes(cat, copies)
    last: str | None = None
    for c in copies:
        if c.compact is None:
            continue
        n = sizes.get(c.compact)
        if n is None:
            missing += 1
            continue
        if n > max_bytes:
            over += 1
            continue
        used += 1
        if c.compact == last:
            continue
        got = cat.get_many([c.compact], max_bytes=max_bytes)[0]
        if got is None or got[0] != "blob":
            used -= 1
            missing += 1
            continue
        last = c.compact
        if not merged.add([x for x in got[1].split(b"\n") if x.strip()], max_bytes):
            over += 1
    return merged.lines, {"copies": len(copies), "used": used, "missing": missing, "over_budget": over}


def is_document(data: bytes) -> bool:
    """A pretty-printed or one-line JSON document with a ``messages`` list (Gemini's session
    file), not JSON lines."""
    body = data.lstrip()
    if not body.startswith(b"{"):
        return False
    first = body.split(b"\n", 1)[0].strip()
    if first == b"{":
        return True
    try:
        obj = orjson.loads(first)
    except orjson.JSONDecodeError:
        return b"\n" in body.strip()
    return isinstance(obj, dict) and isinstance(obj.get("messages"), list) and b"\n" not in body.strip()
