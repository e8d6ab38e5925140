"""The commit a working tree's HEAD names, read from git's own files when that is plain (a
loose or packed branch, a detached HEAD) and from ``git rev-parse`` otherwise. `why` asks
this before every answer, so the common case costs a few small reads and no process."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from hansard.errors import GitError

if TYPE_CHECKING:
    from collections.abc import Callable


def _is_id(text: str) -> bool:
    return len(text) in (40, 64) and all(c in "0123456789abcdef" for c in text)


def _read(path: str) -> str | None:
    """A small file of git's, read without blocking (the language server asks on its message
    loop: a FIFO at .git/HEAD must not stall it)."""
    from hansard.files import safeopen

    try:
        return safeopen.read_bytes(path, 1 << 20, follow=True).decode("utf-8").strip()
    except (OSError, UnicodeDecodeError):
        return None


def git_dirs(top: str) -> tuple[str, str] | None:
    """(this working tree's git dir, the common git dir) of the working tree at ``top``: the
    same folder for a plain clone; for a worktree or a submodule (``.git`` is a file saying
    ``gitdir: PATH``), that folder and the one its ``commondir`` names. None when ``.git`` is a
    file that names no git dir."""
    gitdir = os.path.join(top, ".git")
    if os.path.isfile(gitdir):
        line = _read(gitdir) or ""
        if not line.startswith("gitdir:"):
            return None
        gitdir = os.path.normpath(os.path.join(top, line[len("gitdir:"):].strip()))
    common = gitdir
    rel = _read(os.path.join(gitdir, "commondir"))
    if rel:
        common = os.path.normpath(os.path.join(gitdir, rel))
    return gitdir, common


def _from_files(top: str) -> str | None:
    dirs = git_dirs(top)
    if dirs is None:
        return None
    gitdir, common = dirs
    head = _read(os.path.join(gitdir, "HEAD"))
    if head is None:
        return None
    if _is_id(head):
        return head
    if not head.startswith("ref: refs/"):
        return None
    ref = head[len("ref: "):]
    for base in (gitdir, common):
        text = _read(os.path.join(base, ref))
        if text is not None:
            return text if _is_id(text) else None  # a symbolic ref to a ref: ask git
    packed = _read(os.path.join(common, "packed-refs"))
    for line in (packed or "").splitlines():
        sha, _, name = line.partition(" ")
        if name == ref and _is_id(sha):
            return sha
    return None  # an unborn branch, or refs git keeps elsewhere (reftable): ask git


def ref_from_files(top: str, ref: str) -> str | None:
    """The id a full ref name (``refs/notes/ai``) holds, read from git's files (loose, then
    packed); None when neither has it. No process: `why` asks this on every answer."""
    return _held((top, ref), lambda: _ref_from_files(top, ref))


def _ref_from_files(top: str, ref: str) -> str | None:
    dirs = git_dirs(top)
    if dirs is None:
        return None
    for base in dict.fromkeys(dirs):
        text = _read(os.path.join(base, ref))
        if text is not None and _is_id(text):
            return text
    packed = _read(os.path.join(dirs[1], "packed-refs"))
    for line in (packed or "").splitlines():
        sha, _, name = line.partition(" ")
        if name == ref and _is_id(sha):
            return sha
    return None


# While files are answered in turn (``hold``): what HEAD and a ref named, read once each, so
# every file of one answer sees the repository as its first file did.
_HELD: dict[tuple[str, str], str | None] = {}
_HOLDING: list[bool] = []


def hold(on: bool) -> None:
    """Keep what ``head_commit`` and ``ref_from_files`` read (``on``) until released (not ``on``)."""
    _HELD.clear()
    _HOLDING[:] = [True] if on else []


def _held(key: tuple[str, str], read: Callable[[], str | None]) -> str | None:
    """``read()``, once while held."""
    if not _HOLDING:
        return read()
    if key not in _HELD:
        _HELD[key] = read()
    return _HELD[key]


def head_commit(top: str) -> str | None:
    """HEAD's commit id in the working tree at ``top``; None when HEAD names no commit yet."""
    return _held((top, "HEAD"), lambda: _head_commit(top))


def _head_commit(top: str) -> str | None:
    sha = _from_files(top)
    if sha is not None:
        return sha
    from hansard.git.run import git_text

    try:
        return git_text(["rev-parse", "--verify", "--quiet", "HEAD^{commit}"], top).strip() or None
    except GitError:
        return None


# Commit ids already found to name commits, per repository: an id names the same commit for
# ever, so asking git again (a process per question: a review asks once per file) says nothing new.
_COMMITS: dict[tuple[str, str], None] = {}
_COMMITS_KEPT = 4096


def named_commits(top: str, shas: list[str]) -> None:
    """Remember these full ids as naming commits (git listed them as commits), so that
    ``resolve_commit`` of one asks git nothing: a process forked next inherits them."""
    for sha in shas:
        if _is_id(sha):
            _remember(top, sha)


def resolve_commit(top: str, rev: str) -> str | None:
    """The commit ``rev`` names now (None: it names none)."""
    if (top, rev) in _COMMITS:
        return rev
    from hansard.git.run import git_text

    try:
        sha = git_text(["rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}"], top).strip() or None
    except GitError:
        return None
    if sha is not None:  # the id it gave names that commit, whatever ``rev`` named
        _remember(top, sha)
    return sha


def _remember(top: str, sha: str) -> None:
    if len(_COMMITS) >= _COMMITS_KEPT:
        _COMMITS.clear()
    _COMMITS[(top, sha)] = None
