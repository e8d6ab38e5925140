"""Which repository a path belongs to, and what identifies that repository.

A repository is identified by its root commit(s) and its origin remote, not only by where it
is checked out: the same project at /Users/a/src/app and /home/a/app is one repository. A
worktree belongs to its main repository. Finding the top level is a walk up the folders
looking for ``.git`` (a folder, or a file that points at a worktree's git dir), which costs
no process; identity asks git once per repository.
"""

from __future__ import annotations

import os
import re
from collections import namedtuple

from hansard.errors import GitError

# path: the main working tree (a worktree maps to it); root_commit, remote: str | None.
RepoIdentity = namedtuple("RepoIdentity", "path root_commit remote")


def find_toplevel(path: str) -> tuple[str, str] | None:
    """(working tree top level, main repository top level) for a path, or None. The path
    need not exist: the walk starts at its nearest existing ancestor."""
    p = os.path.abspath(path)
    while not os.path.isdir(p):
        parent = os.path.dirname(p)
        if parent == p:
            return None
        p = parent
    while True:
        dotgit = os.path.join(p, ".git")
        if os.path.isdir(dotgit):
            return p, p
        if os.path.isfile(dotgit):
            return p, _main_of_worktree(p, dotgit)
        parent = os.path.dirname(p)
        if parent == p:
            return None
        p = parent


def _main_of_worktree(top: str, dotgit: str) -> str:
    try:
        with open(dotgit, encoding="utf-8") as fh:
            line = fh.read().strip()
    except OSError:
        return top
    if not line.startswith("gitdir:"):
        return top
    gitdir = os.path.normpath(os.path.join(top, line[len("gitdir:"):].strip()))
    common = gitdir
    try:
        with open(os.path.join(gitdir, "commondir"), encoding="utf-8") as fh:
            common = os.path.normpath(os.path.join(gitdir, fh.read().strip()))
    except OSError:
        return top  # a submodule: its own repository
    return os.path.dirname(common) if os.path.basename(common) == ".git" else top


def identify(top: str) -> RepoIdentity:
    """What identifies the repository at ``top``. Raises GitError when git fails to list the
    root commits of a HEAD that names a commit: a repository kept as one with no commit would
    stay so, and the sessions it carries would be linked to nothing for good."""
    from hansard.git.refs import head_commit
    from hansard.git.run import git_text  # subprocess: not on the path of a cached `why`

    try:
        roots = git_text(["rev-list", "--max-parents=0", "HEAD"], top, check=True).split()
    except GitError:
        if head_commit(top) is not None:
            raise
        roots = []  # an empty repository has no commits yet
    try:
        remote = git_text(["config", "--get", "remote.origin.url"], top, check=True).strip() or None
    except GitError:
        remote = None
    return RepoIdentity(top, min(roots) if roots else None, normalise_remote(remote) if remote else None)


_SCP = r"^(?:[\w.-]+@)?([\w.-]+):(?!/)(.+)$"  # compiled on first use (re caches it): `why` never needs it


def normalise_remote(url: str) -> str:
    """``git@github.com:a/b.git`` and ``https://github.com/a/b`` name the same remote."""
    u = url.strip()
    m = re.match(_SCP, u)
    if m and "://" not in u:
        host, rest = m.groups()
    else:
        u = re.sub(r"^[a-z+]+://", "", u)
        u = re.sub(r"^[^@/]+@", "", u)
        host, _, rest = u.partition("/")
        host = host.split(":")[0]
    rest = rest.rstrip("/")
    if rest.endswith(".git"):
        rest = rest[:-4]
    return f"{host.lower()}/{rest}"


def relpath_in(top: str, path: str) -> str | None:
    rel = os.path.relpath(os.path.abspath(path), top)
    if rel.startswith(".."):
        return None
    return rel.replace(os.sep, "/")


def user_identity(cwd: str) -> tuple[str | None, str | None]:
    """(email, name) git would sign a commit with here. Unlike every other call, this one reads
    the user's own git configuration and environment: the identity is theirs to set."""
    import subprocess

    try:
        proc = subprocess.run(["git", "var", "GIT_AUTHOR_IDENT"], cwd=cwd, capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None, None
    m = re.match(r"^(.*?)\s*<([^>]*)>", proc.stdout.strip()) if proc.returncode == 0 else None
    return (m.group(2) or None, m.group(1) or None) if m else (None, None)
