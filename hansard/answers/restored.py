"""Restored lines: an edit's line that a later commit removed from the file and a later one
brought back (``git checkout OLD -- file``, a revert of a revert, a stash pop, a merge
resolution).

Such an edit did not write the line for the commit that has it now: it wrote it for the
commit that first landed it. The file's history comes from one `git log` of the file (its
diffs from the store's commit-diff cache, see ``hansard.link.landing.file_commits``); the
blobs of the few commits that removed the line are read to see whether another copy stayed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hansard import textnorm
from hansard.answers.evidence import CLOCK_SLACK_S

if TYPE_CHECKING:
    from hansard.link.landing import FileCommit
    from hansard.store.interfaces import Store


class FileHistory:
    """The history of one file at one revision, read once, on first use."""

    def __init__(self, store: Store, top: str, rel: str, rev: str | None) -> None:
        self.store = store
        self.top = top
        self.rel = rel
        self.rev = rev or "HEAD"
        self._commits: list[FileCommit] | None = None
        self._pos: dict[str, int] = {}
        self._blob_hashes: dict[str, set[int]] = {}

    def commits(self) -> list[FileCommit]:
        if self._commits is None:
            from hansard.link.landing import file_commits

            self._commits = file_commits(self.store, self.top, self.rel, self.rev)
            self._pos = {c.sha: k for k, c in enumerate(self._commits)}
        return self._commits

    def removed_since(self, h: int, edit_ts: float, sha: str) -> str | None:
        """The newest commit older than ``sha`` and newer than the edit that removed every
        copy of the line ``h`` from the file, or None (also when ``sha`` is not in the file's
        history)."""
        commits = self.commits()
        pos = self._pos.get(sha)
        if pos is None:
            return None
        suspects = [c for c in commits[pos + 1:] if h in c.removed and c.committer_time + CLOCK_SLACK_S >= edit_ts]
        if not suspects:
            return None
        self._read_blobs([c.blob for c in suspects if c.blob])
        for c in suspects:
            if c.blob is None or h not in self._blob_hashes.get(c.blob, set()):
                return c.sha
        return None

    def first_landed(self, h: int, edit_ts: float, before: str) -> str | None:
        """The oldest commit, not older than the edit and older than ``before``, that added ``h``."""
        commits = self.commits()
        pos = self._pos.get(before, len(commits))
        for c in reversed(commits[pos + 1:]):
            if c.committer_time + CLOCK_SLACK_S >= edit_ts and h in c.added:
                return c.sha
        return None

    def _read_blobs(self, blobs: list[str]) -> None:
        todo = [b for b in dict.fromkeys(blobs) if b not in self._blob_hashes]
        if not todo:
            return
        from hansard.git.history import read_blobs

        for bid, data in read_blobs(self.top, todo).items():
            text = data.decode("utf-8", "surrogateescape")
            self._blob_hashes[bid] = {textnorm.line_hash(ln) for ln in text.split("\n")}
