"""Whether an edit was made on the file the line's commit grew from: the text the edit replaced
(its removed lines) is in the file at the commit's parent, or was written there by the same
session's earlier edits (several edits before one commit).

An edit on another version of the file (another branch or worktree, whose lines the commit's
history never had) wrote its text for another commit: it is not evidence for this one, however
exactly its lines match. An edit that removed nothing (a new file, lines inserted) has no base
to check, and always fits; nor has an edit of a file its line's commit created (the history
has no earlier version of it to contradict the edit).

The parent's version is the one blame names (``previous``: the parent commit and the file's
path there; none when the commit created the file), read for every blamed commit whose lines
some edit added in one ``git cat-file --batch`` (the commits' own versions a common line's
block may be judged in, in another), started once the answer knows which it wants (``start``)
and read the first time a question needs one (it also tells a line the parent already had);
a parent's version read while blame ran (``ParentsAhead``: the parents of the commits that
added the file's lines, by the same name) is taken from that read, its lines hashed meanwhile.
An edit of a path the commit deleted, whose text the commit may have moved into this file, is
checked against that path at the parent. Only non-trivial lines count, by their normal-form
hashes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hansard.answers.why import together
from hansard.git.blame import ZERO
from hansard.text import textnorm
from hansard.values.timebounds import CLOCK_SLACK_S

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Mapping
    from collections.abc import Set as AbstractSet

    from hansard.answers.evidence import EditRef
    from hansard.git.blame import Blame
    from hansard.git.history import BatchRead
    from hansard.git.run import Pending
    from hansard.store.interfaces import Store


class Bases:
    """The bases of the edits one question weighs, and the parent versions of its commits."""

    def __init__(self, store: Store, top: str, bl: Blame, moved: Mapping[str, AbstractSet[str]] | None = None,
                 hashed: Mapping[str, int] | None = None, ahead: ParentsAhead | None = None) -> None:
        self.store = store
        self.top = top
        self.bl = bl
        self.moved = moved or {}  # commit -> paths it deleted whose edits' text it may have moved here
        self._deleted: dict[tuple[str, str], frozenset[int]] = {}  # (commit, deleted path) -> its lines at the parent
        self._versions: dict[tuple[str, str], bytes | None] = {}  # (commit, path) -> its blob there, as read
        self._version_lines: dict[tuple[str, str], list[int]] = {}  # (commit, path) -> its lines there, in order
        self._wanted_versions: set[tuple[str, str]] = set()  # versions the next read also fetches
        self._parent_times: dict[str, tuple[int, int] | None] = {}  # commit -> its first parent's (author, committer) time
        self._removed: dict[int, set[int]] = {}  # edit -> the non-trivial lines it removed
        self._added: dict[int, set[int]] = {}  # edit -> the non-trivial lines it added
        self._parents: dict[str, frozenset[int]] = {}  # commit -> the lines of the file at its parent
        self._wanted: set[str] = set()  # commits whose parents the next read also fetches
        # the parents' versions read before blame named the commits (``ParentsAhead``), with the
        # hashes of their lines worked out meanwhile
        self._ahead = ahead
        self._lines = ahead.lines if ahead is not None else BlobLines(hashed)
        self._near: dict[str, str] = {}  # commit -> its parent's version, wanted and read ahead, not taken yet
        # what ``start`` began reading: (parents, their revs, the read), (versions, the read), and the
        # blamed commits' parents
        self._reading: tuple[set[str], dict[str, str], BatchRead] | None = None
        self._reading_versions: tuple[set[tuple[str, str]], BatchRead] | None = None
        self._meta_reading: tuple[list[str], BatchRead] | None = None

    def fits(self, e: EditRef, sha: str, earlier: Callable[[], Iterable[int]]) -> bool:
        """Edit ``e`` was made on the file commit ``sha`` grew from. ``earlier`` gives the ids
        of the same session's edits of the file made before ``e`` (asked only when the parent
        alone does not hold the edit's base)."""
        removed = self._removed_by(e.edit_id)
        if not removed:
            return True
        if e.rel_path in self.moved.get(sha, ()):
            base = self.deleted_at_parent(sha, e.rel_path)
        elif self._previous(sha) is None:
            # The commit created the file: its history has no version an edit's base could
            # contradict (the file the edit changed was new in the working tree), if the edit
            # was made on the tree the commit grew from: after its parent was committed.
            parent_time = self._parent_time(sha)
            if parent_time is None or e.ts >= parent_time - CLOCK_SLACK_S:
                return True
            base = frozenset()  # older than the parent: only the session's own earlier edits hold its base
        else:
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
            self._fetch(parent=sha)
            got = self._parents[sha]
        return got

    def want_versions(self, pairs: Iterable[tuple[str, str]]) -> None:
        """Read these (commit, path) versions with the first one asked for."""
        self._wanted_versions.update(x for x in pairs if x not in self._versions)

    def at_commit(self, sha: str, path: str) -> list[int]:
        """The lines of ``path`` in commit ``sha``'s own version, in order (a line's
        ``orig_line`` indexes them), by normal-form hash; empty when git has not that version.
        (Read with the others wanted, hashed only when asked: most are never asked.)"""
        got = self._version_lines.get((sha, path))
        if got is None:
            if (sha, path) not in self._versions:
                self._fetch(version=(sha, path))
            got = self._version_lines[(sha, path)] = self._hashed(self._versions[(sha, path)])
        return got

    def start(self) -> None:
        """Start reading, each in its own git process beside what the answer does next, the
        parents wanted so far, the versions wanted so far and the parents of every blamed commit:
        the first question that needs one of them reads what was started (``_fetch``,
        ``_parent_meta``). The rules ask for parents first and for few versions: their reads
        apart, the parents' ends sooner. A parent's version read ahead of blame is not read again."""
        from hansard.git.history import BatchRead

        if self._reading is None and self._reading_versions is None and (self._wanted or self._wanted_versions):
            parents = self._wanted - set(self._parents)
            versions = self._wanted_versions - set(self._versions)
            self._wanted.clear()
            self._wanted_versions.clear()
            parents = self._keep_near(parents)
            if parents:
                revs, wanted = self._revs(parents, set())
                self._reading = (parents, revs, BatchRead(self.top, wanted))
            if versions:
                self._reading_versions = (versions, BatchRead(self.top, self._revs(set(), versions)[1]))
        if self._meta_reading is None:
            todo = [c for c in self.bl.commits if c != ZERO and c not in self._parent_times]
            if todo:
                self._meta_reading = (todo, BatchRead(self.top, [f"{c}^" for c in todo]))

    def _keep_near(self, parents: set[str]) -> set[str]:
        """Of ``parents``, those whose version was not read ahead of blame; the others are
        taken from that read when the first of them is asked."""
        ahead = self._ahead
        if ahead is None:
            return parents
        revs = self._revs(parents, set())[0]
        near = {c: r for c in parents if (r := revs.get(c)) is not None and r in ahead.revs}
        self._near.update(near)
        return parents - near.keys()

    def _take_near(self) -> None:
        """The parents' versions wanted that were read ahead of blame, taken."""
        if self._near and self._ahead is not None:
            near, self._near = self._near, {}
            self._take(set(near), set(), near, self._ahead.read())

    def stop(self) -> None:
        """Stop what ``start`` began and nobody read (and the read ahead of blame)."""
        reading, self._reading = self._reading, None
        versions, self._reading_versions = self._reading_versions, None
        meta, self._meta_reading = self._meta_reading, None
        if reading is not None:
            reading[2].stop()
        if versions is not None:
            versions[1].stop()
        if meta is not None:
            meta[1].stop()
        if self._ahead is not None:
            self._ahead.stop()

    def _fetch(self, parent: str | None = None, version: tuple[str, str] | None = None) -> None:
        """Every parent and version wanted so far, and the one asked for, in one `git cat-file
        --batch` (after what ``start`` began reading of its kind, when that holds the one asked
        for, and what was read ahead of blame)."""
        from hansard.git.history import batch_objects

        if parent is not None:
            self._take_near()
        if parent is not None and parent not in self._parents and self._reading is not None:
            parents, revs, started = self._reading
            self._reading = None
            self._take(parents, set(), revs, started.result())
        if version is not None and self._reading_versions is not None:
            versions, started = self._reading_versions
            self._reading_versions = None
            self._take(set(), versions, {}, started.result())
        if (parent is None or parent in self._parents) and (version is None or version in self._versions):
            return
        parents = (self._wanted | ({parent} if parent else set())) - set(self._parents)
        versions = (self._wanted_versions | ({version} if version else set())) - set(self._versions)
        self._wanted.clear()
        self._wanted_versions.clear()
        if parents:
            parents = self._keep_near(parents)
            self._take_near()
        revs, wanted = self._revs(parents, versions)
        self._take(parents, versions, revs, batch_objects(self.top, wanted))

    def _revs(self, parents: set[str], versions: set[tuple[str, str]]) -> tuple[dict[str, str], list[str]]:
        """(commit -> its parent's version of the file, every rev to read)."""
        revs = {c: f"{prev[0]}:{prev[1]}" for c in parents if (prev := self._previous(c)) is not None}
        return revs, list(dict.fromkeys([*revs.values(), *(f"{c}:{path}" for c, path in sorted(versions))]))

    def _take(self, parents: set[str], versions: set[tuple[str, str]], revs: dict[str, str],
              got: list[tuple[str, str, bytes, bytes]]) -> None:
        blobs = {rev: (oid, body) for rev, oid, kind, body in got if kind == b"blob"}
        for c in parents:
            oid, body = blobs.get(revs.get(c, ""), ("", None))
            self._parents[c] = self._lines.line_set(oid, body)
        for c, path in versions:
            self._versions[(c, path)] = blobs.get(f"{c}:{path}", ("", None))[1]

    def _hashed(self, body: bytes | None) -> list[int]:
        """The normal-form hash of each line of a blob, in order."""
        return self._lines.in_order(body)

    def deleted_at_parent(self, sha: str, path: str) -> frozenset[int]:
        """The lines of ``path``, which commit ``sha`` deleted, at the commit's first parent."""
        got = self._deleted.get((sha, path))
        if got is None:
            from hansard.git.history import batch_objects

            body = next((b for _, _, kind, b in batch_objects(self.top, [f"{sha}^:{path}"]) if kind == b"blob"), None)
            text = body.decode("utf-8", "surrogateescape") if body is not None else ""
            got = self._deleted[(sha, path)] = frozenset(textnorm.line_hash(x) for x in set(text.split("\n")))
        return got

    def _parent_time(self, sha: str) -> int | None:
        """The committer time of commit ``sha``'s first parent (None: a root commit)."""
        got = self._parent_meta(sha)
        return got[1] if got is not None else None

    def parent_authored(self, sha: str) -> int | None:
        """When commit ``sha``'s first parent's change was written (its author time, which a
        rebase keeps; None: a root commit): work on the tree the commit grew from comes after."""
        got = self._parent_meta(sha)
        return min(got) if got is not None else None

    def _parent_meta(self, sha: str) -> tuple[int, int] | None:
        if sha not in self._parent_times and self._meta_reading is not None:
            from hansard.git.history import commits_in

            todo, reading = self._meta_reading
            self._meta_reading = None
            got = commits_in(reading.result())
            for c in todo:
                meta = got.get(f"{c}^")
                self._parent_times[c] = (meta.author_time, meta.committer_time) if meta is not None else None
        if sha not in self._parent_times:
            from hansard.git.history import read_commits

            # one `git cat-file` for the parents of every blamed commit not read yet: a file's
            # lines ask for many of them, one at a time
            todo = [sha] + [c for c in self.bl.commits if c not in self._parent_times and c != sha and c != ZERO]
            got = read_commits(self.top, [f"{c}^" for c in todo])
            for c in todo:
                meta = got.get(f"{c}^")
                self._parent_times[c] = (meta.author_time, meta.committer_time) if meta is not None else None
        return self._parent_times[sha]

    def _previous(self, sha: str) -> tuple[str, str] | None:
        c = self.bl.commits.get(sha)
        return c.previous if c is not None else None


