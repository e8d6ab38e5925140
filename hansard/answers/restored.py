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
        self._log: object = None  # a thread running the `git log` of the file, when prefetched
        self.wanted = False  # prefetched, or already read: cheap to use for every commit

    def prefetch(self) -> None:
        """Start the file's `git log` now, beside blame; ``commits`` collects it."""
        import threading

        from hansard.git.history import file_log

        box: dict[str, object] = {}

        def run() -> None:
            try:
                box["out"] = file_log(self.top, self.rel, self.rev)
            except Exception as exc:  # noqa: BLE001 - re-raised, or retried, by commits()
                box["err"] = exc

        th = threading.Thread(target=run, daemon=True)
        th.start()
        self._log = (th, box)
        self.wanted = True
        self._pos: dict[str, int] = {}
        self._blob_hashes: dict[str, set[int]] = {}

    def commits(self) -> list[FileCommit]:
        if self._commits is None:
            from hansard.link.landing import file_commits

            log = None
            if self._log is not None:
                th, box = self._log  # type: ignore[misc]
                th.join()
                log = box.get("out")
            self._commits = file_commits(self.store, self.top, self.rel, self.rev, log=log)  # type: ignore[arg-type]
            self.wanted = True
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

    def commit(self, sha: str) -> FileCommit | None:
        """One commit of the file's history (None: not in it)."""
        self.commits()
        pos = self._pos.get(sha)
        return None if pos is None else self._commits[pos]  # type: ignore[index]

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
