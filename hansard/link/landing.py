"""Where edits landed: the commits that brought an edit's lines into a file's history.

The commit side of the evidence. For one file (renames followed) we list the commits that
touched it and the normalised hashes of the lines each added; what a commit added never
changes, so it is kept in the store's one commit-diff cache (``store.commit_diffs``): an index
run fills it (``commit_diff_rows``), and a question reads it, asks git for what it lacks and
offers that to its request to keep (``hansard.store.kept``), never writing it. An edit landed in the first commit, not older
than the edit, that added one of its non-trivial lines. Matching is by content: a rebased or
amended commit is found because it adds the same lines.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hansard.errors import GitError
from hansard.store import kept
from hansard.text import textnorm
from hansard.values.timebounds import CLOCK_SLACK_S

if TYPE_CHECKING:
    from typing import Any

    from hansard.git.history import FileDiff
    from hansard.store.interfaces import Store


class FileCommit:
    """One commit of a file's history, with what it changed in the file (filled as needed).
    A plain class: the dataclasses module is a heavy import on `why`'s path."""

    __slots__ = ("sha", "path", "committer_time", "author", "summary", "parents", "blob", "old_path", "added",
                 "removed", "hunks")

    def __init__(self, sha: str, path: str, committer_time: int, author: str, summary: str, parents: list[str],
                 blob: str | None = None, old_path: str | None = None) -> None:
        self.sha = sha
        self.path = path  # the file's name in this commit
        self.committer_time = committer_time
        self.author = author
        self.summary = summary
        self.parents = parents
        self.blob = blob  # the file's blob id after this commit (None: deleted)
        self.old_path = old_path
        self.added: set[int] = set()  # normal-form hashes of non-trivial added lines
        self.removed: set[int] = set()
        self.hunks: list[Any] = []  # this commit's change to the file, as in ``edits.hunks``

    def __repr__(self) -> str:
        return f"FileCommit({self.sha[:12]} {self.path})"

    @property
    def is_revert(self) -> bool:
        return self.summary.startswith('Revert "')


def _parse_log(out: str, path: str) -> list[tuple[FileCommit, str]]:
    """(commit, its patch text) for each record of ``git.history.file_log``."""
    from hansard.git.history import parse_file_log

    return [(FileCommit(e.sha, e.path, e.committer_time, e.author, e.summary, e.parents, e.blob, e.old_path), patch)
            for e, patch in parse_file_log(out, path)]


# Up to this many withheld diffs of a file are read from git one commit each; more, and the
# file's whole `git log -p` is one process for all.
FEW_WITHHELD = 3
# The same for diffs not cached at all (the commits made since the index filled the cache): a
# commit's own diff costs one short git process, the file's `git log -p` reads its whole history.
FEW_MISSING = 3


def file_commits(store: Store, top: str, path: str, rev: str = "HEAD", until: float | None = None,
                 log: str | None = None) -> list[FileCommit]:
    """Commits that touched ``path`` in the history of ``rev``, newest first, renames followed.
    One `git log` lists them (``log``: its output, when the caller already ran it); their
    diffs come from the cache, and the ones missing are filled by a single `git log -p` of the
    file, not one process per commit (but for a few commits new since the cache was filled,
    ``_few_missing``)."""
    from hansard.git.history import file_log
    from hansard.text.diffs import hunks_to_json, parse_unified_diff

    try:
        listed = [c for c, _ in _parse_log(log if log is not None else file_log(top, path, rev), path)]
    except GitError:
        return []
    keys = [(c.sha, c.path) for c in listed]
    cached = _cached(store, keys)
    withheld = [k for k, v in cached.items() if v is None]
    if len(cached) == len(keys) and 0 < len(withheld) <= FEW_WITHHELD:
        from hansard.git.history import commit_file_diff

        for sha, p in withheld:  # a diff with a secret in it: git says it again
            diff = commit_file_diff(top, sha, p)
            cached[(sha, p)] = hunks_to_json(diff.hunks) if diff is not None else []
    elif not withheld and (few := _few_missing(top, [c for c in listed if (c.sha, c.path) not in cached])):
        for c, rows in few:
            cached[(c.sha, c.path)] = rows
        kept.offer_diffs(_withheld([(c.sha, c.path, c.old_path, rows) for c, rows in few]))
    elif len(cached) < len(keys) or withheld:
        # One `git log -p` of the file for the diffs not cached and the withheld ones; only
        # the ones not cached are redacted and kept.
        fresh = []
        for c, patch in _parse_log(file_log(top, path, rev, patches=True), path):
            key = (c.sha, c.path)
            if cached.get(key) is not None:
                continue
            _, _, hunks = parse_unified_diff(patch)
            rows = hunks_to_json(hunks)
            if key not in cached:
                fresh.append((c.sha, c.path, c.old_path, rows))
            cached[key] = rows
        kept.offer_diffs(_withheld(fresh))
    out = []
    for c in listed:
        if until is not None and c.committer_time > until:
            continue
        c.hunks = cached.get((c.sha, c.path)) or []
        _hash_lines(c)
        out.append(c)
    return out


