"""The link step from transcripts to repositories: which repository each session ran in and
which repository-relative path each edit touched.

Always true afterwards: an edit with ``repo_id`` set has a ``rel_path`` relative to the top
of the working tree it was made in (a worktree path maps to the same relative path in its
main repository). Paths are first rewritten by ``hansard config map`` prefixes, so sessions
recorded on another machine or at an old path still land in the right repository. Rows are
marked ``resolved`` once looked at; a new path map marks them for another look.
"""

from __future__ import annotations

import os
import sqlite3

from hansard.git import identity


class Resolver:
    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db
        self.maps = sorted(
            ((r[0].rstrip("/"), r[1].rstrip("/")) for r in db.execute("SELECT old_prefix, new_prefix FROM path_maps")),
            key=lambda m: -len(m[0]),
        )
        self._tops: dict[str, tuple[str, str] | None] = {}
        self._repo_ids: dict[str, int] = {}
        self.created = False  # a repository was registered: unresolved sessions deserve another look

    def map_path(self, path: str) -> str:
        for old, new in self.maps:
            if path == old or path.startswith(old + "/"):
                return new + path[len(old):]
        return path

    def _toplevel(self, path: str) -> tuple[str, str] | None:
        d = os.path.dirname(path)
        if d not in self._tops:
            self._tops[d] = identity.find_toplevel(path)
        return self._tops[d]

    def repo_id(self, main_top: str) -> int:
        """The repos row for a main working tree, matched by identity before path."""
        if main_top in self._repo_ids:
            return self._repo_ids[main_top]
        row = self.db.execute("SELECT id FROM repos WHERE path=?", (main_top,)).fetchone()
        if row is None:
            ident = identity.identify(main_top)
            row = None
            if ident.root_commit:
                row = self.db.execute(
                    "SELECT id FROM repos WHERE root_commit=? AND (remote IS ? OR remote IS NULL OR ? IS NULL)",
                    (ident.root_commit, ident.remote, ident.remote),
                ).fetchone()
            if row is None:
                cur = self.db.execute(
                    "INSERT INTO repos (root_commit, remote, path) VALUES (?,?,?)",
                    (ident.root_commit, ident.remote, main_top),
                )
                rid = int(cur.lastrowid or 0)
                self.created = True
                # Gemini sessions with only a project hash may belong here: look again.
                self.db.execute(
                    "UPDATE sessions SET resolved=0 WHERE repo_id IS NULL AND cwd IS NULL"
                    " AND json_extract(extra, '$.projectHash') IS NOT NULL"
                )
                self.db.execute(
                    "UPDATE edits SET resolved=0 WHERE repo_id IS NULL"
                    " AND session_id IN (SELECT id FROM sessions WHERE resolved=0)"
                )
            else:
                rid = row[0]
        else:
            rid = row[0]
        self._repo_ids[main_top] = rid
        return rid

    def locate(self, path: str, cwd: str | None) -> tuple[int, str] | None:
        """(repo_id, repo-relative path) of a file path as a transcript wrote it."""
        p = path.replace("\\", "/")
        if not os.path.isabs(p):
            if not cwd:
                return None
            p = os.path.join(self.map_path(cwd), p)
        p = os.path.normpath(self.map_path(p))
        tops = self._toplevel(p)
        if tops is None:
            return None
        wt_top, main_top = tops
        rel = identity.relpath_in(wt_top, p)
        if rel is None or rel == ".":
            return None
        return self.repo_id(main_top), rel

    def repo_of_dir(self, cwd: str | None) -> int | None:
        if not cwd:
            return None
        tops = self._toplevel(os.path.join(self.map_path(cwd), "."))
        return self.repo_id(tops[1]) if tops else None


def resolve_pending(db: sqlite3.Connection) -> int:
    """Link unresolved sessions and edits to repositories. Returns the edits linked."""
    r = Resolver(db)
    _gemini_project_roots(db, r)
    for row in db.execute("SELECT id, cwd FROM sessions WHERE resolved=0").fetchall():
        db.execute("UPDATE sessions SET repo_id=?, resolved=1 WHERE id=?", (r.repo_of_dir(row["cwd"]), row["id"]))
    linked = 0
    rows = db.execute(
        "SELECT e.id, e.path, COALESCE(e.cwd, s.cwd) AS cwd, e.move_to FROM edits e JOIN sessions s ON s.id=e.session_id"
        " WHERE e.resolved=0"
    ).fetchall()
    for row in rows:
        hit = r.locate(row["path"], row["cwd"])
        db.execute(
            "UPDATE edits SET repo_id=?, rel_path=?, resolved=1 WHERE id=?",
            (hit[0] if hit else None, hit[1] if hit else None, row["id"]),
        )
        linked += hit is not None
    return linked


def _gemini_project_roots(db: sqlite3.Connection, r: Resolver) -> None:
    """Gemini's legacy files record no cwd, only sha256(project root). Match it against the
    repositories hansard knows."""
    rows = db.execute(
        "SELECT id, json_extract(extra, '$.projectHash') AS h FROM sessions"
        " WHERE resolved=0 AND cwd IS NULL AND provider='gemini' AND json_extract(extra, '$.projectHash') IS NOT NULL"
    ).fetchall()
    if not rows:
        return
    import hashlib

    paths = [p for (p,) in db.execute("SELECT path FROM repos")]
    paths += [p for (p,) in db.execute("SELECT DISTINCT cwd FROM sessions WHERE cwd IS NOT NULL")]
    known: dict[str, str] = {}
    for p in paths:
        # Gemini hashes the project root as it saw it, which may be through a symlink.
        for form in {p, os.path.realpath(p)}:
            known[hashlib.sha256(form.encode()).hexdigest()] = p
    for row in rows:
        if row["h"] in known:
            db.execute("UPDATE sessions SET cwd=? WHERE id=?", (known[row["h"]], row["id"]))


def add_path_map(db: sqlite3.Connection, old: str, new: str) -> None:
    db.execute("INSERT OR REPLACE INTO path_maps (old_prefix, new_prefix) VALUES (?,?)", (old, new))
    # Everything gets another look under the new map.
    db.execute("UPDATE sessions SET resolved=0")
    db.execute("UPDATE edits SET resolved=0")
