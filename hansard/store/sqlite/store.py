"""``SqliteStore``: the embedded store, one SQLite file under HANSARD_HOME.

Each facet wraps the same connection and is built on first use, so a command pays only for
the facets it touches (``hansard why`` never imports the search or ingest facets).
"""

from __future__ import annotations

import os
import sqlite3
from functools import cached_property

from hansard.store.sqlite import db as dbmod


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
    def archive(self):
        from hansard.store.sqlite.archive import SqliteArchive

        return SqliteArchive(self.db, self.path)

    @cached_property
    def items(self):
        from hansard.store.sqlite.items import SqliteItems

        return SqliteItems(self.db)

    @cached_property
    def evidence(self):
        from hansard.store.sqlite.evidence import SqliteEvidence

        return SqliteEvidence(self.db)

    @cached_property
    def commit_diffs(self):
        from hansard.store.sqlite.commit_diffs import SqliteCommitDiffs

        return SqliteCommitDiffs(self.db)

    @cached_property
    def repos(self):
        from hansard.store.sqlite.repos import SqliteRepos

        return SqliteRepos(self.db)

    @cached_property
    def symbols(self):
        from hansard.store.sqlite.symbols import SqliteSymbolCache

        return SqliteSymbolCache(self.db)

    @cached_property
    def sessions(self):  # noqa: ANN201 - hansard.store.sqlite.sessions.SqliteSessionQueries
        from hansard.store.sqlite.sessions import SqliteSessionQueries

        return SqliteSessionQueries(self.db)

    @cached_property
    def search(self):  # noqa: ANN201 - hansard.store.sqlite.search.SqliteSearchIndex
        from hansard.store.sqlite.search import SqliteSearchIndex

        return SqliteSearchIndex(self.db)

    @cached_property
    def audit(self):  # noqa: ANN201 - hansard.store.sqlite.audit.SqliteAuditLog
        from hansard.store.sqlite.audit import SqliteAuditLog

        return SqliteAuditLog(self.db)

    def interrupt(self) -> None:
        """Stop the statement running on another thread (a call past its deadline)."""
        self.db.interrupt()

    @cached_property
    def memories(self):  # noqa: ANN201 - hansard.store.sqlite.memories.SqliteMemories
        from hansard.store.sqlite.memories import SqliteMemories

        return SqliteMemories(self.db)

    @cached_property
    def own_commits(self):  # noqa: ANN201 - hansard.store.sqlite.own_commits.SqliteOwnCommits
        from hansard.store.sqlite.own_commits import SqliteOwnCommits

        return SqliteOwnCommits(self.db)

    @cached_property
    def web_chats(self):  # noqa: ANN201 - hansard.store.sqlite.web_chats.SqliteWebChats
        from hansard.store.sqlite.web_chats import SqliteWebChats

        return SqliteWebChats(self.db)

    @cached_property
    def team_export(self):  # noqa: ANN201 - hansard.store.sqlite.team_export.SqliteTeamExport
        from hansard.store.sqlite.team_export import SqliteTeamExport

        return SqliteTeamExport(self.db)

    @cached_property
    def commit_facts(self):  # noqa: ANN201 - hansard.store.sqlite.commit_facts.SqliteCommitFacts
        from hansard.store.sqlite.commit_facts import SqliteCommitFacts

        return SqliteCommitFacts(self.db)

    @cached_property
    def git_sources(self):  # noqa: ANN201 - hansard.store.sqlite.git_sources.SqliteGitSources
        from hansard.store.sqlite.git_sources import SqliteGitSources

        return SqliteGitSources(self.db)

    @cached_property
    def why_cache(self):  # noqa: ANN201 - hansard.store.sqlite.why_cache.SqliteWhyCache
        from hansard.store.sqlite.why_cache import SqliteWhyCache

        return SqliteWhyCache(self.db)

    @cached_property
    def stats(self):  # noqa: ANN201 - hansard.store.sqlite.stats.SqliteStats
        from hansard.store.sqlite.stats import SqliteStats

        return SqliteStats(self.db)
