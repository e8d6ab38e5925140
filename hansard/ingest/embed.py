"""Meaning search's vectors written: each message cut into passages and each passage embedded
(``build_vectors``), each session's intent texts embedded (``build_intent_vectors``), and the
copy of the vectors beside the store brought up to date (``hansard.ingest.vector_cache``).

This is what `hansard embed` runs, detached in the background when a search finds the vectors
missing or behind (``hansard.app.house.Hansard.later``). A search only reads what is written
here (``hansard.answers.search.meaning`` and ``intent``).

Always true: vectors are keyed by the model's id and a hash of the text (``text_hash``), so a
text embedded once is never embedded again; a message is cut into at most ``MAX_PASSAGES``
passages of about ``PASSAGE_CHARS`` at paragraph, line or sentence ends (``passages``); the
builders work through new messages in small batches, each its own short transaction, so they
are safe to stop anywhere and the next run goes on from the mark; one builder runs at a time
(``take_embed_lock``).
"""

from __future__ import annotations

import os
import re
import time
from typing import Any, Protocol

from hansard import config
from hansard.store.types import text_hash

PASSAGE_CHARS = 600
MAX_PASSAGES = 12       # per message: the first 7,200 characters or so of a long answer
BATCH = 256

_BREAKS = ("\n\n", "\n", ". ", "? ", "! ", "; ", ", ", " ")
_COMMIT_MESSAGE = re.compile(r"""(?:^|\s)(?:-[a-zA-Z]*m|--message)(?:\s+|=)"""
                             r"""(?:"\$\(cat <<-?'?(\w+)'?\n(.*?)\n\s*\1|'([^']*)'|"((?:[^"\\]|\\.)*)")""", re.S)
_TRAILER = re.compile(r"^\s*(?:[\w-]+-by:|.*generated with)", re.I)


class Embedder(Protocol):
    """What turns texts into vectors: ``embed(list[str])`` gives float32 (n, dim), L2-normalised;
    ``id`` names the model and its weights."""

    id: str
    dim: int

    def embed(self, texts: list[str]) -> Any: ...


