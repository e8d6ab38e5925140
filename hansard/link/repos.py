"""The link step from transcripts to repositories: which repository each session ran in and
which repository-relative path each edit touched.

Always true afterwards: an edit with ``repo_id`` set has a ``rel_path`` relative to the top
of the working tree it was made in (a worktree path maps to the same relative path in its
main repository). This machine's sessions: paths are first rewritten by ``hansard config map``
prefixes (written in any machine's form, hansard.files.foreignpaths), so sessions recorded at an old
path or copied from another machine still land in the right repository. Sessions a repository
carries belong to it alone and are placed per session (hansard.link.carried). Rows are marked
``resolved`` once looked at (but for those in a repository git could not identify then, looked
at again by the next pass); a new path map marks them for another look.

SQL goes through the store's ``repos`` facet and git through ``hansard.git``; this module
only decides.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from hansard.errors import GitError, StoreBusy, StoreReadOnly
from hansard.files import foreignpaths
from hansard.git import identity

if TYPE_CHECKING:
    from collections import Counter

    from hansard.store.interfaces import Store


class Resolver:
    def __init__(self, store: Store, answering: bool = False) -> None:
        self.store = store
        self.repos = store.repos
        # Answering a question (not indexing): a new repository is registered only if that
        # is quick while an index run holds the store (see ``repo_for``).
        self.answering = answering
        # `hansard config map OLD NEW`, longest OLD first; OLD in any machine's form
        # (hansard.files.foreignpaths: a Windows prefix matches in either slash and any case).
        maps = [(foreignpaths.parse(old), new.rstrip("/") or "/") for old, new in self.repos.path_maps()]
        self.maps = sorted(((f, new) for f, new in maps if f is not None), key=lambda m: -len(m[0].parts))
        self._tops: dict[str, tuple[str, str] | None] = {}
        self._repo_ids: dict[str, int] = {}
        self._unreadable: dict[str, GitError] = {}  # main top -> git's failure to identify it, this pass
        # (path, cwd) -> what ``locate`` found: a session's edits name the same few files again
        # and again, and every part of the answer is fixed for this resolver's life.
        self._located: dict[tuple[str, str | None], tuple[int, str] | None] = {}
        self.created = False  # a repository was registered: unresolved sessions deserve another look

    def local_path(self, path: str, cwd: str | None = None) -> str | None:
        """The path on this machine that a transcript's ``path`` names (relative ones read
        against ``cwd``): through the path maps, else as written when it is this machine's form
        (a POSIX path, a ``file://`` URI of one). None for another machine's path no map covers."""
        if foreignpaths.is_relative(path):
            base = self.local_path(cwd) if cwd else None
            return os.path.normpath(os.path.join(base, path.replace("\\", "/"))) if base else None
        f = foreignpaths.parse(path)
        if f is None:
            return None
        for old, new in self.maps:
            rest = f.under(old)
            if rest is not None:
                return os.path.normpath(os.path.join(new, *rest))
        return f.local()

    def _toplevel(self, path: str) -> tuple[str, str] | None:
        d = os.path.dirname(path)
        if d not in self._tops:
            self._tops[d] = identity.find_toplevel(path)
        return self._tops[d]

    def repo_id(self, main_top: str) -> int:
        """The repository row for a main working tree, matched by identity before path;
        registered when new. Raises GitError when git cannot identify a new one."""
        if main_top in self._repo_ids:
            return self._repo_ids[main_top]
        if main_top in self._unreadable:
            raise self._unreadable[main_top]
        rid = self.repos.id_by_path(main_top)
        if rid is None:
            try:
                ident = identity.identify(main_top)
            except GitError as exc:
                self._unreadable[main_top] = exc
                raise
            if ident.root_commit:
                rid = self.repos.id_by_identity(ident.root_commit, ident.remote)
            if rid is None:
                wait = not (self.answering and self.store.archive.index_running())
                rid = self.repos.register(ident.root_commit, ident.remote, main_top, _project_key_fields(), wait=wait)
                self.created = True
        self._repo_ids[main_top] = rid
        return rid

    def locate(self, path: str, cwd: str | None) -> tuple[int, str] | None:
        """(repo_id, repo-relative path) of a file path as a transcript wrote it."""
        key = (path, cwd)
        if key in self._located:
            return self._located[key]
        hit = self._located[key] = self._locate(path, cwd)  # (a GitError is raised, not kept)
        return hit

    def _locate(self, path: str, cwd: str | None) -> tuple[int, str] | None:
        p = self.local_path(path, cwd)
        if p is None:
            return None
        tops = self._toplevel(p)
        if tops is None:
            return None
        wt_top, main_top = tops
        rel = identity.relpath_in(wt_top, p)
        if rel is None or rel == ".":
            return None
        return self.repo_id(main_top), rel

    def tops_of_dir(self, cwd: str | None) -> tuple[str, str] | None:
        """(working tree top, main working tree top) of a working directory as a transcript
        wrote it, or None."""
        local = self.local_path(cwd) if cwd else None
        return self._toplevel(os.path.join(local, ".")) if local else None

    def repo_of_dir(self, cwd: str | None) -> int | None:
        tops = self.tops_of_dir(cwd)
        return self.repo_id(tops[1]) if tops else None


def register_repo(store: Store, main_top: str) -> int:
    """The id of the repository whose main working tree is ``main_top``, registered when new."""
    return Resolver(store).repo_id(main_top)


def repo_for(store: Store, main_top: str) -> int:
    """The repository's id before answering about it: registered when new, and then the
    sessions waiting for it (those that record only a hash of their project root) are
    linked. A store that cannot be written now answers with what it has: an unknown
    repository is -1 and has no evidence. While an index run holds the store, registering
    waits only a moment (the run links this repository's sessions itself, and the answer
    says it is being indexed)."""
    r = Resolver(store, answering=True)
    try:
        rid = r.repo_id(main_top)
        if r.created:
            resolve_pending(store)
        return rid
    except (StoreReadOnly, StoreBusy):
        known = store.repos.id_by_path(main_top)
        return -1 if known is None else known


def known_repo(store: Store, main_top: str) -> int:
    """The id of the repository whose main working tree is ``main_top``, by path and then by
    identity, without registering it: -1 when the store does not know it (an answer reads; the
    application registers the repository it asks about first, ``repo_for``)."""
    rid = store.repos.id_by_path(main_top)
    if rid is None:
        ident = identity.identify(main_top)
        if ident.root_commit:
            rid = store.repos.id_by_identity(ident.root_commit, ident.remote)
    return -1 if rid is None else rid


def resolve_pending(store: Store, skipped: Counter[str] | None = None) -> int:
    """Link unresolved sessions and edits to repositories. Returns the edits linked. A session
    a repository carries belongs to that repository alone (hansard.link.carried). A session or
    edit in a repository git cannot identify now stays unresolved, for the next pass: linked to
    no repository, it would stay so; ``skipped["git_unreadable"]`` counts them, when given."""
    from hansard.link.carried import Carried, is_carried

    repos = store.repos
    r = Resolver(store)
    carried = Carried(store, r)
    carried_repo: dict[int, int | None] = {}
    _match_project_roots(store)
    for row in repos.unresolved_sessions():
        if is_carried(row):
            rid = carried_repo[row["id"]] = carried.repo_of(row["origin"], row["origin_repo"])
            repos.link_session(row["id"], rid)
        else:
            try:
                repos.link_session(row["id"], r.repo_of_dir(row["cwd"]))
            except GitError:
                if skipped is not None:
                    skipped["git_unreadable"] += 1
    linked = 0
    links: list[tuple[int | None, str | None, int]] = []  # written together, after the loop (nothing in it reads them)
    for row in repos.unresolved_edits():
        if is_carried(row):
            srow = row["srow"]
            if srow not in carried_repo:
                carried_repo[srow] = repos.session_repo(srow)
            rid = carried_repo[srow]
            rel = carried.place(srow, row["id"], rid)
            links.append((rid, rel, row["id"]))
            linked += rel is not None
            continue
        try:
            hit = r.locate(row["path"], row["cwd"])
        except GitError:
            if skipped is not None:
                skipped["git_unreadable"] += 1
            continue
        links.append((hit[0], hit[1], row["id"]) if hit else (None, None, row["id"]))
        linked += hit is not None
    repos.link_edits(links)
    from hansard.link.commits.own import date_by_own_commits

    date_by_own_commits(store)  # edits of agents that commit them, dated by those commits
    return linked


def _match_project_roots(store: Store) -> None:
    """Sessions that record no cwd, only a key of their project root (an agent's
    ``project_key``, such as a hash of the root as the agent saw it): match it against the
    repositories and working directories hansard knows."""
    from hansard import agents

    repos = store.repos
    for agent in agents.agents():
        if agent.project_key is None or agent.project_key_field is None:
            continue
        rows = repos.unresolved_project_keys(agent.name, agent.project_key_field)
        if not rows:
            continue
        known: dict[str, str] = {}
        for p in repos.paths() + repos.session_cwds():
            # The key is of the project root as the agent saw it, which may be through a symlink.
            for form in {p, os.path.realpath(p)}:
                known[agent.project_key(form)] = p
        for row in rows:
            if row["h"] in known:
                repos.set_session_cwd(row["id"], known[row["h"]])


def _project_key_fields() -> list[str]:
    """Where sessions keep a project-root key instead of a cwd, across every agent."""
    from hansard import agents

    return sorted({a.project_key_field for a in agents.agents() if a.project_key_field})


def add_path_map(store: Store, old: str, new: str) -> None:
    """Sessions recorded under ``old`` are read as if under ``new``; everything gets another look."""
    store.repos.add_path_map(old, new)
