"""`hansard doctor`: is the store healthy, and if not, how to get it back.

The archive (``sources`` and ``raw_records``) is the truth; every other table is derived
from it. So a damaged store is rebuilt by salvaging whatever archive rows can still be read
into a fresh file (here) and reindexing that (the ingest pipeline, hansard.ingest.run.repair).
The damaged file is kept beside it, never deleted.
"""

from __future__ import annotations

import os
import sqlite3
import time
from typing import Any

from hansard import config
from hansard.errors import HansardError


def _check(name: str, ok: bool, detail: str) -> dict[str, Any]:
    return {"name": name, "ok": ok, "detail": detail}


def check(path: str | None = None) -> dict[str, Any]:
    from hansard.store.sqlite.db import connect

    path = path or config.store_path_str()
    checks: list[dict[str, Any]] = []
    if not os.path.exists(path):
        folder = os.path.dirname(path)
        up = folder
        while up and not os.path.exists(up) and os.path.dirname(up) != up:
            up = os.path.dirname(up)
        if not os.path.isdir(up):
            from hansard.crash import unusable_home

            checks.append(_check("folder", False, f"{unusable_home(folder).message} [store_home_unusable]"))
            return {"ok": False, "store": path, "checks": checks, "code": "store_home_unusable"}
        checks.append(_check("store", True, f"no store yet at {path}; `hansard index` creates it"))
        return {"ok": True, "store": path, "checks": checks}
    mode = os.stat(path).st_mode & 0o777
    checks.append(_check("permissions", mode & 0o077 == 0, f"{oct(mode)} (owner only is 0o600)"))
    try:
        db = connect(path)
    except HansardError as exc:
        checks.append(_check("open", False, f"{exc.message} [{exc.code}]"))
        return _verdict(path, checks, exc.code)
    checks.append(_check("open", True, "migrations applied"))
    try:
        problems = [r[0] for r in db.execute("PRAGMA integrity_check(20)")]
    except sqlite3.DatabaseError as exc:
        problems = [str(exc)]
    checks.append(_check("integrity", problems == ["ok"], "; ".join(problems[:5])))
    try:
        n = db.execute("SELECT COUNT(*) FROM raw_records").fetchone()[0]
        files = db.execute("SELECT COUNT(*) FROM sources").fetchone()[0]
        checks.append(_check("archive", True, f"{n} raw records from {files} files"))
    except sqlite3.DatabaseError as exc:
        checks.append(_check("archive", False, str(exc)))
    return _verdict(path, checks, None if problems == ["ok"] else "store_corrupt")


def _verdict(path: str, checks: list[dict[str, Any]], code: str | None) -> dict[str, Any]:
    ok = all(c["ok"] for c in checks)
    out: dict[str, Any] = {"ok": ok, "store": path, "checks": checks}
    if code == "store_too_new":
        out["advice"] = "This store was written by a newer hansard. Upgrade hansard; the store is left untouched."
    elif not ok and code in ("store_corrupt", None):
        out["advice"] = (
            "The store is damaged. Everything hansard knows can be rebuilt from its archive of raw transcript "
            "records: run `hansard doctor --rebuild`. It copies every readable archive row into a new store, "
            "reindexes it, and keeps the damaged file as hansard.db.damaged-<time>. Transcripts still on disk are "
            "read again by the next `hansard index`."
        )
    return out


def salvage(path: str | None = None) -> tuple[int, int]:
    """Copy every readable archive row of the store at ``path`` into a fresh store and swap it
    in, keeping the damaged file beside it. Returns (rows copied, sources or tables
    unreadable). The derived tables of the fresh store are empty until it is reindexed."""
    from hansard.store.sqlite.db import connect

    path = path or config.store_path_str()
    fresh_path = path + ".rebuilding"
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(fresh_path + suffix):
            os.remove(fresh_path + suffix)
    fresh = connect(fresh_path)
    copied, lost = _salvage(path, fresh)
    fresh.close()
    stamp = time.strftime("%Y%m%d%H%M%S")
    if os.path.exists(path):
        for suffix in ("", "-wal", "-shm"):
            if os.path.exists(path + suffix):
                os.replace(path + suffix, f"{path}.damaged-{stamp}{suffix}")
    os.replace(fresh_path, path)
    return copied, lost


def rebuilt_report(path: str | None, copied: int, lost: int, sessions: int, messages: int) -> dict[str, Any]:
    """``check`` of the rebuilt store, headed by what the rebuild salvaged and reindexed."""
    report = check(path)
    report["checks"].insert(0, _check("rebuild", lost == 0, f"salvaged {copied} archive rows, {lost} unreadable; "
                                      f"reindexed {sessions} sessions, {messages} messages"))
    report["ok"] = all(c["ok"] for c in report["checks"])
    return report