def passages(text: str, size: int = PASSAGE_CHARS, most: int = MAX_PASSAGES) -> list[tuple[int, int]]:
    """[start, end) spans that cover ``text`` (up to ``most`` of them), each at most ``size``
    characters, cut at the strongest break (paragraph, line, sentence, clause, word) in the
    second half of the span; blank spans are skipped."""
    out: list[tuple[int, int]] = []
    i, n = 0, len(text)
    while i < n and len(out) < most:
        end = min(n, i + size)
        if end < n:
            for b in _BREAKS:
                j = text.rfind(b, i + size // 2, end)
                if j >= 0:
                    end = j + len(b)
                    break
        if text[i:end].strip():
            out.append((i, end))
        i = end
    return out


def intent_text(text: str) -> str:
    """What an intent text says: the message of a ``git commit`` call (every ``-m``, a heredoc
    included), any other text as it is."""
    if "git commit" not in text:
        return text
    found = ["".join(x for x in m.group(2, 3, 4) if x) for m in _COMMIT_MESSAGE.finditer(text)]
    # trailers (Co-Authored-By: ...) name people and tools, not the work
    lines = [ln for f in found for ln in f.strip().splitlines() if not _TRAILER.match(ln)]
    msg = "\n".join(lines).strip()
    return msg or text


def pending(index: Any, model: str) -> tuple[int, int]:
    """(messages embedded, messages eligible) -- cheap upper-bound estimate by id."""
    done, eligible = index.vector_pending(model)
    return done, eligible


def build_vectors(index: Any, embedder: Embedder, *, batch: int = BATCH, max_seconds: float | None = None,
                  progress: Any = None) -> dict[str, int]:
    """Embed eligible messages above the model's high-water mark, batch by batch. Safe to
    stop at any point; the next call goes on from there. ``index`` is a store's search facet."""
    import numpy as np

    from hansard.values.timebounds import utc_stamp

    model = embedder.id
    t0 = time.monotonic()
    counts = {"messages": 0, "passages": 0, "embedded": 0, "reused": 0}
    while True:
        rows = index.to_embed(model, PASSAGE_CHARS * MAX_PASSAGES, batch)
        if not rows:
            index.skip_vectors_to(model, utc_stamp())
            break
        spans = [(mid, a, b, text[a:b]) for mid, text in rows for a, b in passages(text)]
        hashes = [text_hash(t) for *_, t in spans]
        uniq = list(dict.fromkeys(hashes))
        have = index.known_texts(model, uniq)
        todo = [h for h in uniq if h not in have]
        text_of = {h: sp[3] for h, sp in zip(hashes, spans, strict=True)}
        vecs = embedder.embed([text_of[h] for h in todo]) if todo else np.zeros((0, embedder.dim), np.float32)
        index.add_vectors(model, [(h, np.asarray(v, np.float16).tobytes()) for h, v in zip(todo, vecs, strict=True)],
                          [(sp[0], sp[1], sp[2], h) for sp, h in zip(spans, hashes, strict=True)], rows[-1][0], _written_at())
        counts["messages"] += len(rows)
        counts["passages"] += len(spans)
        counts["embedded"] += len(todo)
        counts["reused"] += len(spans) - len(todo)
        if progress:
            progress(counts)
        if max_seconds is not None and time.monotonic() - t0 > max_seconds:
            break
    # The copy searches map (vector_cache): written here, in the background, so that the next
    # search's process does not read every vector from SQLite.
    from hansard.ingest import vector_cache

    try:
        vector_cache.refresh(index, model)
    except OSError:
        pass  # a read-only home: searches read SQLite
    return counts


def build_intent_vectors(index: Any, encoder: Embedder, *, batch: int = 256, max_seconds: float | None = None,
                         progress: Any = None) -> dict[str, int]:
    """Embed the intent texts above the encoder's mark, batch by batch; safe to stop anywhere."""
    import numpy as np

    from hansard.store.types import INTENT_CHARS, intent_key
    from hansard.values.timebounds import utc_stamp

    t0 = time.monotonic()
    counts = {"texts": 0, "embedded": 0}
    while True:
        rows = index.intent_to_embed(encoder.id, INTENT_CHARS, batch)
        if not rows:
            index.skip_vectors_to(intent_key(encoder.id), utc_stamp())
            break
        texts = [intent_text(text) for _, _, text in rows]
        hashes = [text_hash(text) for text in texts]
        uniq = list(dict.fromkeys(hashes))
        have = index.known_texts(encoder.id, uniq)
        todo = [h for h in uniq if h not in have]
        text_of = dict(zip(hashes, texts, strict=True))
        vecs = encoder.embed([text_of[h] for h in todo]) if todo else np.zeros((0, encoder.dim), np.float32)
        index.add_intent_vectors(encoder.id,
                                 [(h, np.asarray(v, np.float16).tobytes()) for h, v in zip(todo, vecs, strict=True)],
                                 [(mid, sid, h) for (mid, sid, _), h in zip(rows, hashes, strict=True)], rows[-1][0],
                                 utc_stamp())
        counts["texts"] += len(rows)
        counts["embedded"] += len(todo)
        if progress:
            progress(counts)
        if max_seconds is not None and time.monotonic() - t0 > max_seconds:
            break
    return counts


def _written_at() -> str:
    """When a batch of vectors is written, to the microsecond: ``vector_stamp`` compares it, and
    a message edited and embedded again within the second the copy of the vectors was written
    (vector_cache) must not leave the stamp as it was, which a whole-second stamp would."""
    import datetime as dt

    return dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def take_embed_lock() -> int | None:
    """The builder's lock (``embed.lock`` in the hansard home), taken without waiting: its
    descriptor (closing it releases the lock), or None when another builder holds it."""
    import fcntl

    home = config.hansard_home()
    home.mkdir(parents=True, exist_ok=True)
    fd = os.open(home / "embed.lock", os.O_CREAT | os.O_RDWR, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        return None
    return fd
