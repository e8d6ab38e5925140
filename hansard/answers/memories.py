"""Memories: the guidance files agents read, mirrored read-only and searchable.

Which files, of which agent, and where (its home, any folder of a project, the project root, or
per transcript folder), is each agent's record (hansard.agents: ``MemoryFile``). A file kept per transcript folder (Claude's auto memory) has project scope
when a session read from that folder ran in a known repository, else it is unkeyed.

Skills (``skills/`` folders, SKILL.md) are not memories and are skipped. Projects are the
repositories hansard knows (the ``repos`` table) plus the one the command runs in. The walk
of a project (``git ls-files``, so ignored folders stay out; ignored root files such as
CLAUDE.local.md are looked at directly) runs at most every ``RESCAN_SECONDS``; files already
known are re-checked by a stat on every scan. When a file's text changes, the new text
becomes the current version and every earlier version is kept. Nothing here writes to a
memory file.
"""

from __future__ import annotations

import fnmatch
import hashlib
import os
import re
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from hansard import agents
from hansard.errors import NotFound
from hansard.answers.search.filters import resolve_repo
from hansard.timebounds import utc_stamp
from hansard.answers.search.query import parse
from hansard.answers.search.text import excerpt, mark

RESCAN_SECONDS = 600
MAX_FILE_BYTES = 1 << 20
WINDOW_CHARS = 6000
# Which files are memories, and whose, comes from the agents' records (hansard.agents).
PROJECT_NAMES = {n: mf.kind for _, mf in agents.memory_files() for n in mf.project_names}
PROJECT_PATHS = {p: mf.kind for _, mf in agents.memory_files() for p in mf.project_paths}
PROJECT_GLOBS = {g: mf.kind for _, mf in agents.memory_files() for g in mf.project_globs}  # "dir/*.md", any depth
SOURCE_OF = {mf.kind: a.name for a, mf in agents.memory_files()}
KIND_ALIASES = {alias: mf.kind for _, mf in agents.memory_files() for alias in mf.aliases}
_SKIP_PARTS = {"skills", "node_modules", ".git"}


def memory_id_for(path: str) -> str:
    return "mem_" + hashlib.sha1(path.encode("utf-8", "surrogatepass")).hexdigest()[:12]


# -- discovery ------------------------------------------------------------------------


def _global_files(db: sqlite3.Connection) -> Iterator[tuple[Path, str, str, int | None, str | None]]:
    """(path, kind, scope, repo_id, root) for files under the agents' homes."""
    for agent, mf in agents.memory_files():
        home = Path(agent.home())
        for pattern in mf.home_globs:
            if any(ch in pattern for ch in "*?["):
                for p in sorted(home.glob(pattern)):
                    yield p, mf.kind, "global", None, None
            else:
                yield home / pattern, mf.kind, "global", None, None
        for pattern in mf.session_folder_globs:
            by_folder: dict[Path, list[Path]] = {}
            for p in sorted(home.glob(pattern)):
                by_folder.setdefault(p.parent.parent, []).append(p)
            for folder, files in by_folder.items():
                repo_id, root = _auto_memory_project(db, folder)
                for p in files:
                    yield p, mf.kind, ("project" if repo_id or root else "unkeyed"), repo_id, root


def _auto_memory_project(db: sqlite3.Connection, folder: Path) -> tuple[int | None, str | None]:
    """The repository of a Claude project folder, from the sessions read from it (the
    folder name itself is a lossy encoding of the cwd and is never decoded)."""
    prefix = str(folder).replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "/%"
    row = db.execute(
        "SELECT s.repo_id, r.path FROM sessions s JOIN sources src ON src.id=s.source_id"
        " LEFT JOIN repos r ON r.id=s.repo_id WHERE src.path LIKE ? ESCAPE '\\' AND s.repo_id IS NOT NULL LIMIT 1",
        (prefix,),
    ).fetchone()
    return (row[0], row[1]) if row else (None, None)