SOURCE_COLS = ("id, path, provider, inode, size, mtime_ns, \"offset\", generation, head_hash, parser_state, missing,"
               " first_seen, last_scanned")


# What the archive cannot give back, copied as it is: the path maps a person set (`config map`) and
# the Agent Trace records a person imported (`trace import`, from files that may be gone).
KEPT_TABLES = ("path_maps", "agent_trace_records", "agent_trace_ranges")
# The rows pulled from the team (hansard.store.sqlite.team: ids below zero), with what says which
# and the repository rows they are linked to (a checkout registered again keeps its row). Rows
# damage made unreadable are not lost: the next pull brings them again.
TEAM_ROWS: tuple[tuple[str, str], ...] = (
    ("team_state", ""), ("team_sessions", ""),
    ("repos", "id IN (SELECT repo_id FROM sessions WHERE id < 0 UNION SELECT repo_id FROM memories WHERE id < 0)"),
    ("sessions", "id < 0"), ("messages", "id < 0"),
    ("tool_calls", "id < 0"), ("edits", "id < 0"), ("edit_lines", "edit_id < 0"), ("memories", "id < 0"),
    ("memory_versions", "id < 0"), ("passage_vectors", "message_id < 0"),
    ("vectors", "text_hash IN (SELECT text_hash FROM passage_vectors WHERE message_id < 0)"),
)


def _copy_table(old: sqlite3.Connection, fresh: sqlite3.Connection, table: str, where: str = "") -> int:
    """Copy ``table``'s rows (those ``where`` holds), by the columns both stores have; none from a
    store too old to have it. Returns the rows copied."""
    if old.execute("SELECT 1 FROM sqlite_master WHERE type='table' AND name=?", (table,)).fetchone() is None:
        return 0
    have = {r[1] for r in old.execute(f'PRAGMA table_info("{table}")')}
    cols = [r[1] for r in fresh.execute(f'PRAGMA table_info("{table}")') if r[1] in have]
    names = ", ".join(f'"{c}"' for c in cols)
    rows = old.execute(f'SELECT {names} FROM "{table}"' + (f" WHERE {where}" if where else "")).fetchall()
    fresh.executemany(f'INSERT OR IGNORE INTO "{table}" ({names}) VALUES ({", ".join("?" * len(cols))})', rows)
    return len(rows)


def _salvage(path: str, fresh: sqlite3.Connection) -> tuple[int, int]:
    """Copy every readable archive row. Returns (rows copied, sources or tables unreadable)."""
    copied = lost = 0
    if not os.path.exists(path):
        return 0, 0
    try:
        old = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        sources = old.execute(f"SELECT {SOURCE_COLS} FROM sources").fetchall()
    except sqlite3.DatabaseError:
        return 0, 1
    fresh.execute("BEGIN IMMEDIATE")
    try:
        for src in sources:
            try:
                rows = old.execute("SELECT source_id, generation, \"offset\", length, data FROM raw_records"
                                   " WHERE source_id=?", (src[0],)).fetchall()
            except sqlite3.DatabaseError:
                lost += 1
                # Without its records the file must be read again from the start.
                src = (*src[:3], None, None, None, 0, src[7] + 1, None, None, *src[10:])
                rows = []
            fresh.execute(f"INSERT INTO sources ({SOURCE_COLS}) VALUES ({','.join('?' * len(src))})", src)
            fresh.executemany("INSERT OR IGNORE INTO raw_records (source_id, generation, \"offset\", length, data)"
                              " VALUES (?,?,?,?,?)", rows)
            copied += len(rows) + 1
        for table in KEPT_TABLES:
            try:
                n = _copy_table(old, fresh, table)
            except sqlite3.DatabaseError:
                lost += 1
            else:
                copied += n
        copied += _salvage_team_rows(old, fresh)
        fresh.execute("COMMIT")
    except BaseException:
        fresh.execute("ROLLBACK")
        raise
    finally:
        old.close()
    return copied, lost


def _salvage_team_rows(old: sqlite3.Connection, fresh: sqlite3.Connection) -> int:
    """Inside the rebuild's transaction: the team's rows copied, or, when damage made any of
    them unreadable, none (the next pull fetches them all). How many rows were copied."""
    from hansard.store.sqlite.team import index_text

    fresh.execute("SAVEPOINT team_rows")
    try:
        n = sum(_copy_table(old, fresh, table, where) for table, where in TEAM_ROWS)
    except sqlite3.DatabaseError:
        fresh.execute("ROLLBACK TO team_rows")
        fresh.execute("RELEASE team_rows")
        return 0
    # A team session whose rows did not come is pulled again at the next pull.
    fresh.execute("DELETE FROM team_sessions WHERE kept=1 AND -team_row NOT IN (SELECT id FROM sessions)")
    index_text(fresh)
    fresh.execute("RELEASE team_rows")
    return n
