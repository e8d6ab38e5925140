"""The disk side of memories: finding the guidance files agents read and mirroring their text
into the store (``store.memories``), read-only on disk.

Which files, of which agent, and where (its home, any folder of a project, the project root, or
per transcript folder), is each agent's record (hansard.agents: ``MemoryFile``). A file kept
per transcript folder (Claude's auto memory) has project scope when a session read from that
folder ran in a known repository, else it is unkeyed.

Skills (``skills/`` folders, SKILL.md) are not memories and are skipped. Projects are the
repositories hansard knows plus the one the command runs in. The walk of a project
(``git ls-files``, so ignored folders stay out; ignored root files such as CLAUDE.local.md are
looked at directly) runs at most every ``RESCAN_SECONDS``; files already known are re-checked
by a stat on every scan. When a file's text changes, the new text becomes the current version
and every earlier version is kept. Nothing here writes to a memory file.
"""

from __future__ import annotations

import fnmatch
import hashlib
import os
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hansard import agents
from hansard.files import safeopen
from hansard.values.timebounds import utc_stamp

if TYPE_CHECKING:
    from hansard.store.interfaces import MemoryStore, RepoRegistry, Store

RESCAN_SECONDS = 600
MAX_FILE_BYTES = 1 << 20
# Which files are memories, and whose, comes from the agents' records (hansard.agents).
PROJECT_NAMES = {n: mf.kind for _, mf in agents.memory_files() for n in mf.project_names}
PROJECT_PATHS = {p: mf.kind for _, mf in agents.memory_files() for p in mf.project_paths}
PROJECT_GLOBS = {g: mf.kind for _, mf in agents.memory_files() for g in mf.project_globs}  # "dir/*.md", any depth
SOURCE_OF = {mf.kind: a.name for a, mf in agents.memory_files()}
_AGENT_OF = {mf.kind: a for a, mf in agents.memory_files()}
_SKIP_PARTS = {"skills", "node_modules", ".git"}


def memory_id_for(path: str) -> str:
    """The public id of the memory at ``path``: stable across scans."""
    return "mem_" + hashlib.sha1(path.encode("utf-8", "surrogatepass")).hexdigest()[:12]


# -- discovery ------------------------------------------------------------------------


def _global_files(mem: MemoryStore) -> Iterator[tuple[Path, str, str, int | None, str | None]]:
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
                repo_id, root = mem.project_of_folder(str(folder))
                for p in files:
                    yield p, mf.kind, ("project" if repo_id or root else "unkeyed"), repo_id, root


def _project_roots(mem: MemoryStore, repos: RepoRegistry, cwd: str | None) -> list[tuple[str, int | None]]:
    """The repositories hansard knows (present on disk) and the one ``cwd`` is in. A
    Claude project folder's name is a lossy encoding of the cwd and is never decoded: its
    auto memory gets a project from the sessions read from that folder."""
    roots: dict[str, int | None] = {}
    for path, rid in mem.project_roots():
        if os.path.isdir(path):
            roots[path] = rid
    if cwd:
        from hansard.git.identity import find_toplevel

        tops = find_toplevel(os.path.join(os.path.abspath(cwd), "."))
        if tops:
            for top in dict.fromkeys(tops):
                if top not in roots:
                    roots[top] = repos.id_by_path(top)
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
    except Exception:  # not a git checkout, or git missing: root files only
        pass
    for rel in sorted(seen):
        if _kind_of(rel) and os.path.isfile(os.path.join(root, rel)):
            yield rel


# -- scanning -------------------------------------------------------------------------


def scan_memories(store: Store, cwd: str | None = None, *, force: bool = False) -> dict[str, int]:
    """Bring the mirror up to date. Cheap when nothing changed: a stat per known file, and a
    project walk only when the last one is older than RESCAN_SECONDS (or ``force``)."""
    mem = store.memories
    counts = {"files": 0, "new_versions": 0, "missing": 0}
    now = time.time()
    found: list[tuple[str, str, str, int | None, str | None, str | None]] = []
    for p, kind, scope, repo_id, root in _global_files(mem):
        found.append((str(p), kind, scope, repo_id, root, None))
    for root, repo_id in _project_roots(mem, store.repos, cwd):
        scanned_at = mem.root_scanned_at(root)
        if not force and scanned_at is not None and now - scanned_at < RESCAN_SECONDS:
            continue
        for rel_path in _project_files(root):
            file_kind = _kind_of(rel_path)
            if file_kind:
                found.append((os.path.join(root, rel_path), file_kind, "project", repo_id, root, rel_path))
        mem.mark_root_scanned(root, repo_id, now)
    known = mem.known()
    todo = {f[0]: f for f in found}
    for path, r in known.items():
        if path not in todo:
            todo[path] = (path, r["kind"], r["scope"], r["repo_id"], r["root"], r["rel_path"])
    with mem.transaction():
        for path, kind, scope, repo_id, root, rel in todo.values():
            _sync_file(mem, known.get(path), path, kind, scope, repo_id, root, rel, counts)
    return counts