class RepoHistory:
    """Every file's commits in the history of one revision, from one `git log --raw` of the
    whole repository (renames followed back, as `git log --follow` does for one file), each
    file's list built once: for questions about many files at once (work_context over all the
    sessions of a repository). Merges are left out: they add no line of their own. Diffs come
    from the commit-diff cache; a file with a diff the cache lacks is asked of git alone."""

    def __init__(self, store: Store, top: str, rev: str = "HEAD") -> None:
        from hansard.git.history import repo_log

        self.store = store
        self.top = top
        self.rev = rev
        try:
            log = repo_log(top, rev)
        except GitError:
            log = []
        self.commits = {c.sha: c for c, _ in log}  # every commit of the history, merges too
        self._log = [(c, files) for c, files in log if len(c.parents) <= 1]
        self._files: dict[str, list[FileCommit]] = {}

    def file_commits(self, path: str, until: float | None = None) -> list[FileCommit]:
        got = self._files.get(path)
        if got is None:
            got = self._files[path] = self._build(path)
        return [c for c in got if until is None or c.committer_time <= until]

    def _build(self, path: str) -> list[FileCommit]:
        name: str | None = path
        listed: list[FileCommit] = []
        for c, files in self._log:
            if name is None:
                break
            for old, new, blob in files:
                if new == name:
                    listed.append(FileCommit(c.sha, new, c.committer_time, c.author, c.summary, c.parents, blob, old))
                    name = old if old is not None else name
                    break
        cached = _cached(self.store, [(c.sha, c.path) for c in listed])
        if len(cached) < len(listed) or any(v is None for v in cached.values()):
            return file_commits(self.store, self.top, path, self.rev)
        for fc in listed:
            fc.hunks = cached[(fc.sha, fc.path)] or []
            _hash_lines(fc)
        return listed


def _few_missing(top: str, missing: list[FileCommit]) -> list[tuple[FileCommit, list[Any]]] | None:
    """(commit, its hunks) of each of ``missing``, read from git one commit each, when they are
    few and each is an ordinary commit of the file under the same name (one parent, no rename
    or copy): its diff against its parent is then what the file's `git log --follow -p` gives
    for it. None otherwise, or when git cannot say (the whole log is read instead)."""
    if not 0 < len(missing) <= FEW_MISSING or any(len(c.parents) != 1 or c.old_path not in (None, c.path)
                                                  for c in missing):
        return None
    from hansard.git.history import commit_file_diff
    from hansard.text.diffs import hunks_to_json

    out = []
    for c in missing:
        diff = commit_file_diff(top, c.sha, c.path)
        if diff is None:
            return None
        out.append((c, hunks_to_json(diff.hunks)))
    return out


def _hash_lines(c: FileCommit) -> None:
    """The normal-form hashes of the non-trivial lines a commit added and removed."""
    for h in c.hunks:
        for ln in h[4]:
            if ln[:1] in "+-" and not textnorm.is_trivial(ln[1:]):
                (c.added if ln[0] == "+" else c.removed).add(textnorm.line_hash(ln[1:]))


