"""The store's protocols: what ingest, link and the answers may ask of a store.

A ``Store`` is a bundle of facets. Each facet is one concern with its own small protocol, so
that a second engine (PostgreSQL for a team) can implement exactly the facets it shares, and
answer code depends on behaviour, never on a connection or on SQL. Every method returns plain
Python values (dicts, tuples, lists, or mapping rows indexable by column name); no cursor or
connection ever leaves the store.

Facet owners extend their protocol here as they move SQL out of the modules above.
"""

from __future__ import annotations

from typing import Protocol


# --- archive: raw records, lossless, keyed by (source, generation, byte offset) ---
class Archive(Protocol):
    pass


# --- item sink: parsed items of one source file written in one transaction ---
class ItemSink(Protocol):
    pass


# --- evidence index: edits and their normalised line hashes, for why/code_history ---
class EvidenceIndex(Protocol):
    pass


# --- commit-diff cache: one cache of what each commit added/removed per file ---
class CommitDiffCache(Protocol):
    pass


# --- repositories: identities, path maps, session/edit resolution (the link stage) ---
class RepoRegistry(Protocol):
    pass


# --- session queries: lists, one session's messages, tool calls, steps, status ---
class SessionQueries(Protocol):
    pass


# --- search index: keyword (FTS5/tsvector), trigram, vectors ---
class SearchIndex(Protocol):
    pass


# --- audit log: one row per MCP call ---
class AuditLog(Protocol):
    pass


# --- memory store: memory files (CLAUDE.md, AGENTS.md, ...) and their versions ---
class MemoryStore(Protocol):
    pass


# --- symbol cache: tree-sitter symbols by blob id ---
class SymbolCache(Protocol):
    pass


class Store(Protocol):
    archive: Archive
    items: ItemSink
    evidence: EvidenceIndex
    commit_diffs: CommitDiffCache
    repos: RepoRegistry
    sessions: SessionQueries
    search: SearchIndex
    audit: AuditLog
    memories: MemoryStore
    symbols: SymbolCache
    readonly: bool

    def close(self) -> None: ...
