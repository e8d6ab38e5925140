"""Hybrid ranking: the keyword and the meaning rankings fused by their scores, weighted by
what the query looks like.

Each ranking's scores are scaled to [0, 1]. Keyword: the score over the best keyword score,
times the share of the query's term groups the message covers (a match of one word of eight
says little). Meaning: where the similarity falls between the lowest and the highest of the
meaning ranking. Then ``fused = w * keyword + (1 - w)
* meaning``, ``w`` from :data:`WEIGHTS` by the query's shape (:func:`query_shape`) and by how
much of the query the best keyword match covers (:func:`coverage_level`): exact identifiers
and a query some message states in full are keyword's to answer; a paraphrase that no message
comes close to covering is meaning's. The weights were chosen on the development half of
``scripts/eval_search.py``'s queries, never on the held-out half it reports. With two or more
terms, a message covering every term outranks every message that does not
(:data:`FULL_COVERAGE_FIRST`): what a person typed in full is what they meant.

With the session intent tier (:mod:`intent`), the meaning ranking is itself recombined per
cell (:data:`INTENT_WEIGHTS`): where keyword finds little of the query, the sentence encoder's
per-session similarity leads and keyword's weight is small, so a paraphrase ranks as meaning
ranks it.

``rrf`` (reciprocal-rank fusion) is kept for comparison in that evaluation: it ignores how
sure each ranking is, so a confident answer of one ranking was outvoted by the other's noise.
``matched_by`` says which ranking found a message: keyword, meaning or both.
"""

from __future__ import annotations

from typing import Any

from hansard.store.types import Candidate

K = 60
# keyword's weight by (query shape, coverage level of the best keyword match), as tuned by
# `scripts/eval_search.py --tune` on its development queries (WordLlama passages, MiniLM intents with
# commit messages)
WEIGHTS: dict[tuple[str, str], float] = {
    ("exact", "all"): 0.55, ("exact", "most"): 0.5, ("exact", "few"): 0.5,
    ("question", "all"): 0.5, ("question", "most"): 0.8, ("question", "few"): 0.0,
    ("words", "all"): 0.5, ("words", "most"): 0.5, ("words", "few"): 0.1,
}
# the session intent tier's share of the meaning ranking by the same cells (meaning.combine),
# tuned jointly with WEIGHTS: a paraphrase that no message covers is the intent encoder's to answer
INTENT_WEIGHTS: dict[tuple[str, str], float] = {
    ("exact", "all"): 0.4, ("exact", "most"): 0.4, ("exact", "few"): 0.9,
    ("question", "all"): 0.4, ("question", "most"): 1.0, ("question", "few"): 0.8,
    ("words", "all"): 0.4, ("words", "most"): 0.4, ("words", "few"): 1.0,
}
FULL_COVERAGE_FIRST = True
QUESTION_WORDS = frozenset("which what did do does how why when where who whom whose was were is are have has "
                           "should could can".split())


def query_shape(q: Any) -> str:
    """``exact`` (an identifier, a path or a quoted phrase), ``question`` (opens with a question
    word or ends with ``?``) or ``words``."""
    terms = q.terms()
    if any(t.identifier or t.phrase for t in terms):
        return "exact"
    first = (q.raw.strip().split() or [""])[0].lower().strip("\"'")
    if first in QUESTION_WORDS or q.raw.strip().endswith("?"):
        return "question"
    return "words"


def coverage_level(q: Any, keyword: list[Candidate]) -> str:
    """``all``: the best keyword match covers every term group; ``most``: at least half of
    them (and more than one); ``few``: less, or nothing matched."""
    groups = max(len(q.groups), 1)
    best = max((c.coverage for c in keyword), default=0)
    if best >= groups:
        return "all"
    return "most" if best > 1 and 2 * best >= groups else "few"


def fuse(q: Any, keyword: list[Candidate], meaning: list[tuple[int, float]],
         weights: dict[tuple[str, str], float] | None = None, full_first: bool | None = None,
         parts: tuple[Any, Any, Any] | None = None, intent_weights: dict[tuple[str, str], float] | None = None
         ) -> list[tuple[Candidate, str, float | None]]:
    """``parts`` (the meaning ranking's passage hits, intent hits and sessions, from
    meaning_candidates) recombines the meaning ranking with this cell's intent weight."""
    groups = max(len(q.groups), 1)
    cell = (query_shape(q), coverage_level(q, keyword))
    w = (weights or WEIGHTS)[cell]
    if parts is not None:
        from hansard.answers.search.meaning import combine

        meaning = combine(*parts, (intent_weights or INTENT_WEIGHTS)[cell])[:max(len(meaning), 1)]
    top_kw = max((c.score for c in keyword), default=0.0) or 1.0
    kw = {c.id: c for c in keyword}
    sim = dict(meaning)
    tier = (FULL_COVERAGE_FIRST if full_first is None else full_first) and groups >= 2
    if meaning:
        best = meaning[0][1]
        floor = min(meaning[-1][1], best - 1e-3)
        span = best - floor
    out: list[tuple[Candidate, str, float | None]] = []
    for mid in dict.fromkeys([c.id for c in keyword] + [m for m, _ in meaning]):
        c = kw.get(mid)
        ks = c.score / top_kw * min(1.0, c.coverage / groups) if c else 0.0
        ms = max(0.0, (sim[mid] - floor) / span) if mid in sim else 0.0
        fused = w * ks + (1 - w) * ms
        if tier and c is not None and c.coverage >= groups:
            fused += 1.0
        base = c or Candidate(mid)
        how = "both" if (c and mid in sim) else ("keyword" if c else "meaning")
        out.append((Candidate(mid, bm25=base.bm25, coverage=base.coverage, via=set(base.via), score=fused), how,
                    sim.get(mid)))
    out.sort(key=lambda t: (-t[0].score, -t[0].id))
    return out


def rrf(keyword: list[Candidate], meaning: list[tuple[int, float]], k: int = K
        ) -> list[tuple[Candidate, str, float | None]]:
    """Reciprocal-rank fusion: score = sum over the rankings holding a message of 1 / (k + rank)."""
    score: dict[int, float] = {}
    by_kw = {c.id: c for c in keyword}
    sim = dict(meaning)
    for rank, c in enumerate(keyword, 1):
        score[c.id] = score.get(c.id, 0.0) + 1.0 / (k + rank)
    for rank, (mid, _) in enumerate(meaning, 1):
        score[mid] = score.get(mid, 0.0) + 1.0 / (k + rank)
    out: list[tuple[Candidate, str, float | None]] = []
    for mid, s in score.items():
        c = by_kw.get(mid) or Candidate(mid)
        c = Candidate(mid, bm25=c.bm25, coverage=c.coverage, via=set(c.via), score=s * (k + 1) / 2)  # 1.0 = first in both
        how = "both" if (mid in by_kw and mid in sim) else ("keyword" if mid in by_kw else "meaning")
        out.append((c, how, sim.get(mid)))
    out.sort(key=lambda t: (-t[0].score, -t[0].id))
    return out