def _project_roots(db: sqlite3.Connection, cwd: str | None) -> list[tuple[str, int | None]]:
    roots: dict[str, int | None] = {}
    for rid, path in db.execute("SELECT id, path FROM repos WHERE path IS NOT NULL"):
        if os.path.isdir(path):
            roots[path] = rid
    if cwd:
        from hansard.git.identity import find_toplevel

        tops = find_toplevel(os.path.join(os.path.abspath(cwd), "."))
        if tops:
            for top in dict.fromkeys(tops):
                if top not in roots:
                    row = db.execute("SELECT id FROM repos WHERE path=?", (top,)).fetchone()
                    roots[top] = row[0] if row else None
    return list(roots.items())


def _kind_of(rel: str) -> str | None:
    parts = rel.split("/")
    if any(p in _SKIP_PARTS for p in parts[:-1]) or parts[-1] == "SKILL.md":
        return None
    for pattern, kind in PROJECT_GLOBS.items():
        gparts = pattern.split("/")
        if len(parts) >= len(gparts) and fnmatch.fnmatchcase("/".join(parts[-len(gparts):]), pattern):
            return kind
    return PROJECT_NAMES.get(parts[-1])


def _project_files(root: str) -> Iterator[str]:
    """Repository-relative paths of memory files under ``root``."""
    seen: set[str] = set()
    for name in list(PROJECT_NAMES) + list(PROJECT_PATHS):
        if os.path.isfile(os.path.join(root, name)):
            seen.add(name)
    for pattern in PROJECT_GLOBS:
        folder, _, names = pattern.rpartition("/")
        if os.path.isdir(os.path.join(root, folder)):
            seen |= {f"{folder}/{n}" for n in os.listdir(os.path.join(root, folder)) if fnmatch.fnmatchcase(n, names)}
    try:
        from hansard.git.run import git

        specs = [f":(glob)**/{n}" for n in PROJECT_NAMES] + [f":(glob)**/{g}" for g in PROJECT_GLOBS]
        out = git(["ls-files", "-z", "--cached", "--others", "--exclude-standard", "--", *specs], root, timeout=30.0)
        seen |= {p for p in out.decode("utf-8", "surrogateescape").split("\0") if p}
    except Exception:  # noqa: BLE001 - not a git checkout, or git missing: root files only
        pass
    for rel in sorted(seen):
        if _kind_of(rel) and os.path.isfile(os.path.join(root, rel)):
            yield rel


# -- scanning -------------------------------------------------------------------------


def scan_memories(store: Any, cwd: str | None = None, *, force: bool = False) -> dict[str, int]:
    """Bring the mirror up to date. Cheap when nothing changed: a stat per known file, and a
    project walk only when the last one is older than RESCAN_SECONDS (or ``force``)."""
    from hansard.store.sqlite.db import transaction

    db = store.db  # until the memories facet holds this SQL
    counts = {"files": 0, "new_versions": 0, "missing": 0}
    now = time.time()
    found: list[tuple[str, str, str, int | None, str | None, str | None]] = []
    for p, kind, scope, repo_id, root in _global_files(db):
        found.append((str(p), kind, scope, repo_id, root, None))
    for root, repo_id in _project_roots(db, cwd):
        row = db.execute("SELECT scanned_at FROM memory_roots WHERE path=?", (root,)).fetchone()
        if not force and row is not None and now - row[0] < RESCAN_SECONDS:
            continue
        for rel in _project_files(root):
            kind = _kind_of(rel)
            if kind:
                found.append((os.path.join(root, rel), kind, "project", repo_id, root, rel))
        with transaction(db):
            db.execute("INSERT OR REPLACE INTO memory_roots (path, repo_id, scanned_at) VALUES (?,?,?)",
                       (root, repo_id, now))
    known = {r["path"]: r for r in db.execute("SELECT * FROM memories")}
    todo = {f[0]: f for f in found}
    for path, r in known.items():
        if path not in todo:
            todo[path] = (path, r["kind"], r["scope"], r["repo_id"], r["root"], r["rel_path"])
    with transaction(db):
        for path, kind, scope, repo_id, root, rel in todo.values():
            _sync_file(db, known.get(path), path, kind, scope, repo_id, root, rel, counts)
    return counts


