"""Whether an edit was made on the file the line's commit grew from: the text the edit replaced
(its removed lines) is in the file at the commit's parent, or was written there by the same
session's earlier edits (several edits before one commit).

An edit on another version of the file (another branch or worktree, whose lines the commit's
history never had) wrote its text for another commit: it is not evidence for this one, however
exactly its lines match. An edit that removed nothing (a new file, lines inserted) has no base
to check, and always fits.

The parent's version is the one blame names (``previous``: the parent commit and the file's
path there; none when the commit created the file), read for every blamed commit whose lines
some edit added in one ``git cat-file --batch`` the first time a question needs one (it also
tells a line the parent already had). Only non-trivial lines count, by their normal-form
hashes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hansard.text import textnorm

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

    from hansard.answers.evidence import EditRef
    from hansard.git.blame import Blame
    from hansard.store.interfaces import Store


class Bases:
    """The bases of the edits one question weighs, and the parent versions of its commits."""

    def __init__(self, store: Store, top: str, bl: Blame) -> None:
        self.store = store
        self.top = top
        self.bl = bl
        self._removed: dict[int, set[int]] = {}  # edit -> the non-trivial lines it removed
        self._added: dict[int, set[int]] = {}  # edit -> the non-trivial lines it added
        self._parents: dict[str, frozenset[int]] = {}  # commit -> the lines of the file at its parent
        self._wanted: set[str] = set()  # commits whose parents the next read also fetches
        self._hashes: dict[str, int] = {}  # a line's text -> its normal-form hash

    def fits(self, e: EditRef, sha: str, earlier: Callable[[], Iterable[int]]) -> bool:
        """Edit ``e`` was made on the file commit ``sha`` grew from. ``earlier`` gives the ids
        of the same session's edits of the file made before ``e`` (asked only when the parent
        alone does not hold the edit's base)."""
        removed = self._removed_by(e.edit_id)
        if not removed:
            return True
        base = self.parent(sha)
        if removed <= base:
            return True
        missing = removed - base
        for eid in earlier():
            missing -= self.added(eid)
            if not missing:
                return True
        return False

    def prefetch(self, edit_ids: Iterable[int]) -> None:
        """The removed lines of these edits, in one query."""
        todo = [x for x in set(edit_ids) if x not in self._removed]
        for x in todo:
            self._removed[x] = set()
        if todo:
            for eid, h in self.store.evidence.removed_lines(todo):
                self._removed[eid].add(h)

    def removes(self, edit_id: int) -> bool:
        """The edit removed a non-trivial line (it has a base to check)."""
        return bool(self._removed_by(edit_id))

    def want(self, shas: Iterable[str]) -> None:
        """Read the parents of these commits with the first one asked for."""
        self._wanted.update(x for x in shas if x not in self._parents)

    def _removed_by(self, edit_id: int) -> set[int]:
        if edit_id not in self._removed:
            self.prefetch([edit_id])
        return self._removed[edit_id]

    def added(self, edit_id: int) -> set[int]:
        """The non-trivial lines the edit added."""
        got = self._added.get(edit_id)
        if got is None:
            got = self._added[edit_id] = self.store.evidence.edit_hashes(edit_id)[0]
        return got

    def parent(self, sha: str) -> frozenset[int]:
        """The lines of the file at the parent of commit ``sha`` (none when the commit created
        it, or git has not the version); what is compared with them is never trivial."""
        got = self._parents.get(sha)
        if got is None:
            from hansard.git.history import batch_objects

            todo = (self._wanted | {sha}) - set(self._parents)
            self._wanted.clear()
            revs = {c: f"{p[0]}:{p[1]}" for c in todo if (p := self._previous(c)) is not None}
            blobs = {rev: body for rev, _, kind, body in batch_objects(self.top, list(set(revs.values())))
                     if kind == b"blob"}
            known = self._hashes
            for c in todo:
                body = blobs.get(revs.get(c, ""))
                hashes: set[int] = set()
                # (successive versions share most lines: each text is hashed once)
                for x in set(body.decode("utf-8", "surrogateescape").split("\n")) if body is not None else ():
                    h = known.get(x)
                    if h is None:
                        h = known[x] = textnorm.line_hash(x)
                    hashes.add(h)
                self._parents[c] = frozenset(hashes)
            got = self._parents[sha]
        return got

    def _previous(self, sha: str) -> tuple[str, str] | None:
        c = self.bl.commits.get(sha)
        return c.previous if c is not None else None