def landed_in(edit_ts: float, added: set[int], commits: list[FileCommit], *, removed: bool = False) -> list[str]:
    """The commits an edit's non-trivial lines first arrived in (oldest first). With
    ``removed``, ``added`` holds the lines a deleting edit removed, found on the commits'
    removed side."""
    left = set(added)
    out: list[str] = []
    for c in reversed(commits):  # oldest first: file_commits lists newest first
        if c.committer_time + CLOCK_SLACK_S < edit_ts or not left:
            continue
        hit = left & (c.removed if removed else c.added)
        if hit:
            out.append(c.sha)
            left -= hit
    return out


def edit_hashes(store: Store, edit_id: int) -> tuple[set[int], set[int]]:
    """(added, removed) normal-form hashes of an edit's non-trivial lines."""
    return store.evidence.edit_hashes(edit_id)


def commit_diff(store: Store, top: str, sha: str, path: str) -> FileDiff | None:
    """What a commit changed in a file (named as in that commit), from the store's
    commit-diff cache or from git once (and then offered to the request to keep)."""
    from hansard.git.history import FileDiff, commit_file_diff
    from hansard.text.diffs import hunks_from_json, hunks_to_json

    hit = store.commit_diffs.get(sha, path) or kept.diff(sha, path)
    if hit is not None and hit[1] is not None:
        return FileDiff(hit[0], path, tuple(hunks_from_json(hit[1])))
    diff = commit_file_diff(top, sha, path)
    if diff is not None and hit is None:
        kept.offer_diffs(_withheld([(sha, path, diff.old_path, hunks_to_json(diff.hunks))]))
    return diff


def _cached(store: Store, keys: list[tuple[str, str]]) -> dict[tuple[str, str], list[Any] | None]:
    """The hunks of every (sha, path) of ``keys`` the cache holds or this request worked out
    (None: withheld)."""
    cached = store.commit_diffs.get_many(keys)
    for key in keys:
        if key not in cached and (hit := kept.diff(*key)) is not None:
            cached[key] = hit[1]
    return cached


def commit_diff_rows(top: str, revs: list[str]) -> list[tuple[str, str, str | None, list[Any] | None]]:
    """Every change the commits of ``revs`` (a `git log` range) made to any file, as rows for
    the store's commit-diff cache (``_withheld``), from one `git log -p`. Reads git alone, never
    the store: an index run works them out beside its scan (hansard.link.commits.ahead)."""
    from hansard.git.history import repo_diffs
    from hansard.text.diffs import hunks_to_json, parse_unified_diff

    rows = []
    for sha, path, old, patch in repo_diffs(top, revs):
        _, _, hunks = parse_unified_diff(patch)
        rows.append((sha, path, old, hunks_to_json(hunks)))
    return _withheld(rows)


def _withheld(rows: list[tuple[str, str, str | None, list[Any]]]) -> list[tuple[str, str, str | None, list[Any] | None]]:
    """Rows for the commit-diff cache, each diff that holds a secret withheld (hunks None): git
    gives it again, a redacted copy would hash differently from the file's line and change the
    answer, and the store holds no secret outside its raw archive."""
    if not any(r[3] for r in rows):
        return list(rows)  # no line to hold one (a merge's or a mode change's empty diff)
    from hansard.ingest.secret_screen import clean

    def secret(text: str) -> bool:
        # the screen first: the redactor (its import and its engine, tens of ms) only for a
        # text it cannot pass, which an ordinary diff almost never is
        if clean(text):
            return False
        from hansard.ingest.redact import find_secrets

        return bool(find_secrets(text))

    return [(r[0], r[1], r[2], r[3] if not r[3] or not secret("\n".join(ln for h in r[3] for ln in h[4]))
             else None) for r in rows]


def edit_landed_in(edit_ts: float, added: set[int], removed: set[int], commits: list[FileCommit]) -> list[str]:
    """Where an edit landed: by the lines it added, or, for an edit that only deleted, by the
    lines it removed."""
    if added:
        return landed_in(edit_ts, added, commits)
    return landed_in(edit_ts, removed, commits, removed=True)