def _sync_file(db: sqlite3.Connection, row: sqlite3.Row | None, path: str, kind: str, scope: str,
               repo_id: int | None, root: str | None, rel: str | None, counts: dict[str, int]) -> None:
    try:
        st = os.stat(path)
        if not _contained(path, root, rel):
            raise OSError("a symlink out of its folder")  # never copy /etc/passwd into the store
    except OSError:
        if row is not None and not row["missing"]:
            db.execute("UPDATE memories SET missing=1 WHERE id=?", (row["id"],))
            counts["missing"] += 1
        return
    counts["files"] += 1
    now = utc_stamp()
    if row is not None and not row["missing"] and row["mtime_ns"] == st.st_mtime_ns and row["size"] == st.st_size:
        if (row["scope"], row["repo_id"]) != (scope, repo_id):
            db.execute("UPDATE memories SET scope=?, repo_id=? WHERE id=?", (scope, repo_id, row["id"]))
        return
    try:
        with open(path, "rb") as fh:
            data = fh.read(MAX_FILE_BYTES)
    except OSError:
        return
    from hansard.ingest.redact import redact

    # Memory files hold keys too (a pasted token in CLAUDE.md): the stored, searchable and
    # served text is redacted; the hash is of the file as it is, to notice changes.
    text, _ = redact(data.decode("utf-8", "replace"))
    sha = hashlib.sha256(data).hexdigest()
    if row is None:
        cur = db.execute(
            "INSERT INTO memories (memory_id, path, kind, source, scope, repo_id, root, rel_path, title, first_seen)"
            " VALUES (?,?,?,?,?,?,?,?,?,?)",
            (memory_id_for(path), path, kind, SOURCE_OF[kind], scope, repo_id, root, rel, _title(text, path, root), now),
        )
        mid = int(cur.lastrowid or 0)
    else:
        mid = row["id"]
    db.execute("INSERT OR IGNORE INTO memory_versions (memory, sha256, text, seen_at) VALUES (?,?,?,?)",
               (mid, sha, text, now))
    vid = db.execute("SELECT id FROM memory_versions WHERE memory=? AND sha256=?", (mid, sha)).fetchone()[0]
    if row is None or row["version_id"] != vid:
        counts["new_versions"] += 1
    db.execute(
        "UPDATE memories SET version_id=?, mtime_ns=?, size=?, missing=0, last_seen=?, title=?, scope=?, repo_id=?"
        " WHERE id=?",
        (vid, st.st_mtime_ns, st.st_size, now, _title(text, path, root), scope, repo_id, mid),
    )


def _contained(path: str, root: str | None, rel: str | None) -> bool:
    """Is the file's real path inside the folder it was found in: its repository for a
    project file (``rel`` set), else an agent's home? A memory file may be a symlink, but not
    one that leads out of there."""
    real = os.path.realpath(path)
    bases = [root] if rel is not None else [str(agent.home()) for agent, _ in agents.memory_files()]
    for base in bases:
        b = os.path.realpath(base) if base else None
        if b and (real == b or real.startswith(b.rstrip(os.sep) + os.sep)):
            return True
    return False


_HEADING = re.compile(r"^\s{0,3}#{1,3}\s+(.+?)\s*#*\s*$")


def _title(text: str, path: str, root: str | None) -> str:
    for ln in text.splitlines()[:40]:
        m = _HEADING.match(ln)
        if m:
            return m.group(1)[:120]
    where = os.path.relpath(path, root) if root else path
    return where


# -- search ---------------------------------------------------------------------------


def _record(r: sqlite3.Row) -> dict[str, Any]:
    d = {
        "memory_id": r["memory_id"], "kind": r["kind"], "source": r["source"], "scope": r["scope"],
        "title": r["title"], "path": r["path"], "repo": r["repo_path"], "rel_path": r["rel_path"],
        "updated_at": r["last_seen"], "missing": bool(r["missing"]) or None,
    }
    return {k: v for k, v in d.items() if v not in (None, "", [], {})}


