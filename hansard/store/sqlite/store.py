"""``SqliteStore``: the embedded store, one SQLite file under HANSARD_HOME.

Each facet wraps the same connection and is built on first use, so a command pays only for
the facets it touches (``hansard why`` never imports the search or ingest facets).
"""

from __future__ import annotations

import os
import sqlite3
from functools import cached_property
from typing import TYPE_CHECKING

from hansard.store.sqlite import db as dbmod

if TYPE_CHECKING:
    from hansard.store.sqlite.agent_traces import SqliteAgentTraces
    from hansard.store.sqlite.archive import SqliteArchive
    from hansard.store.sqlite.audit import SqliteAuditLog
    from hansard.store.sqlite.commit_diffs import SqliteCommitDiffs
    from hansard.store.sqlite.commits import SqliteCommitFacts, SqliteOwnCommits
    from hansard.store.sqlite.evidence import SqliteEvidence
    from hansard.store.sqlite.git_sources import SqliteGitSources
    from hansard.store.sqlite.items import SqliteItems
    from hansard.store.sqlite.memories import SqliteMemories
    from hansard.store.sqlite.repos import SqliteRepos
    from hansard.store.sqlite.search import SqliteSearchIndex
    from hansard.store.sqlite.sessions import SqliteSessionQueries
    from hansard.store.sqlite.stats import SqliteStats
    from hansard.store.sqlite.symbols import SqliteSymbolCache
    from hansard.store.sqlite.team import SqliteTeam
    from hansard.store.sqlite.web_chats import SqliteWebChats
    from hansard.store.sqlite.why_cache import SqliteWhyCache


class SqliteStore:
    def __init__(self, db: sqlite3.Connection, path: str, *, readonly: bool = False) -> None:
        self.db = db
        self.path = path
        self.readonly = readonly

    @classmethod
    def open(cls, path: str | os.PathLike[str] | None = None, *, readonly: bool = False) -> SqliteStore:
        from hansard import config

        p = os.fspath(path or config.store_path_str())
        return cls(dbmod.connect(p, readonly=readonly), p, readonly=readonly)

    @classmethod
    def open_for_reading(cls, path: str | os.PathLike[str] | None = None) -> SqliteStore:
        from hansard import config
        from hansard.errors import StoreReadOnly

        p = os.fspath(path or config.store_path_str())
        try:
            return cls(dbmod.connect(p), p)
        except StoreReadOnly:
            return cls(dbmod.connect(p, readonly=True), p, readonly=True)

    def close(self) -> None:
        self.db.close()

    # Facets: each owner adds its own below (one module per facet under hansard/store/sqlite/).

    @cached_property
    def archive(self) -> SqliteArchive:
        from hansard.store.sqlite.archive import SqliteArchive

        return SqliteArchive(self.db, self.path)

    @cached_property
    def items(self) -> SqliteItems:
        from hansard.store.sqlite.items import SqliteItems

        return SqliteItems(self.db)

    @cached_property
    def evidence(self) -> SqliteEvidence:
        from hansard.store.sqlite.evidence import SqliteEvidence

        return SqliteEvidence(self.db)

    @cached_property
    def commit_diffs(self) -> SqliteCommitDiffs:
        from hansard.store.sqlite.commit_diffs import SqliteCommitDiffs

        return SqliteCommitDiffs(self.db)

    @cached_property
    def repos(self) -> SqliteRepos:
        from hansard.store.sqlite.repos import SqliteRepos

        return SqliteRepos(self.db)

    @cached_property
    def symbols(self) -> SqliteSymbolCache:
        from hansard.store.sqlite.symbols import SqliteSymbolCache

        return SqliteSymbolCache(self.db)

    @cached_property
    def sessions(self) -> SqliteSessionQueries:
        from hansard.store.sqlite.sessions import SqliteSessionQueries

        return SqliteSessionQueries(self.db)

    @cached_property
    def search(self) -> SqliteSearchIndex:
        from hansard.store.sqlite.search import SqliteSearchIndex

        return SqliteSearchIndex(self.db)

    @cached_property
    def audit(self) -> SqliteAuditLog:
        from hansard.store.sqlite.audit import SqliteAuditLog

        return SqliteAuditLog(self.db)

    def interrupt(self) -> None:
        """Stop the statement running on another thread (a call past its deadline)."""
        self.db.interrupt()

    @cached_property
    def memories(self) -> SqliteMemories:
        from hansard.store.sqlite.memories import SqliteMemories

        return SqliteMemories(self.db)

    @cached_property
    def own_commits(self) -> SqliteOwnCommits:
        from hansard.store.sqlite.commits import SqliteOwnCommits

        return SqliteOwnCommits(self.db)

    @cached_property
    def web_chats(self) -> SqliteWebChats:
        from hansard.store.sqlite.web_chats import SqliteWebChats

        return SqliteWebChats(self.db)

    @cached_property
    def team(self) -> SqliteTeam:
        from hansard.store.sqlite.team import SqliteTeam

        return SqliteTeam(self.db)

    @cached_property
    def commit_facts(self) -> SqliteCommitFacts:
        from hansard.store.sqlite.commits import SqliteCommitFacts

        return SqliteCommitFacts(self.db)

    @cached_property
    def git_sources(self) -> SqliteGitSources:
        from hansard.store.sqlite.git_sources import SqliteGitSources

        return SqliteGitSources(self.db)

    @cached_property
    def why_cache(self) -> SqliteWhyCache:
        from hansard.store.sqlite.why_cache import SqliteWhyCache

        return SqliteWhyCache(self.db)

    @cached_property
    def stats(self) -> SqliteStats:
        from hansard.store.sqlite.stats import SqliteStats

        return SqliteStats(self.db)

    @cached_property
    def agent_traces(self) -> SqliteAgentTraces:
        from hansard.store.sqlite.agent_traces import SqliteAgentTraces

        return SqliteAgentTraces(self.db)
