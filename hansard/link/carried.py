"""The link step for sessions a repository carries (hansard.agents.origin: its checkpoint refs,
a history file in its work tree): they belong to that repository alone, and where they ran is
worked out per session, from the session's own records.

A carried session ran on another machine (Windows, WSL, macOS, a teammate's clone, a worktree
since removed), so its paths are that machine's (hansard.files.foreignpaths). Its folders there are
found from its edits: a folder is one where an edit's path ends in a path the repository holds
at HEAD (in any case, for a Windows path), kept when it is one of the session's working folders
or holds one or lies inside one; with no such edit, its working folders themselves. An edit's
path below the deepest of them is that path relative to the repository's top; a path below
none has no repository path.

Always true afterwards: the session and every edit of it are linked to the repository that
carries it and to no other (an edit with no repository path stays in it, with none), and
nothing global changed: no path map is made, and no other session is looked at again.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterable
from typing import TYPE_CHECKING

from hansard.agents.origin import REPOSITORY, REPOSITORY_FILE
from hansard.errors import GitError
from hansard.files import foreignpaths

if TYPE_CHECKING:
    from hansard.files.foreignpaths import Foreign
    from hansard.link.repos import Resolver
    from hansard.store.interfaces import Store
    from hansard.store.types import Row


class Carried:
    """One link pass's carried sessions: the repository each belongs to, its paths at HEAD,
    and where each session's edits land."""

    def __init__(self, store: Store, resolver: Resolver) -> None:
        self.store = store
        self.repos = store.repos
        self.resolver = resolver
        self._known: dict[int, tuple[set[str], dict[str, str]]] = {}
        self._placed: dict[int, dict[int, str | None]] = {}  # session row -> edit id -> repository path

    def repo_of(self, origin: str | None, repo: str | None) -> int | None:
        """The repository a carried session belongs to: the checkout of the repository whose
        refs carry it (by root commit), or the work tree whose file does; None when this machine
        no longer has it."""
        if not repo:
            return None
        if origin == REPOSITORY:
            for rid, path in self.repos.ids_by_root(repo):
                if path and os.path.isdir(path):
                    return rid
            return None
        if origin == REPOSITORY_FILE:
            return self.resolver.repo_of_dir(repo)
        return None

    def place(self, srow: int, edit_id: int, repo_id: int | None) -> str | None:
        """The repository path of one edit of a carried session (None: below no folder the
        session ran in)."""
        if repo_id is None:
            return None
        placed = self._placed.get(srow)
        if placed is None:
            placed = self._placed[srow] = self._place_session(srow, repo_id)
        return placed.get(edit_id)

    def _place_session(self, srow: int, repo_id: int) -> dict[int, str | None]:
        edits, cwds = self.repos.session_paths(srow)
        known, folded = self._paths(repo_id)
        folders = [f for c in cwds if (f := foreignpaths.parse(c)) is not None]
        paths: dict[int, Foreign] = {}
        for e in edits:
            f = _absolute(e["path"], e["cwd"])
            if f is not None:
                paths[e["id"]] = f
        roots = _roots(paths.values(), known, folded, folders)
        out: dict[int, str | None] = {}
        for eid, f in paths.items():
            rel = _below(f, roots)
            if rel is not None and rel not in known:
                rel = folded.get(rel.casefold(), rel) if f.folded else rel
            out[eid] = rel
        return out

    def _paths(self, repo_id: int) -> tuple[set[str], dict[str, str]]:
        """(the repository's paths at HEAD, each by its case-folded form)."""
        got = self._known.get(repo_id)
        if got is None:
            from hansard.git.history import tree_files

            top = self.repos.path_of(repo_id)
            try:
                known = {p for _m, _b, _s, p in tree_files(top, "HEAD")} if top else set()
            except GitError:
                known = set()
            got = self._known[repo_id] = (known, {p.casefold(): p for p in known})
        return got


def _absolute(path: str, cwd: str | None) -> Foreign | None:
    if foreignpaths.is_relative(path):
        folder = foreignpaths.parse(cwd) if cwd else None
        return folder.joined(path) if folder is not None else None
    return foreignpaths.parse(path)


def _roots(paths: Iterable[Foreign], known: set[str], folded: dict[str, str], folders: list[Foreign]) -> list[Foreign]:
    """The folders that held the repository where the session ran (see the module docstring),
    deepest first."""
    from hansard.files.foreignpaths import Foreign

    found: Counter[tuple[str, tuple[str, ...]]] = Counter()
    forms: dict[tuple[str, tuple[str, ...]], Foreign] = {}
    for f in paths:
        for i in range(1, len(f.parts)):
            tail = "/".join(f.parts[i:])
            if tail in known or (f.folded and tail.casefold() in folded):
                root = Foreign(f.anchor, f.parts[:i], f.folded)
                found[root.key()] += 1
                forms.setdefault(root.key(), root)
                break
    roots = [forms[k] for k in found if not folders or any(_related(forms[k], w) for w in folders)]
    if not roots:
        roots = folders
    return sorted(roots, key=lambda r: -len(r.parts))


def _related(a: Foreign, b: Foreign) -> bool:
    return a.under(b) is not None or b.under(a) is not None


def _below(f: Foreign, roots: list[Foreign]) -> str | None:
    for r in roots:
        rest = f.under(r)
        if rest:
            return "/".join(rest)
    return None


def is_carried(row: Row) -> bool:
    return row["origin"] in (REPOSITORY, REPOSITORY_FILE)
