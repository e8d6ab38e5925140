"""Where a file's repository is, and a token that changes whenever its HEAD moves, read from
the files under ``.git`` alone (no git process: it runs on every editor request).

Always true: the token changes after a commit (the branch's ref file or packed-refs
changes), a checkout or a switch (HEAD's content changes), a reset, an amend or a rebase
(the ref moves). It may also change when nothing that matters did (a ``git pack-refs``):
then an answer is recomputed, never served stale.
"""

from __future__ import annotations

import os

from hansard.files import safeopen
from hansard.git.refs import git_dirs

_tops: dict[str, str | None] = {}


def repo_top(path: str) -> str | None:
    """The working tree holding ``path`` (a worktree's own top), or None; cached per folder."""
    d = os.path.dirname(os.path.abspath(path))
    if d in _tops:
        return _tops[d]
    p = d
    top = None
    while True:
        if os.path.exists(os.path.join(p, ".git")):
            top = p
            break
        parent = os.path.dirname(p)
        if parent == p:
            break
        p = parent
    _tops[d] = top
    return top


def _stat(p: str) -> tuple[int, int] | None:
    try:
        st = os.stat(p)
    except OSError:
        return None
    return st.st_mtime_ns, st.st_size


def head_token(top: str) -> tuple:
    dirs = git_dirs(top)
    if dirs is None:
        return ("no-git-dir",)
    gitdir, common = dirs
    try:  # without blocking, regular files only: a FIFO here would stall the message loop
        head = safeopen.read_bytes(os.path.join(gitdir, "HEAD"), 4096, follow=True).decode("utf-8", "replace").strip()
    except OSError:
        return ("no-head",)
    ref = None
    if head.startswith("ref:"):
        name = head[4:].strip()
        ref_path = os.path.join(common, name)
        try:
            ref = safeopen.read_bytes(ref_path, 4096, follow=True).decode("utf-8", "replace").strip()
        except OSError:
            ref = None
    return head, ref, _stat(os.path.join(common, "packed-refs"))