class BlobLines:
    """The normal-form hashes of file versions' lines, each version (by blob id) and each
    distinct line text worked out once: successive versions of a file share most lines."""

    __slots__ = ("_hashes", "_shared", "_byte_hashes", "_blobs")

    def __init__(self, hashed: Mapping[str, int] | None = None) -> None:
        self._hashes = together.hash_table("versions")[0]  # a line's text -> its normal-form hash
        self._shared = hashed or {}  # texts hashed already, read only (the file's history's)
        self._byte_hashes: dict[bytes, int] = {}  # a line's hash by its bytes as git gives them
        self._blobs: dict[str, frozenset[int]] = {}  # blob id -> its lines (a parent's version is often another's)

    def line_set(self, oid: str, body: bytes | None) -> frozenset[int]:
        """The hashes of the lines of blob ``oid`` (its bytes ``body``; none when git has not
        it; kept by id when it has one)."""
        lines = self._blobs.get(oid) if oid else None
        if lines is None:
            if body is None:
                return frozenset()
            texts = set(body.split(b"\n"))
            self._learn(texts)
            lines = frozenset(map(self._byte_hashes.__getitem__, texts))
            if oid:
                self._blobs[oid] = lines
        return lines

    def in_order(self, body: bytes | None) -> list[int]:
        """The normal-form hash of each line of a blob, in order."""
        if body is None:
            return []
        texts = body.split(b"\n")
        self._learn(set(texts))
        return list(map(self._byte_hashes.__getitem__, texts))

    def _learn(self, texts: set[bytes]) -> None:
        """Each of these lines' hashes known (a line's bytes decode alone as they do in their
        blob: no UTF-8 sequence spans a newline)."""
        by_bytes, known, hashed = self._byte_hashes, self._hashes, self._shared
        for raw in texts.difference(by_bytes):
            x = raw.decode("utf-8", "surrogateescape")
            h = known.get(x)
            if h is None:
                # (most lines of a file's earlier version are in the file now or in its history's diffs)
                h = hashed.get(x)
                if h is None:
                    got = together.known(x)
                    h = got[0] if got is not None else textnorm.line_hash(x)
                known[x] = h
            by_bytes[raw] = h


