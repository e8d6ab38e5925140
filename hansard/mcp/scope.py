"""``--scope repo``: what a server limited to one repository may read.

Always true under ``--scope repo``: every path argument is resolved to its real path (through
``..``, absolute paths and symlinked folders) before anything else, and a path whose real
location is outside the granted repository, or in another repository nested inside it, is
refused with ``scope_not_granted``, never answered empty; a commit must exist in the granted
repository; a memory is served when it is global, or when its own repository (or, for a file
of a repository the store does not know, its real path) is the granted one; a linked session
is listed only when it ran in the granted repository. Refusals name the granted repository and
never the other one. An id (or prefix) of another repository's session or memory is refused word
for word as an id of none, so refusals are no oracle for ids; and no answer names, quotes or links
a session that ran in another repository: code_history and repo_stats say "another repository's
session" for what it wrote here.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from hansard.errors import HansardError, ScopeNotGranted

if TYPE_CHECKING:
    from hansard.answers.results import Breakdown, MemoryHits

E = TypeVar("E", bound=Mapping[str, Any])

_LINE_SUFFIX = re.compile(r":\d+(?:-\d+)?$")


def real(path: str) -> str:
    return os.path.realpath(os.path.expanduser(path))


def inside(path: str, root: str) -> bool:
    """Is real path ``path`` the real folder ``root`` or under it?"""
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def _refuse(what: str, root: str, detail: str) -> ScopeNotGranted:
    return ScopeNotGranted(
        f"{what}: {detail}; this server may only read {root} (--scope repo). To read other repositories, ask the "
        "user to restart `hansard mcp serve` without --scope repo."
    )


def check_path(root: str, path: str, base: str, what: str) -> None:
    """``path`` (absolute, or relative to ``base``; ``path:line`` allowed) must lie in ``root``."""
    from hansard.git.identity import find_toplevel

    granted = real(root)
    p = path.strip()
    if not os.path.lexists(os.path.join(base, p)):
        p = _LINE_SUFFIX.sub("", p)
    full = real(p if os.path.isabs(p) else os.path.join(base, p))
    if not inside(full, granted):
        raise _refuse(what, root, "the path resolves outside the granted repository")
    tops = find_toplevel(full)
    if tops is None or real(tops[1]) != granted:
        raise _refuse(what, root, "the path is in another repository")


def check_commit(root: str, commit: str, what: str) -> None:
    """``commit`` must name a commit of the granted repository."""
    from hansard.git.run import git

    sha = commit.strip()
    if not re.fullmatch(r"[0-9a-fA-F]{4,64}", sha):
        return  # the search core reports a malformed id as invalid_argument
    try:
        git(["rev-parse", "--verify", "--quiet", f"{sha}^{{commit}}"], root, timeout=20.0)
    except HansardError:
        raise _refuse(what, root, f"commit {sha} is not in the granted repository") from None


def memory_allowed(root: str, memory: Mapping[str, Any]) -> bool:
    """May a server scoped to ``root`` serve this memory record (a search hit or get_memory)?"""
    scope = memory.get("scope")
    if scope == "global":
        return True
    granted = real(root)
    repo = memory.get("repo")
    if repo:
        return real(repo) == granted
    path = memory.get("path")
    # A file of a repository the store does not know: only its location can say whose it is.
    return scope == "project" and isinstance(path, str) and inside(real(path), granted)


def filter_memories(root: str, answer: MemoryHits) -> MemoryHits:
    results = answer.get("results") or []
    kept = [r for r in results if memory_allowed(root, r)]
    if len(kept) != len(results):
        answer["results"] = kept
        answer["total"] = max(0, int(answer.get("total") or 0) - (len(results) - len(kept)))
        answer["returned"] = len(kept)
    return answer


def filter_sessions(root: str, entries: Iterable[E], repo_of: Callable[[str], tuple[bool, str | None]]) -> list[E]:
    """The entries whose ``session_id`` ran in ``root``; ``repo_of(id)`` is (found, repo path)."""
    granted = real(root)
    kept = []
    for e in entries:
        sid = e.get("session_id")
        if not isinstance(sid, str):
            kept.append(e)
            continue
        found, path = repo_of(sid)
        if found and path and real(path) == granted:
            kept.append(e)
    return kept


def unname_sessions(root: str, rows: Mapping[str, Mapping[str, object]],
                    repo_of: Callable[[str], tuple[bool, str | None]]) -> dict[str, Breakdown]:
    """repo_stats' ``by.session`` rows with every session that did not run in ``root`` folded
    into one row, "another repository's session", holding only their summed counts."""
    from hansard.answers.code_history import OTHER_REPOSITORY

    granted = real(root)
    out: dict[str, Any] = {}
    other: dict[str, int] = {}
    for key, row in rows.items():
        found, path = repo_of(key) if key != "(no session)" else (True, root)
        if found and path and real(path) == granted:
            out[key] = row
            continue
        for k, v in row.items():
            if isinstance(v, int) and not isinstance(v, bool):
                other[k] = other.get(k, 0) + v
    if other:
        out[OTHER_REPOSITORY] = other
    return dict(sorted(out.items(), key=lambda x: -int(x[1].get("lines") or 0)))
