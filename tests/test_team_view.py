"""The team view merges the local store with the team's: every evidence question it can be
asked is answered from both. A method reached only through ``__getattr__`` answers from the
local store alone — that is how `why` once stopped naming teammates' sessions, when the local
facet grew ``edit_lines_at``."""

from __future__ import annotations

from hansard.store.interfaces import EvidenceIndex
from hansard.store.sqlite.evidence import SqliteEvidence
from hansard.team.view import MergedEvidence


def _public(cls: type) -> set[str]:
    return {n for n in dir(cls) if not n.startswith("_") and callable(getattr(cls, n))}


def test_every_evidence_method_is_merged_not_forwarded() -> None:
    written = {n for n in vars(MergedEvidence) if not n.startswith("_")}
    assert _public(SqliteEvidence) - written == set()
    assert _public(EvidenceIndex) - written == set()