def memory_count(store: Any) -> int:
    """Memory files present on disk at the last scan."""
    return store.db.execute("SELECT COUNT(*) FROM memories WHERE missing=0").fetchone()[0]


def search_memories(store: Any, query: str | None, repo: str | None = None, provider: str | None = None,
                    source: str | None = None, *, limit: int = 10) -> dict[str, Any]:
    """Memories whose current text matches ``query``. With ``repo``, that project's guidance
    ranks together with global and unkeyed memories (other projects' are left out).
    ``provider``: the agent (claude_code, codex, gemini). ``source``: a provider or a kind
    (claude_md, claude_auto_memory, agents_md, ...). Empty fields are omitted."""
    db = store.db  # until the memories facet holds this SQL
    q = parse(query)
    where, args = ["m.missing=0"], []
    repo_ids = resolve_repo(store, repo)
    top = None
    if repo:
        from hansard.git.identity import find_toplevel

        p = os.path.abspath(os.path.expanduser(repo))
        tops = find_toplevel(os.path.join(p, ".")) if os.path.exists(p) else None
        top = tops[1] if tops else None
        alts = ["m.scope IN ('global','unkeyed')"]
        if repo_ids:
            alts.append(f"m.repo_id IN ({','.join('?' * len(repo_ids))})")
            args += repo_ids
        if top:
            alts.append("m.root=?")
            args.append(top)
        where.append("(" + " OR ".join(alts) + ")")
    for val in (provider, source):
        if val:
            v = agents.resolve(KIND_ALIASES.get(val.lower(), val.lower()))
            where.append("(m.source=? OR m.kind=?)")
            args += [v, v]
    base = ("SELECT m.*, r.path AS repo_path, v.text AS text FROM memories m JOIN memory_versions v ON v.id=m.version_id"
            " LEFT JOIN repos r ON r.id=m.repo_id")
    rows: list[sqlite3.Row]
    bm: dict[int, float] = {}
    if q.empty:
        rows = db.execute(f"{base} WHERE {' AND '.join(where)} ORDER BY m.scope, m.path", args).fetchall()
    else:
        expr = q.fts_any()
        hits = db.execute(
            "SELECT rowid, bm25(memory_fts) FROM memory_fts WHERE memory_fts MATCH ?", (expr,)
        ).fetchall() if expr else []
        bm = {r[0]: r[1] for r in hits}
        if not bm:
            rows = []
        else:
            rows = db.execute(
                f"{base} WHERE {' AND '.join(where)} AND m.version_id IN ({','.join(str(i) for i in bm)})", args
            ).fetchall()
    words = q.highlight_words()
    groups = [[w.casefold() for t in g for w in ([t.text] if t.identifier else t.words)] for g in q.groups]
    results = []
    for r in rows:
        text = r["text"]
        low = text.casefold()
        cover = sum(1 for g in groups if any(w in low for w in g))
        rel = (bm.get(r["version_id"], 0.0) / min(bm.values())) if bm and min(bm.values()) < 0 else 0.0
        boost = 0.05 if r["scope"] == "project" and repo else 0.0
        score = (cover / len(groups) if groups else 0.0) + rel / (len(groups) + 1 if groups else 2) + boost
        d = _record(r)
        if words:
            start, end = _line_range(text, words)
            d["line_start"], d["line_end"] = start, end
            lines = text.splitlines()
            d["excerpt"] = excerpt("\n".join(lines[start - 1:end]), words) if lines else ""
        d["score"] = round(score, 4)
        results.append(d)
    results.sort(key=lambda d: (-d["score"], d["path"]))
    total = len(results)
    results = results[:limit]
    return {"query": query or "", "results": results, "total": total, "returned": len(results)}