def _sync_file(mem: MemoryStore, row: dict[str, Any] | None, path: str, kind: str, scope: str,
               repo_id: int | None, root: str | None, rel: str | None, counts: dict[str, int]) -> None:
    try:
        fd = _open_memory(path, kind, root, rel)
    except OSError:
        # Gone, unreadable, not a regular file (a FIFO would block), or a symlink out of its
        # folder (never copy /etc/passwd or another agent's auth.json into the store).
        if row is not None and not row["missing"]:
            mem.mark_missing(row["id"])
            counts["missing"] += 1
        return
    with os.fdopen(fd, "rb") as fh:
        st = os.fstat(fh.fileno())
        counts["files"] += 1
        if row is not None and not row["missing"] and row["mtime_ns"] == st.st_mtime_ns and row["size"] == st.st_size:
            if (row["scope"], row["repo_id"]) != (scope, repo_id):
                mem.set_scope(row["id"], scope, repo_id)
            return
        try:
            data = fh.read(MAX_FILE_BYTES)
        except OSError:
            return
    now = utc_stamp()
    from hansard.ingest.redact import redact

    # Memory files hold keys too (a pasted token in CLAUDE.md): the stored, searchable and
    # served text is redacted; the hash is of the file as it is, to notice changes.
    text, _ = redact(data.decode("utf-8", "replace"))
    sha = hashlib.sha256(data).hexdigest()
    if mem.save(None if row is None else row["id"], memory_id=memory_id_for(path), path=path, kind=kind,
                source=SOURCE_OF[kind], scope=scope, repo_id=repo_id, root=root, rel_path=rel,
                title=_title(text, path, root), sha256=sha, text=text, mtime_ns=st.st_mtime_ns, size=st.st_size,
                at=now):
        counts["new_versions"] += 1


def _folder_of(path: str, kind: str, root: str | None, rel: str | None) -> tuple[str, str]:
    """(folder, the path below it) a memory file is read from: its repository for a project
    file (``rel`` set), else the home of the agent whose file it is, and only that agent's
    (~/.claude/rules/x.md is never read from ~/.codex)."""
    if rel is not None and root:
        return root, rel
    agent = _AGENT_OF.get(kind)
    if agent is None:
        raise OSError("no agent home for " + kind)
    home = str(agent.home())
    below = os.path.relpath(path, home)
    if below == os.pardir or below.startswith(os.pardir + os.sep) or os.path.isabs(below):
        raise OSError("not in its agent's home")
    return home, below


def _open_memory(path: str, kind: str, root: str | None, rel: str | None) -> int:
    """A descriptor of the memory file, opened relative to its folder's descriptor (openat)
    without blocking, and only when what was opened is a regular file whose real path, read
    from the open descriptor, lies inside that folder: a memory file may be a symlink, but not
    one that leads out, and no check-then-open race is left (hansard.files.safeopen)."""
    folder, below = _folder_of(path, kind, root, rel)
    dfd = safeopen.open_dir(folder, follow=True)
    try:
        return safeopen.open_fd(below, dir_fd=dfd, follow=True, within=[safeopen.fd_path(dfd) or folder])
    finally:
        os.close(dfd)


_HEADING = re.compile(r"^\s{0,3}#{1,3}\s+(.+?)\s*#*\s*$")


def _title(text: str, path: str, root: str | None) -> str:
    for ln in text.splitlines()[:40]:
        m = _HEADING.match(ln)
        if m:
            return m.group(1)[:120]
    where = os.path.relpath(path, root) if root else path
    return where


def refresh_memories(store: Store) -> None:
    """The indexer's hook: scan memory files for the known repositories and the current
    folder's. Never fails an index run: a problem here is a stale mirror, not lost data."""
    try:
        scan_memories(store, cwd=os.getcwd())
    except Exception:  # OSError or any store error: a stale mirror, never a failed index run
        pass
