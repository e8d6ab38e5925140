"""The memory-file mirror over SQLite: one row per memory file (``memories``), every text it
ever had (``memory_versions``, full-text indexed by ``memory_fts``), and when each project
folder was last walked (``memory_roots``).

Only the ingest side (:mod:`hansard.ingest.memory_files`) writes this machine's rows; answers
read. A file's current text is the version its row points at; earlier versions are never
deleted. A row of id below zero is a teammate's project memory, pulled from the team store
(:mod:`hansard.store.sqlite.team`, which alone writes those): it is never a file of this
machine's, and a search finds it only when asked for teammates' memories.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from hansard.store.sqlite.db import _typed, first_id, like_escape, marks, transaction

if TYPE_CHECKING:
    from hansard.store.types import Query

_BASE = ("SELECT m.*, r.path AS repo_path, v.text AS text FROM memories m JOIN memory_versions v ON v.id=m.version_id"
         " LEFT JOIN repos r ON r.id=m.repo_id")


class SqliteMemories:
    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    # -- writing (the ingest side) -------------------------------------------------------

    @contextmanager
    def transaction(self) -> Iterator[None]:
        with transaction(self.db):
            yield

    def project_roots(self) -> list[tuple[str, int]]:
        """(path, repository row) of every repository with a known checkout path."""
        return [(r[1], r[0]) for r in self.db.execute("SELECT id, path FROM repos WHERE path IS NOT NULL")]

    def project_of_folder(self, folder: str) -> tuple[int | None, str | None]:
        """(repository row, its path) of a session read from a file under ``folder``, or
        (None, None)."""
        prefix = like_escape(folder) + "/%"
        row = self.db.execute(
            "SELECT s.repo_id, r.path FROM sessions s JOIN sources src ON src.id=s.source_id"
            " LEFT JOIN repos r ON r.id=s.repo_id WHERE src.path LIKE ? ESCAPE '\\' AND s.repo_id IS NOT NULL LIMIT 1",
            (prefix,),
        ).fetchone()
        return (row[0], row[1]) if row else (None, None)

    def root_scanned_at(self, path: str) -> float | None:
        """Unix time of the last walk of a project folder, or None."""
        row = self.db.execute("SELECT scanned_at FROM memory_roots WHERE path=?", (path,)).fetchone()
        return None if row is None else row[0]

    def mark_root_scanned(self, path: str, repo_id: int | None, at: float) -> None:
        with transaction(self.db):
            self.db.execute("INSERT OR REPLACE INTO memory_roots (path, repo_id, scanned_at) VALUES (?,?,?)",
                            (path, repo_id, at))

    def known(self) -> dict[str, dict[str, Any]]:
        """Every memory row by path: id, memory_id, kind, scope, repo_id, root, rel_path,
        version_id, mtime_ns, size, missing, ..."""
        return {r["path"]: dict(r) for r in self.db.execute("SELECT * FROM memories WHERE id > 0")}

    def mark_missing(self, row_id: int) -> None:
        self.db.execute("UPDATE memories SET missing=1 WHERE id=?", (row_id,))

    def set_scope(self, row_id: int, scope: str, repo_id: int | None) -> None:
        self.db.execute("UPDATE memories SET scope=?, repo_id=? WHERE id=?", (scope, repo_id, row_id))

    def save(self, row_id: int | None, *, memory_id: str, path: str, kind: str, source: str, scope: str,
             repo_id: int | None, root: str | None, rel_path: str | None, title: str, sha256: str, text: str,
             mtime_ns: int, size: int, at: str) -> bool:
        """Record the file's text as its current version (a new memory row when ``row_id`` is
        None); True when that is a version the row did not point at before."""
        db = self.db
        prev = None
        if row_id is None:
            cur = db.execute(
                "INSERT INTO memories (id, memory_id, path, kind, source, scope, repo_id, root, rel_path, title,"
                " first_seen) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                (first_id(db, "memories"), memory_id, path, kind, source, scope, repo_id, root, rel_path, title, at),
            )
            row_id = int(cur.lastrowid or 0)
        else:
            prev = db.execute("SELECT version_id FROM memories WHERE id=?", (row_id,)).fetchone()[0]
        db.execute("INSERT OR IGNORE INTO memory_versions (id, memory, sha256, text, seen_at) VALUES (?,?,?,?,?)",
                   (first_id(db, "memory_versions"), row_id, sha256, text, at))
        vid = db.execute("SELECT id FROM memory_versions WHERE memory=? AND sha256=?", (row_id, sha256)).fetchone()[0]
        db.execute(
            "UPDATE memories SET version_id=?, mtime_ns=?, size=?, missing=0, last_seen=?, title=?, scope=?, repo_id=?"
            " WHERE id=?",
            (vid, mtime_ns, size, at, title, scope, repo_id, row_id),
        )
        return bool(prev != vid)

    # -- reading (answers) -----------------------------------------------------------------

    def count(self) -> int:
        """Memory files present on disk at the last scan."""
        return int(self.db.execute("SELECT COUNT(*) FROM memories WHERE missing=0 AND id > 0").fetchone()[0])

    def current(self, q: Query, *, project: tuple[Sequence[int], str | None] | None = None,
                sources: Sequence[str] = (), include_team: bool = False) -> list[dict[str, Any]]:
        """Present memories with their current text (``text``) and repository path
        (``repo_path``), whose text matches any term group of ``q`` (all of them when ``q`` is
        empty, ordered by scope and path). ``relevance`` is the text's full-text score
        relative to the best match among all memory texts (1.0 = the best; 0.0 without
        terms). ``project`` = (repository rows, checkout root):
        only global and unkeyed memories and that project's. Each of ``sources`` must be the
        memory's provider or kind. ``include_team``: teammates' project memories too."""
        from hansard.store.sqlite.search import fts_any

        where: list[str] = ["m.missing=0"] if include_team else ["m.missing=0", "m.id > 0"]
        args: list[Any] = []
        if project is not None:
            repo_ids, root = project
            alts = ["m.scope IN ('global','unkeyed')"]
            if repo_ids:
                alts.append(f"m.repo_id IN ({marks(len(repo_ids))})")
                args += list(repo_ids)
            if root:
                alts.append("m.root=?")
                args.append(root)
            where.append("(" + " OR ".join(alts) + ")")
        for v in sources:
            where.append("(m.source=? OR m.kind=?)")
            args += [v, v]
        db = self.db
        if q.empty:
            return [dict(r) | {"relevance": 0.0} for r in
                    db.execute(f"{_BASE} WHERE {' AND '.join(where)} ORDER BY m.scope, m.path", args)]
        expr = fts_any(q)
        try:
            hits = db.execute("SELECT rowid, bm25(memory_fts) FROM memory_fts WHERE memory_fts MATCH ?",
                              (expr,)).fetchall() if expr else []
        except sqlite3.Error as exc:
            raise _typed(exc) from None
        bm = {r[0]: r[1] for r in hits}
        if not bm:
            return []
        rows = db.execute(
            f"{_BASE} WHERE {' AND '.join(where)} AND m.version_id IN ({','.join(str(int(i)) for i in bm)})", args
        ).fetchall()
        best = min(bm.values())
        return [dict(r) | {"relevance": (bm.get(r["version_id"], 0.0) / best) if best < 0 else 0.0} for r in rows]

    def get(self, memory_id: str) -> dict[str, Any] | None:
        """One memory by its public id, with ``repo_path``."""
        r = self.db.execute(
            "SELECT m.*, r.path AS repo_path FROM memories m LEFT JOIN repos r ON r.id=m.repo_id WHERE m.memory_id=?",
            (memory_id,),
        ).fetchone()
        return dict(r) if r else None

    def versions(self, row_id: int) -> list[dict[str, Any]]:
        """id, sha256, seen_at, text of every version of a memory, oldest first."""
        return [dict(r) for r in self.db.execute(
            "SELECT id, sha256, seen_at, text FROM memory_versions WHERE memory=? ORDER BY id", (row_id,))]
