"""Where edits landed: the commits that brought an edit's lines into a file's history.

The commit side of the evidence. For one file (renames followed) we list the commits that
touched it and the normalised hashes of the lines each added; what a commit added never
changes, so it is cached by commit id in ``commit_diffs``. An edit landed in the first
commit, not older than the edit, that added one of its non-trivial lines. Matching is by
content: a rebased or amended commit is found because it adds the same lines.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field

from hansard import textnorm
from hansard.attribution.why import CLOCK_SLACK_S, cached_diff
from hansard.errors import GitError
from hansard.git.run import git_text


@dataclass
class FileCommit:
    sha: str
    path: str  # the file's name in this commit
    committer_time: int
    author: str
    summary: str
    parents: list[str]
    added: set[int] = field(default_factory=set)  # normal-form hashes of non-trivial added lines
    removed: set[int] = field(default_factory=set)

    @property
    def is_revert(self) -> bool:
        return self.summary.startswith('Revert "')


def file_commits(db: sqlite3.Connection, top: str, path: str, rev: str = "HEAD", until: float | None = None
                 ) -> list[FileCommit]:
    """Commits that touched ``path`` in the history of ``rev``, newest first, renames followed."""
    try:
        out = git_text(
            ["log", "--follow", "-M", "--name-status", "--format=%x00%H%x1f%P%x1f%ct%x1f%an%x1f%s", rev, "--", path], top
        )
    except GitError:
        return []
    commits: list[FileCommit] = []
    for block in out.split("\x00")[1:]:
        head, _, rest = block.partition("\n")
        sha, parents, ct, author, summary = (head.split("\x1f") + [""] * 5)[:5]
        name = path
        for line in rest.splitlines():
            parts = line.split("\t")
            if len(parts) >= 2:
                name = parts[-1]
        if until is not None and int(ct) > until:
            continue
        c = FileCommit(sha, name, int(ct), author, summary, parents.split())
        diff = cached_diff(db, top, sha, name)
        if diff is not None:
            for h in diff.hunks:
                for ln in h.lines:
                    if ln[:1] in "+-" and not textnorm.is_trivial(ln[1:]):
                        (c.added if ln[0] == "+" else c.removed).add(textnorm.line_hash(ln[1:]))
        commits.append(c)
    return commits


def landed_in(edit_ts: float, added: set[int], commits: list[FileCommit], *, removed: bool = False) -> list[str]:
    """The commits an edit's non-trivial lines first arrived in (oldest first). With
    ``removed``, ``added`` holds the lines a deleting edit removed, found on the commits'
    removed side."""
    left = set(added)
    out: list[str] = []
    for c in sorted(commits, key=lambda c: c.committer_time):
        if c.committer_time + CLOCK_SLACK_S < edit_ts or not left:
            continue
        hit = left & (c.removed if removed else c.added)
        if hit:
            out.append(c.sha)
            left -= hit
    return out


def edit_hashes(db: sqlite3.Connection, edit_id: int) -> tuple[set[int], set[int]]:
    """(added, removed) normal-form hashes of an edit's non-trivial lines."""
    added: set[int] = set()
    removed: set[int] = set()
    for side, h in db.execute("SELECT side, hash FROM edit_lines WHERE edit_id=? AND trivial=0", (edit_id,)):
        (added if side == "+" else removed).add(h)
    return added, removed


def edit_landed_in(edit_ts: float, added: set[int], removed: set[int], commits: list[FileCommit]) -> list[str]:
    """Where an edit landed: by the lines it added, or, for an edit that only deleted, by the
    lines it removed."""
    if added:
        return landed_in(edit_ts, added, commits)
    return landed_in(edit_ts, removed, commits, removed=True)
