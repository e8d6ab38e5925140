"""The team view merges the local store with the team's: every evidence question it can be
asked is answered from both, and a sessions or memories question is answered from this
machine alone only when the view says so. A method reached only through ``__getattr__`` answers from the
local store alone — that is how `why` once stopped naming teammates' sessions, when the local
facet grew ``edit_lines_at``."""

from __future__ import annotations

from hansard.store.interfaces import EvidenceIndex, MemoryStore, SessionQueries
from hansard.store.sqlite.evidence import SqliteEvidence
from hansard.store.sqlite.memories import SqliteMemories
from hansard.store.sqlite.sessions import SqliteSessionQueries
from hansard.team.view import MergedEvidence, MergedMemories, MergedSessions


def _public(cls: type) -> set[str]:
    return {n for n in dir(cls) if not n.startswith("_") and callable(getattr(cls, n))}


def test_every_evidence_method_is_merged_not_forwarded() -> None:
    written = {n for n in vars(MergedEvidence) if not n.startswith("_")}
    assert _public(SqliteEvidence) - written == set()
    assert _public(EvidenceIndex) - written == set()


def test_sessions_and_memories_forward_only_what_they_declare_local() -> None:
    """A method of the local facet that the merged one neither writes nor declares local is a
    new question that would silently leave the team out."""
    for merged, local, proto in ((MergedSessions, SqliteSessionQueries, SessionQueries),
                                 (MergedMemories, SqliteMemories, MemoryStore)):
        written = {n for n in vars(merged) if not n.startswith("_")}
        forwarded = (_public(local) | _public(proto)) - written
        assert forwarded == set(merged.LOCAL_ONLY), (merged.__name__, forwarded ^ set(merged.LOCAL_ONLY))