class ParentsAhead:
    """The file's versions at the parents of the commits blame will likely name, read by git
    while blame runs (the file's `git log` ends first): ``revs`` names them as ``Bases`` does
    (``PARENT:PATH``), so a version blame's ``previous`` names is read ahead or not at all,
    never guessed. While the caller waits for blame, the lines of the first ``likely`` of them
    (the versions before each line's newest adder, which blame names most often) are hashed
    (``hash_while``) into the table ``Bases`` then reads; the others when the rules ask."""

    __slots__ = ("revs", "lines", "_reading", "_got", "_todo", "_likely")

    def __init__(self, top: str, revs: list[str], hashed: Mapping[str, int] | None = None,
                 likely: int | None = None) -> None:
        from hansard.git.history import BatchRead

        self.revs = frozenset(revs)
        self.lines = BlobLines(hashed)
        self._reading: BatchRead | None = BatchRead(top, revs)
        self._got: list[tuple[str, str, bytes, bytes]] | None = None
        self._todo = 0  # how many of ``_got`` are hashed, in order
        self._likely = len(revs) if likely is None else likely  # the first of ``revs`` hashed ahead

    def read(self) -> list[tuple[str, str, bytes, bytes]]:
        """(rev, blob id, kind, bytes) of each version git gave (waited for once)."""
        if self._got is None:
            reading, self._reading = self._reading, None
            self._got = reading.result() if reading is not None else []
        return self._got

    def hash_while(self, blame: Pending | None) -> None:
        """While git blames (``blame``, when this process runs it): hash the versions' lines
        as soon as git has given them, one version at a time, what this thread would spend
        waiting. Those not hashed by blame's end are hashed when the rules ask for them."""
        from hansard.git.run import wait_any

        if blame is None:
            return
        while not blame.done():
            if self._got is None:
                reading = self._reading
                if reading is None or reading.pending is None:
                    return
                if not reading.done():
                    wait_any([blame, reading.pending], 5.0)
                    continue
            got = self.read()
            if self._todo >= min(len(got), self._likely):
                return
            _, oid, kind, body = got[self._todo]
            self._todo += 1
            if kind == b"blob":
                self.lines.line_set(oid, body)

    def stop(self) -> None:
        reading, self._reading = self._reading, None
        if reading is not None:
            reading.stop()