def _line_range(text: str, words: list[str]) -> tuple[int, int]:
    """1-based first and last line of the densest block of matching lines."""
    lines = text.splitlines()
    hits = []
    for i, ln in enumerate(lines):
        low = ln.casefold()
        found = {w for w in words if w in low}
        if found:
            hits.append((i, found))
    if not hits:
        return 1, min(len(lines), 1) or 1
    blocks: list[list[tuple[int, set[str]]]] = [[hits[0]]]
    for h in hits[1:]:
        if h[0] - blocks[-1][-1][0] <= 3:
            blocks[-1].append(h)
        else:
            blocks.append([h])
    best = max(blocks, key=lambda b: (len(set().union(*(f for _, f in b))), len(b), -b[0][0]))
    return best[0][0] + 1, best[-1][0] + 1


# -- reading --------------------------------------------------------------------------


def get_memory(store: Any, memory_id: str, line: int | None = None, offset: int | None = None) -> dict[str, Any]:
    """A window of a memory's current text (or of an earlier version: ``<memory_id>@<n>``,
    n counting from 1 = the first text seen). ``offset`` (characters) takes precedence over
    ``line``; the window starts at a complete line. Reports ``contentLineStart``,
    ``contentLineEnd`` and, when there is more, ``nextOffset``."""
    db = store.db  # until the memories facet holds this SQL
    mid, _, ver = (memory_id or "").strip().partition("@")
    r = db.execute(
        "SELECT m.*, r.path AS repo_path FROM memories m LEFT JOIN repos r ON r.id=m.repo_id WHERE m.memory_id=?",
        (mid,),
    ).fetchone()
    if r is None:
        raise NotFound(f"no memory {memory_id!r}; find ids with search_memories")
    versions = db.execute("SELECT id, sha256, seen_at, text FROM memory_versions WHERE memory=? ORDER BY id",
                          (r["id"],)).fetchall()
    if ver:
        if not ver.isdigit() or not 1 <= int(ver) <= len(versions):
            raise NotFound(f"memory {mid} has versions 1..{len(versions)}, not {ver!r}")
        v = versions[int(ver) - 1]
    else:
        v = next((x for x in versions if x["id"] == r["version_id"]), versions[-1])
    text = v["text"]
    starts = [0]
    for m in re.finditer("\n", text):
        starts.append(m.end())
    if starts[-1] == len(text) and len(starts) > 1:
        starts.pop()  # a final newline does not start a line
    nlines = len(starts)
    if offset is not None:
        off = max(0, min(int(offset), len(text)))
        first = max(0, _line_at(starts, off))
    elif line is not None:
        target = max(1, min(int(line), nlines)) - 1
        first = target
        while first > 0 and starts[target] - starts[first - 1] <= WINDOW_CHARS // 2:
            first -= 1
    else:
        first = 0
    start = starts[first] if text else 0
    line_end = starts[first + 1] if first + 1 < nlines else len(text)
    if offset is not None and off > start and line_end - start > WINDOW_CHARS:
        start = off  # inside one very long line: continue where the last window stopped
    last = first
    while last + 1 < nlines and starts[last + 1] - start < WINDOW_CHARS:
        last += 1
    end = starts[last + 1] if last + 1 < nlines else len(text)
    if end - start > WINDOW_CHARS and last == first:
        end = start + WINDOW_CHARS  # one very long line: cut it; nextOffset resumes inside
    d = _record(r)
    d["version"] = versions.index(v) + 1
    d["versions"] = [{"version": i + 1, "sha256": x["sha256"], "seen_at": x["seen_at"]} for i, x in enumerate(versions)]
    d["content"] = text[start:end]
    d["contentLineStart"] = first + 1 if text else 0
    d["contentLineEnd"] = (last + 1) if text else 0
    d["totalLines"] = nlines if text else 0
    d["contentChars"] = len(text)
    if end < len(text):
        d["nextOffset"] = end
    return d


def _line_at(starts: list[int], off: int) -> int:
    import bisect

    return bisect.bisect_right(starts, off) - 1


__all__ = ["scan_memories", "search_memories", "get_memory", "mark"]


def refresh_memories(store: Any) -> None:
    """The indexer's hook: scan memory files for the known repositories and the current
    folder's. Never fails an index run: a problem here is a stale mirror, not lost data."""
    try:
        scan_memories(store, cwd=os.getcwd())
    except (OSError, sqlite3.Error):
        pass
