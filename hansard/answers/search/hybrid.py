"""Hybrid ranking: reciprocal-rank fusion of the keyword and the meaning rankings.

score(message) = sum over the rankings that hold it of 1 / (K + rank), rank from 1. RRF needs
no score calibration between bm25 and cosine similarity, and a message found by both ranks
above one found by either alone at the same depth. ``matched_by`` says which found it.
"""

from __future__ import annotations

from hansard.store.types import Candidate

K = 60


def rrf(keyword: list[Candidate], meaning: list[tuple[int, float]], k: int = K
        ) -> list[tuple[Candidate, str, float | None]]:
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
