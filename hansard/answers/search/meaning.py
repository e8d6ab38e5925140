"""Meaning search: local static embeddings, built in the background, searched in memory.

Optional extra: ``semantic`` (the command for this installation: :func:`install_hint`). Nothing is
downloaded at run time: the embedder is WordLlama's ``l2_supercat`` 256-d static embedding, whose weights ship inside the
``wordllama`` wheel and are checked against a pinned sha256 before use (see
``WORDLLAMA_FILES``). Why this one: ``scripts/eval_search.py`` compares it with the other
embedders whose weights ship in a package (README, Performance): tokenlearn's 64-d static model
found less on every kind of query, and all-MiniLM-L6-v2 either brings torch or, run in numpy,
embeds far slower. WordLlama is small, needs only numpy and tokenizers, and embeds and starts
fast enough for a background builder (docs/performance.md, Semantic search). Its
weakness is paraphrase: it averages words, so a query that shares no word with a conversation
rarely finds it first. For that, a sentence encoder (all-MiniLM-L6-v2, :mod:`intent`) embeds
each session's intent texts, and :func:`combine` mixes its per-session similarity into the
ranking with a weight per query shape (``INTENT_WEIGHTS``, the shapes of
:func:`hybrid.query_shape`; hybrid uses its own weights per shape and keyword coverage).

Any object with ``id`` (str, names model and weights), ``dim`` and
``embed(list[str]) -> float32 array (n, dim), L2-normalised`` can stand in (tests use a tiny
hashing embedder).

Vectors: one per distinct passage text (``vectors``, keyed by model and a hash of the text);
``passage_vectors`` maps each message's passages ([start, end) characters) to texts. A message
is cut into passages (``hansard.ingest.embed.passages``): a static embedding averages its
tokens, so one vector for a long message blurs its topics together; a hit's ``similarity`` is
that of its best passage. Only conversation is embedded: the person's requests, the agent's
answers and reasoning, compaction summaries; tool output is left to keyword search. The vectors
are written by `hansard embed` (``hansard.ingest.embed``), which the application starts detached
when a search finds them missing or behind, through the ``start_build`` argument a search passes
on here: a search never starts a process itself, and never waits for it: with no vectors yet it
falls back to keyword search and says so in ``mode_notice``. Searches map the vectors from a
copy beside the store (``hansard.ingest.vector_cache``), which the builder writes after each run
(and the request that asked, when it caches, if a search finds it missing or stale: see
``hansard.store.kept``), so a new process does not read them all from SQLite.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hansard import config
from hansard.errors import ModelFileMismatch
from hansard.ingest.embed import Embedder
from hansard.store.types import MAX_EMBED_CHARS

# Above BITS_ABOVE passages a search does not read every vector. It first ranks every passage
# by its sign bits (32 bytes for 256 dimensions, against 1,024 for a float32 row) by how much
# of the query's weight falls on the dimensions whose sign disagrees, the query's magnitudes
# rounded to two bits (:func:`disagreement`), then rescores the best RESCORE_SHARE of them (at
# least RESCORE_KEEP) exactly, so their order and similarity are those of a full search. The
# weighting keeps more of the exact top 10 than plain Hamming distance with half the rows
# rescored (docs/performance.md). Below BITS_ABOVE the product over every row is already fast.
BITS_ABOVE = 20_000
RESCORE_SHARE = 0.01
RESCORE_KEEP = 4000
BLOCK = 32768  # rows a pass over the bits handles at a time: its temporaries stay in cache
# sha256 of the files inside the wordllama 0.4.0.post1 wheel (also listed in its RECORD).
WORDLLAMA_FILES = {
    "weights/l2_supercat_256.safetensors": "64b47a2dc493cb8e85944076601189739852d7b64e0e1eedcb1937a251cd9fd5",
    "tokenizers/l2_supercat_tokenizer_config.json": "93248f2a9ec36c7b35f700a033d5f36228aae48db61aee31007fa49062cdeb68",
}


def install_hint() -> str:
    """How to install meaning search into this copy of hansard (hansard.install)."""
    from hansard.install import hint

    return hint("semantic")


# A model file that fails its hash check (the typed error; the old name stays for callers).
WeightsMismatch = ModelFileMismatch


class WordLlamaEmbedder:
    dim = 256

    def __init__(self) -> None:
        import wordllama

        root = Path(wordllama.__file__).parent
        for rel, want in WORDLLAMA_FILES.items():
            verify_weights(root / rel, want)
        from wordllama import WordLlama

        # cache_dir=the package folder: wordllama looks for <cache>/weights and <cache>/tokenizers
        # there, never downloads (its own project-root lookup misses the tokenizer folder).
        self.model = WordLlama.load(config="l2_supercat", dim=256, cache_dir=root, disable_download=True)
        self.id = "wordllama-l2_supercat-256@" + WORDLLAMA_FILES["weights/l2_supercat_256.safetensors"][:12]

    def embed(self, texts: list[str]) -> Any:
        import numpy as np

        v = self.model.embed([t[:MAX_EMBED_CHARS] or " " for t in texts], norm=True, batch_size=64)
        v = np.asarray(v, dtype=np.float32)
        v[~np.isfinite(v)] = 0.0
        return v


def verify_weights(path: Path, want: str) -> None:
    """Refuse a model file whose sha256 is not the pinned one: weights are loaded only as pinned."""
    got = file_sha256(path)
    if got != want:
        raise ModelFileMismatch(f"{path}: sha256 {got} is not the pinned {want}", path=str(path), sha256=got,
                                pinned=want)


def verify_model_files(root: Path, pinned: dict[str, str]) -> None:
    """Check every file of a model folder that will be loaded (``pinned``: its path under
    ``root`` -> sha256) before any of them is: a missing or changed file raises
    :class:`ModelFileMismatch`, and nothing is loaded."""
    for rel, want in pinned.items():
        path = root / rel
        try:
            verify_weights(path, want)
        except FileNotFoundError:
            raise ModelFileMismatch(f"{path}: missing (pinned sha256 {want})", path=str(path), pinned=want) from None


def file_sha256(path: Path) -> str:
    """The file's sha256, remembered per version of the file (``file-hashes.json`` in the hansard
    home, owner-only): hashing the two models' weights in every new process would cost more
    than a search. A version is its inode, size, modification and change times; the kernel sets the
    change time on every write, and no call sets it back."""
    import json

    st = os.stat(path)
    key = f"{os.path.abspath(path)}|{st.st_ino}|{st.st_size}|{st.st_mtime_ns}|{st.st_ctime_ns}"
    record = config.hansard_home() / "file-hashes.json"
    try:
        seen = json.loads(record.read_bytes())
    except (OSError, ValueError):
        seen = {}
    if isinstance(seen, dict) and isinstance(known := seen.get(key), str):
        return known
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    got = h.hexdigest()
    try:  # one entry per file: its latest version
        keep = {k: v for k, v in (seen if isinstance(seen, dict) else {}).items()
                if k.split("|")[0] != key.split("|")[0]}
        keep[key] = got
        record.parent.mkdir(parents=True, exist_ok=True)
        from hansard.files.privfile import write_private

        write_private(record, json.dumps(keep).encode())
    except OSError:
        pass  # a read-only home: hashed again next time
    return got


_EMBEDDER: dict[str, Any] = {}


def load_embedder() -> tuple[Embedder | None, str | None]:
    """The installed embedder, or (None, why not). Loaded once per process."""
    if os.environ.get("HANSARD_EMBEDDER", "").lower() in ("none", "off", "0"):
        return None, "meaning search is turned off (HANSARD_EMBEDDER=none)"
    if "e" in _EMBEDDER:
        return _EMBEDDER["e"], _EMBEDDER.get("why")
    try:
        e: Embedder | None = WordLlamaEmbedder()
        why = None
    except ImportError:
        e, why = None, f"no embedding model is installed; {install_hint()}"
    except WeightsMismatch as exc:
        e, why = None, f"the embedding weights failed their hash check ({exc}); reinstall wordllama"
    except Exception as exc:  # a broken optional model must never break keyword search
        e, why = None, f"the embedding model could not be loaded ({type(exc).__name__}: {exc})"
    _EMBEDDER["e"], _EMBEDDER["why"] = e, why
    return e, why


# -- searching --------------------------------------------------------------------------


@dataclass
class MeaningResult:
    hits: list[tuple[int, float]] = field(default_factory=list)  # (messages.id, meaning score), best first
    passages: dict[int, tuple[int, int]] = field(default_factory=dict)  # messages.id -> the passage it names
    similarity: dict[int, float] = field(default_factory=dict)  # messages.id -> cosine of query and that passage
    # with an intent encoder: (passage hits, intent hits, session of each passage hit), for
    # hybrid to combine with its own intent weight
    parts: tuple[Any, Any, Any] | None = None
    notice: str | None = None        # set: meaning search did not run
    coverage_note: str | None = None  # ran, but over part of the messages


class VectorIndex:
    """All of a model's passage vectors as one float32 matrix, cached per process and reloaded
    only when the builder wrote new ones; above BITS_ABOVE passages also each passage's sign
    bits, 64 dimensions to a word, word-major. The arrays are mapped from the copy beside the
    store (``hansard.ingest.vector_cache``) when it is current (or the request that asked
    writes it: ``hansard.store.kept.vector_copy``), else read from SQLite. Float32,
    not the float16 the store keeps: numpy converts float16 one element at a time, at every
    rescoring; converting once at load pays that once per row."""

    _cache: dict[tuple[str, str], tuple[Any, VectorIndex]] = {}

    def __init__(self, ids: Any, starts: Any, ends: Any, mat: Any, *, bits: Any = None,
                 messages: int | None = None) -> None:
        import numpy as np

        self.ids, self.starts, self.ends = ids, starts, ends
        if messages is None:
            messages = int((np.diff(ids) != 0).sum()) + 1 if len(ids) else 0  # ids are sorted
        self.messages = messages
        if not (mat.dtype == np.float32 and mat.flags.c_contiguous):
            mat = np.ascontiguousarray(mat, dtype=np.float32)
        self.mat = mat
        if len(ids) <= BITS_ABOVE:
            self.bits = None
        else:
            from hansard.ingest.vector_cache import sign_bits

            self.bits = bits if bits is not None else sign_bits(self.mat)

    @classmethod
    def get(cls, index: Any, model: str) -> VectorIndex:
        import numpy as np

        from hansard.ingest import vector_cache
        from hansard.store import kept

        path, *stamp = index.vector_stamp(model)
        key = (path, model)
        hit = cls._cache.get(key)
        if hit and hit[0] == stamp:
            return hit[1]
        cls._cache.pop(key, None)  # free the old matrices before the new ones are read
        mapped = vector_cache.open_current(index, model) or kept.vector_copy(index, model)
        if mapped is not None:
            vi = cls(mapped.ids, mapped.starts, mapped.ends, mapped.mat, bits=mapped.bits, messages=mapped.messages)
            stamp = list(mapped.stamp)  # what it was built at, which may be newer than the stamp above
        else:
            spans, blobs = index.vectors(model)
            if spans:
                mat = np.frombuffer(b"".join(blobs), dtype=np.float16).reshape(len(spans), -1)
                arr = np.asarray(spans, dtype=np.int64)
                vi = cls(arr[:, 0].copy(), arr[:, 1].copy(), arr[:, 2].copy(), mat)
            else:
                z = np.zeros(0, np.int64)
                vi = cls(z, z, z, np.zeros((0, 1), np.float32))
        cls._cache[key] = (stamp, vi)
        return vi

    def top(self, qv: Any, n: int) -> tuple[Any, Any]:
        """Row numbers of the ``n`` passages most similar to ``qv``, best first, and their similarity."""
        import numpy as np

        qv = np.asarray(qv, dtype=np.float32)
        if self.bits is None:
            rows = None
            sims = _dot(self.mat, qv)
        else:
            keep = max(RESCORE_KEEP, int(len(self.ids) * RESCORE_SHARE), n * 4)
            rows = fewest(disagreement(self.bits, qv), keep)
            sims = _dot(self.mat[rows], qv)
        n = min(n, len(sims))
        best = np.argpartition(-sims, n - 1)[:n] if n < len(sims) else np.arange(len(sims))
        best = best[np.argsort(-sims[best], kind="stable")]
        return (rows[best] if rows is not None else best), sims[best]


def _dot(mat: Any, qv: Any) -> Any:
    # einsum, not BLAS: OpenBLAS splits a matrix-vector product over both cores, and on a busy
    # 2-core machine its threads wait on each other; einsum runs on the calling thread.
    import numpy as np

    return np.einsum("ij,j->i", mat, qv)


def disagreement(bits: Any, qv: Any) -> Any:
    """Per row, the query's weight on the dimensions whose sign differs from the row's (uint16,
    lower is nearer): each |q_i| rounded to 0..3 of the largest, summed as two bit planes,
    ``popcount(plane1 & diff) * 2 + popcount(plane0 & diff)``. Weighing by the query keeps what
    plain Hamming distance loses: a dimension where the query is near zero says nothing."""
    import numpy as np

    words, n = bits.shape
    qb = np.zeros((1, words * 64), bool)
    qb[0, :len(qv)] = qv > 0
    qsign = np.packbits(qb, axis=1).view(np.uint64)[0]
    mag = np.abs(qv)
    level = np.zeros(words * 64, np.uint8)
    level[:len(qv)] = np.round(mag / max(float(mag.max()), 1e-12) * 3).astype(np.uint8)
    planes = [np.packbits(((level >> b) & 1).astype(bool)).view(np.uint64) for b in (0, 1)]
    out = np.empty(n, np.uint16)
    diff = np.empty(min(n, BLOCK), np.uint64)
    hit = np.empty_like(diff)
    count = np.empty(min(n, BLOCK), np.uint8)
    for a in range(0, n, BLOCK):
        e = min(n, a + BLOCK)
        o, d, h, c = out[a:e], diff[:e - a], hit[:e - a], count[:e - a]
        o[:] = 0
        for w in range(words):
            np.bitwise_xor(bits[w, a:e], qsign[w], out=d)
            for b, plane in enumerate(planes):
                np.bitwise_and(d, plane[w], out=h)
                np.bitwise_count(h, out=c)
                if b:
                    np.left_shift(c, b, out=c)
                o += c
    return out


def fewest(scores: Any, keep: int) -> Any:
    """Row numbers of the ``keep`` lowest of small non-negative integer ``scores`` (ties at the
    cut by row order), in row order: a histogram finds the cut, cheaper than a partition."""
    import numpy as np

    if keep >= len(scores):
        return np.arange(len(scores))
    cum = np.cumsum(np.bincount(scores))
    cut = int(np.searchsorted(cum, keep))  # the lowest score whose count reaches keep
    below = np.flatnonzero(scores < cut)
    at = np.flatnonzero(scores == cut)[:keep - len(below)]
    return np.sort(np.concatenate([below, at]))


def first_passing(index: Any, ranked: list[Any], f: Any, k: int) -> list[Any]:
    """The first ``k`` of ``ranked`` (tuples whose first item is a message id, best first)
    whose message passes the filters ``f``: asked a chunk at a time, usually one is enough."""
    hits: list[Any] = []
    step = k + k // 2
    for at in range(0, len(ranked), step):
        chunk = ranked[at:at + step]
        keep = index.passing([c[0] for c in chunk], f)
        hits += [c for c in chunk if c[0] in keep]
        if len(hits) >= k:
            break
    return hits[:k]


def meaning_candidates(index: Any, query: str, f: Any, k: int, embedder: Embedder | None = None,
                       intent_encoder: Any = None, start_build: Callable[[], bool] | None = None) -> MeaningResult:
    """Passages by the passage embedder and, with an intent encoder (loaded with the installed
    embedder when ``embedder`` is None), sessions by intent, combined per session
    (:func:`combine`). ``hits`` are ranked by that score; ``similarity`` keeps the cosine of
    the passage each hit names. When vectors are missing or behind, ``start_build`` (the
    adapter's, hansard/app/jobs.py) is asked to start the builder: whether it did is its answer."""
    if embedder is None:
        embedder, why = load_embedder()
        if embedder is None:
            return MeaningResult(notice=f"meaning search skipped: {why}; ran keyword search")
        from hansard.answers.search.intent import load_intent_encoder

        intent_encoder = load_intent_encoder()[0]
    import numpy as np  # only with an embedder: the optional `semantic` extra brings it

    vi = VectorIndex.get(index, embedder.id)
    if len(vi.ids) == 0:
        started = start_build() if start_build is not None else False
        return MeaningResult(notice="meaning search skipped: message vectors are not built yet"
                             + (" (building now in the background)" if started else "; run `hansard embed`")
                             + "; ran keyword search")
    qv = np.asarray(embedder.embed([query]), dtype=np.float32)[0]
    rows, sims = vi.top(qv, max(k * 5, 500))
    cand: list[tuple[int, float]] = []
    spans: dict[int, tuple[int, int]] = {}
    for r, sim in zip(rows.tolist(), sims.tolist(), strict=True):
        mid = int(vi.ids[r])
        if mid not in spans:  # best passage of each message first
            spans[mid] = (int(vi.starts[r]), int(vi.ends[r]))
            cand.append((mid, float(sim)))
    hits = first_passing(index, cand, f, k)
    res = MeaningResult(hits=hits, passages={m: spans[m] for m, _ in hits}, similarity=dict(hits))
    if intent_encoder is not None:
        from hansard.answers.search.intent import intent_candidates

        ihits, ispans = intent_candidates(index, query, f, k, intent_encoder)
        if ihits:
            session_of = index.message_sessions([m for m, _ in hits])
            res.hits = combine(hits, ihits, session_of, intent_weight(query))[:k]
            res.parts = (hits, ihits, session_of)
            for m, _, sim in ihits:  # an intent text names its own span unless a passage of it matched closer
                if sim > res.similarity.get(m, -1.0):
                    res.passages[m], res.similarity[m] = ispans[m], sim
    # Cheap freshness check (two index look-ups): is anything above the builder's mark?
    through, last = index.vector_mark(embedder.id)
    if through is not None and through < last:
        if start_build is not None:
            start_build()
        res.coverage_note = (f"meaning search covers {vi.messages} embedded messages; newer ones are"
                             " still being embedded (keyword search has them)")
    return res


# The intent similarity's share of a session's meaning score by query shape (hybrid.query_shape),
# as tuned by `scripts/eval_search.py --tune` on its development queries (MiniLM intents,
# WordLlama passages) among the weights that answer no kind of query of that shape worse than
# the passages alone. A question ("which retry policy did we choose ...") is the passages' to
# answer: any intent share let the encoder's topical matches outrank the passage that states
# the decision, more often than it found a paraphrase asked as a question.
INTENT_WEIGHTS: dict[str, float] = {"exact": 0.3, "question": 0.0, "words": 0.6}


def intent_weight(query: str) -> float:
    """The intent tier's share for this query's shape."""
    from hansard.answers.search.hybrid import query_shape
    from hansard.answers.search.query import parse

    return INTENT_WEIGHTS[query_shape(parse(query))]


def _scaled(sims: list[float]) -> tuple[float, float]:
    """(floor, span): where a similarity falls between the lowest and the highest of a ranking."""
    best, low = max(sims), min(sims)
    floor = min(low, best - 1e-3)
    return floor, best - floor


def combine(passage_hits: list[tuple[int, float]], intent_hits: list[tuple[int, int, float]],
            session_of: dict[int, int], weight: float) -> list[tuple[int, float]]:
    """One meaning ranking of messages from the passage ranking and the per-session intent
    ranking: each similarity scaled to [0, 1] within its ranking, then a message scores
    ``weight * intent(its session) + (1 - weight) * passage(itself)``. A session's intent
    text stands in for it when none of its passages was found. Best first."""
    a = weight
    inten: dict[int, float] = {}
    if intent_hits:
        floor, span = _scaled([s for *_, s in intent_hits])
        inten = {sid: (s - floor) / span for _, sid, s in intent_hits}
    score: dict[int, float] = {}
    best: dict[int | None, float] = {}  # session -> its best passage's scaled similarity
    if passage_hits and max(s for _, s in passage_hits) > 0:  # no passage near the query at all: no say
        floor, span = _scaled([s for _, s in passage_hits])
        for m, s in passage_hits:
            sid = session_of.get(m)
            p = (s - floor) / span
            best[sid] = max(best.get(sid, 0.0), p)
            score[m] = (1 - a) * p + a * (inten.get(sid, 0.0) if sid is not None else 0.0)
    for m, sid, _ in intent_hits:
        # the intent text scores as its session does, and names the session when the intent
        # counts for more than the best passage
        s = a * inten[sid] + (1 - a) * best.get(sid, 0.0)
        if a * inten[sid] >= (1 - a) * best.get(sid, 0.0):
            s += 1e-9
        score[m] = max(score.get(m, 0.0), s)
    return sorted(score.items(), key=lambda t: (-t[1], -t[0]))
