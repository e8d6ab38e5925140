"""Restored lines: an edit's line that a later commit removed from the file and a later one
brought back (``git checkout OLD -- file``, a revert of a revert, a stash pop, a merge
resolution).

Such an edit did not write the line for the commit that has it now: it wrote it for the
commit that first landed it. The file's history comes from one `git log` of the file (its
diffs from the store's commit-diff cache, filled by ``hansard.link.landing.file_commits``); the
file versions of the few commits that removed the line show whether another copy stayed. Those
versions are rebuilt from the diffs and taken only when their git object id is the blob's; git
reads the others.
"""

from __future__ import annotations

from bisect import bisect_right
from typing import TYPE_CHECKING

from hansard.answers.evidence import CLOCK_SLACK_S
from hansard.answers.why.together import hash_table, known
from hansard.errors import GitError
from hansard.text import textnorm

if TYPE_CHECKING:
    from typing import Any

    from hansard.git.history import BatchRead, LogEntry
    from hansard.git.run import Pending
    from hansard.store.interfaces import Store

_NONE: frozenset[int] = frozenset()  # the lines of a blob git does not have


class FileHistory:
    """The history of one file at one revision, for the answer of the whole file (every question
    about the file is answered from it): the commit list read once, on first use; every commit's
    diff (from the store's commit-diff cache) and line hashes read at once, when a line first
    needs them."""

    def __init__(self, store: Store, top: str, rel: str, rev: str | None,
                 texts: tuple[dict[str, int], set[str]] | None = None) -> None:
        self.store = store
        self.top = top
        self.rel = rel
        self.rev = rev or "HEAD"
        # line text -> normal-form hash, and the trivial texts (shared by files answered together,
        # and, given ``texts``, by the histories one answer reads: a copy shares its source's lines)
        self._text_hashes, self._trivial_texts = texts if texts is not None else hash_table("history")
        self._by_hash: tuple[dict[int, list[int]], dict[int, list[int]]] | None = None
        self._commits: list[LogEntry] | None = None
        self._log: Pending | None = None  # the file's `git log`, when started beside blame
        self._log_out: str | None = None
        self._pos: dict[str, int] = {}
        self._hunks: dict[str, list[Any]] = {}  # sha -> the commit's hunks (as in ``edits.hunks``)
        self._sets: dict[str, tuple[set[int], set[int]]] = {}  # sha -> (added, removed) hashes
        self._blob_hashes: dict[str, set[int]] = {}
        # blob -> (hashes asked, those of them it has): a prefetch that checked only some lines
        self._blob_some: dict[str, tuple[set[int], set[int]]] = {}
        self._removed: dict[tuple[int, float, str], str | None] = {}  # removed_since's answers
        self._chains: dict[tuple[int, int], list[LogEntry]] = {}  # _removers' answers
        self._lacks: dict[tuple[int, int], list[LogEntry]] = {}  # _lacking's answers
        self._touched: dict[tuple[int, float, int, int], list[LogEntry]] = {}  # _touching's answers
        self._later: list[tuple[int, float, str]] | None = None  # prefetch_removals' questions, asked with the first
        self._reading: BatchRead | None = None  # the versions read ahead of blame, until taken (``read_ahead``)

    def stop(self) -> None:
        """Stop the file's `git log` and its versions' reading if they were started and nobody
        read them."""
        log, self._log = self._log, None
        reading, self._reading = self._reading, None
        if log is not None:
            log.stop()
        if reading is not None:
            reading.stop()

    def prefetch(self) -> None:
        """Start the file's `git log` now, in its own process beside blame (or take the one
        started before the store was brought up to date); ``commits`` reads it."""
        from hansard.git.history import log_at, start_file_log, take_log_ahead

        self._log_out = log_at(self.top, self.rev, self.rel)  # read ahead with other files' logs
        if self._log_out is not None:
            return
        try:
            self._log = take_log_ahead(self.top, self.rel, self.rev) or start_file_log(self.top, self.rel, self.rev)
        except GitError:
            self._log = None  # asked again by commits()

    @property
    def texts(self) -> tuple[dict[str, int], set[str]]:
        """(line text -> its normal-form hash, the trivial texts): every text the history has hashed."""
        return self._text_hashes, self._trivial_texts

    def know(self, texts: list[str], hashes: list[int], trivial: list[bool]) -> None:
        """The normal-form hashes of these texts and whether each is trivial, worked out already
        (the file's own lines): most of the history's lines are among them."""
        table, trivials = self._text_hashes, self._trivial_texts
        for x, h, t in zip(texts, hashes, trivial, strict=True):
            if x not in table:
                table[x] = h
                if t:
                    trivials.add(x)

    def prepare(self) -> None:
        """Every commit's line hashes now (while blame runs): the file's questions reach most of
        the history."""
        self._index()

    def commits(self) -> list[LogEntry]:
        """Commits that touched the file in the history of the revision, newest first, renames
        followed (none when git cannot list them)."""
        if self._commits is None:
            from hansard.git.history import file_log, parse_file_log

            out: str | None = self._log_out
            if self._log is not None:
                pending, self._log = self._log, None
                try:
                    out = pending.result().decode("utf-8", "surrogateescape")
                except GitError:
                    out = None  # asked once more below
            if out is None:
                try:
                    out = file_log(self.top, self.rel, self.rev)
                except GitError:
                    out = ""
            self._log_out = out
            self._commits = [c for c, _ in parse_file_log(out, self.rel)]
            self._pos = {c.sha: k for k, c in enumerate(self._commits)}
        return self._commits

    def names(self) -> set[str]:
        """Every path the file had in this history (renames followed), its own included."""
        return {self.rel} | {p for c in self.commits() for p in (c.path, c.old_path) if p}

    def own_names(self) -> set[str]:
        """The paths of this very file: its own and its names before renames, up to the commit
        that made it as a copy of another file (whose path is that other file's)."""
        out = {self.rel}
        for c in self.commits():  # newest first
            if c.path:
                out.add(c.path)
            if c.copied:
                break
            if c.old_path:
                out.add(c.old_path)
        return out

    def commit(self, sha: str) -> tuple[LogEntry, list[Any]] | None:
        """One commit of the file's history and its hunks (None: not in it)."""
        self.commits()
        pos = self._pos.get(sha)
        if pos is None:
            return None
        c = self._commits[pos]  # type: ignore[index]
        self._load([c])
        return c, self._hunks[c.sha]

    def _load(self, commits: list[LogEntry]) -> None:
        """The hunks of every commit of the history once one of ``commits`` lacks them, from the
        cache; when one is missing there, the whole file's diffs from git once (which also fills
        the cache)."""
        if all(c.sha in self._hunks for c in commits):
            return
        todo = [c for c in self.commits() if c.sha not in self._hunks]
        got = self.store.commit_diffs.get_many([(c.sha, c.path) for c in todo])
        if len(got) < len(todo) or any(v is None for v in got.values()):  # missing, or withheld
            from hansard.link.landing import file_commits

            full = file_commits(self.store, self.top, self.rel, self.rev, log=self._log_out)
            by_sha = {c.sha: c for c in full}
            for c in self.commits():
                fc = by_sha.get(c.sha)
                self._hunks[c.sha] = fc.hunks if fc is not None else []
            return
        for c in todo:
            self._hunks[c.sha] = got[(c.sha, c.path)] or []  # none withheld: those read git above

    def hashed(self, text: str) -> int | None:
        """The line's normal-form hash, None for a trivial line; successive versions of a file
        share most lines, so each distinct text is hashed once."""
        h = self._text_hashes.get(text)
        if h is None:
            got = known(text)  # the file's own lines, worked out for its answer
            h = self._text_hashes[text] = got[0] if got is not None else textnorm.line_hash(text)
            if got[2] if got is not None else textnorm.is_trivial(text):
                self._trivial_texts.add(text)
        return None if text in self._trivial_texts else h

    def _changed(self, c: LogEntry) -> tuple[set[int], set[int]]:
        """(added, removed): normal-form hashes of the commit's non-trivial lines in the file."""
        hit = self._sets.get(c.sha)
        if hit is None:
            added: set[int] = set()
            removed: set[int] = set()
            hashes, trivial = self._text_hashes, self._trivial_texts
            for h in self._hunks[c.sha]:
                for ln in h[4]:
                    side = ln[:1]
                    if side == "+" or side == "-":
                        text = ln[1:]
                        x = hashes.get(text)
                        if x is None:
                            x = self.hashed(text)
                        elif text in trivial:
                            x = None
                        if x is not None:
                            (added if side == "+" else removed).add(x)
            hit = self._sets[c.sha] = (added, removed)
        return hit

    def _index(self) -> tuple[dict[int, list[int]], dict[int, list[int]]]:
        """(adders, removers): for each line hash, the positions of the commits that added
        (removed) it, newest first. Built once."""
        if self._by_hash is None:
            commits = self.commits()
            self._load(commits)
            adders: dict[int, list[int]] = {}
            removers: dict[int, list[int]] = {}
            for k, c in enumerate(commits):
                added, removed = self._changed(c)
                for h in added:
                    adders.setdefault(h, []).append(k)
                for h in removed:
                    removers.setdefault(h, []).append(k)
            self._by_hash = (adders, removers)
        return self._by_hash

    def _touching(self, h: int, edit_ts: float, older_than: int, side: int) -> list[LogEntry]:
        """Commits older than position ``older_than``, not older than the edit, that added
        (side 0) or removed (side 1) the line ``h``, newest first."""
        key = (h, edit_ts, older_than, side)
        out = self._touched.get(key)
        if out is None:
            commits = self.commits()
            at = self._index()[side].get(h, ())  # ascending positions: newest commit first
            out = self._touched[key] = [c for k in at[bisect_right(at, older_than):]
                                        if (c := commits[k]).committer_time + CLOCK_SLACK_S >= edit_ts]
        return out

    def removed_since(self, h: int, edit_ts: float, sha: str) -> str | None:
        """The newest commit older than ``sha`` and newer than the edit that removed every
        copy of the line ``h`` from the file, or None (also when ``sha`` is not in the file's
        history)."""
        key = (h, edit_ts, sha)
        if key in self._removed:
            return self._removed[key]
        if self._later is not None:
            later, self._later = self._later, None
            self.prefetch_removals(later)
        self.commits()
        pos = self._pos.get(sha)
        out = None
        if pos is not None:
            chain = self._lacking(h, pos, self._removers(h, pos))
            suspects = None  # the chain's commits not older than the edit, when a blob must be read
            for c in chain:
                if c.committer_time + CLOCK_SLACK_S < edit_ts:
                    continue
                if c.blob is None:
                    out = c.sha
                    break
                has = self._has(c.blob, h)
                if has is None:  # read once with the other suspects' blobs (when not prefetched)
                    if suspects is None:
                        suspects = [x.blob for x in chain if x.blob and x.committer_time + CLOCK_SLACK_S >= edit_ts]
                        self._read_blobs(suspects)
                    has = self._has(c.blob, h)
                if not has:  # (a blob git does not have has no lines)
                    out = c.sha
                    break
        self._removed[key] = out
        return out

    def _removers(self, h: int, pos: int) -> list[LogEntry]:
        """The commits older than position ``pos`` that removed the line
        ``h``, newest first (whatever the edit's time: questions about one line in one commit
        share it)."""
        key = (h, pos)
        out = self._chains.get(key)
        if out is None:
            commits = self.commits()
            at = self._index()[1].get(h, ())  # ascending positions: newest commit first
            out = self._chains[key] = [commits[k] for k in at[bisect_right(at, pos):]]
        return out

    def _lacking(self, h: int, pos: int, chain: list[LogEntry]) -> list[LogEntry]:
        """The commits of ``chain`` (the removers of ``h`` older than ``pos``) after which
        the file may lack ``h``: those known to have kept a copy of it left out (the caller
        still asks each one it reaches)."""
        key = (h, pos)
        out = self._lacks.get(key)
        if out is None:
            out = self._lacks[key] = [c for c in chain if c.blob is None or not self._has(c.blob, h)]
        return out

    def _has(self, blob: str, h: int) -> bool | None:
        """Whether the file version ``blob`` has the line ``h``; None when not read yet."""
        got = self._blob_hashes.get(blob)
        if got is not None:
            return h in got
        some = self._blob_some.get(blob)
        if some is not None and h in some[0]:  # the prefetch checked this line in this version
            return h in some[1]
        return None

    def prefetch_removals(self, questions: list[tuple[int, float, str]]) -> None:
        """Read at once, in one `git cat-file` (or one replay of the file's diffs), what every
        ``removed_since(h, edit_ts, sha)`` among ``questions`` may look at."""
        self.commits()
        oldest: dict[tuple[int, int], float] = {}  # (line, commit position) -> the oldest edit asking
        for h, edit_ts, sha in questions:
            pos = self._pos.get(sha)
            if pos is not None and ((h, pos) not in oldest or edit_ts < oldest[(h, pos)]):
                oldest[(h, pos)] = edit_ts
        asks: dict[str, set[int]] = {}  # blob -> the lines asked of it
        for (h, pos), edit_ts in oldest.items():
            for c in self._removers(h, pos):
                if c.blob and c.committer_time + CLOCK_SLACK_S >= edit_ts:
                    asks.setdefault(c.blob, set()).add(h)
        self._read_blobs(list(asks), asks)

    def prefetch_removals_later(self, questions: list[tuple[int, float, str]]) -> None:
        """``prefetch_removals(questions)`` when ``removed_since`` is first asked: until then
        the file's log, which it reads, runs beside the caller."""
        self._later = questions

    def prefetch_removals_ahead(self, oldest: dict[int, float]) -> None:
        """Before blame names the lines' commits (while it runs): what ``prefetch_removals``
        will likely read of the questions about the lines ``oldest`` names (line hash -> the
        oldest edit that may have written it), guessing each line's commit to be the newest
        that added it: every version an older commit made that removed the line, not older than
        the edit. What the history's diffs cannot rebuild git reads beside the caller, taken by
        ``read_ahead`` (or the first read that needs it); a later ``prefetch_removals`` reads
        only what this left out."""
        adders = self._index()[0]
        asks: dict[str, set[int]] = {}
        for h, edit_ts in oldest.items():
            at = adders.get(h)
            if not at:
                continue  # no commit of this history added it: blame will name another file's, or none
            for c in self._removers(h, at[0]):  # older than the newest commit that added it, which blame names most often
                if c.blob and c.committer_time + CLOCK_SLACK_S >= edit_ts:
                    asks.setdefault(c.blob, set()).add(h)
        todo = self._to_read(list(asks), asks)
        if todo:  # read by git beside the caller's work, until ``read_ahead``
            from hansard.git.history import BatchRead

            self._reading = BatchRead(self.top, todo)

    def adders(self, hashes: set[int], *, older: bool = True) -> list[LogEntry]:
        """The commits of the history that added one of the lines ``hashes``: blame names one
        of them for each such line but where it finds the line elsewhere. The newest adder of
        each line first (the one blame names most often), then the older ones."""
        commits = self.commits()
        adders = self._index()[0]
        newest: dict[int, None] = {}
        rest: dict[int, None] = {}
        for h in hashes:
            at = adders.get(h)
            if at:
                newest[at[0]] = None
                rest.update(dict.fromkeys(at[1:]))
        return [commits[k] for k in dict.fromkeys([*newest, *rest] if older else newest)]

    def previous_time(self, sha: str) -> int | None:
        """The committer time of the file's commit before ``sha`` in its history (None: ``sha``
        is not in it, or made the file)."""
        commits = self.commits()
        pos = self._pos.get(sha)
        if pos is None or pos + 1 >= len(commits):
            return None
        return int(commits[pos + 1].committer_time)

    def added_by(self, sha: str) -> set[int] | None:
        """The non-trivial lines commit ``sha`` added to the file, by normal-form hash (None:
        ``sha`` is not in the file's history)."""
        got = self.commit(sha)
        return None if got is None else self._changed(got[0])[0]

    def absent_for(self, remover: str, sha: str) -> float | None:
        """Seconds between commit ``remover`` and commit ``sha`` by their committer times (None:
        either is not in the file's history)."""
        gone, got = self.commit(remover), self.commit(sha)
        if gone is None or got is None:
            return None
        return float(got[0].committer_time) - float(gone[0].committer_time)

    def brings_back(self, sha: str, line: int, remover: str) -> bool:
        """Commit ``sha``'s hunk that holds its line ``line`` adds no text but what commit
        ``remover`` took out of the file (non-trivial lines): it brings that back, as a checkout
        of the old version or a revert does, rather than writing anew around it. False when
        either commit is not in the file's history."""
        got, gone = self.commit(sha), self.commit(remover)
        if got is None or gone is None:
            return False
        removed = self._changed(gone[0])[1]
        for _, _, new_start, new_lines, lines in got[1]:
            if new_start is not None and new_start <= line < new_start + max(new_lines or 0, 1):
                return all(x is None or x in removed for ln in lines if ln[:1] == "+" for x in [self.hashed(ln[1:])])
        return False

    def first_landed(self, h: int, edit_ts: float, before: str) -> str | None:
        """The oldest commit, not older than the edit and older than ``before``, that added ``h``."""
        commits = self.commits()
        landed = self._touching(h, edit_ts, self._pos.get(before, len(commits)), 0)
        return landed[-1].sha if landed else None

    def _read_blobs(self, blobs: list[str], asks: dict[str, set[int]] | None = None) -> None:
        """The line hashes of these blobs; with ``asks``, of a blob the history's diffs rebuild,
        only whether it has the lines asked of it (the rest: all its lines)."""
        todo = self._to_read(blobs, asks)
        if todo:
            from hansard.git.history import read_blobs

            for bid, data in read_blobs(self.top, todo).items():
                self._add_blob(bid, data)

    def _to_read(self, blobs: list[str], asks: dict[str, set[int]] | None) -> list[str]:
        """Of these blobs, those git must read for ``_read_blobs``: not read yet (nor answered
        for the lines asked by what was read ahead of blame), nor rebuilt by the history's diffs."""
        self.read_ahead()
        some = self._blob_some
        todo = [b for b in dict.fromkeys(blobs) if b not in self._blob_hashes
                and not (asks and b in some and asks.get(b, _NONE) <= some[b][0])]
        return self._replay(todo, asks) if todo else todo

    def read_ahead(self) -> None:
        """Take what ``prefetch_removals_ahead`` started git reading."""
        reading, self._reading = self._reading, None
        if reading is not None:
            for bid, _, _, data in reading.result():
                self._add_blob(bid, data)

    def _add_blob(self, bid: str, data: bytes) -> None:
        known = self._text_hashes.get  # each text's line_hash, for the texts of the loaded diffs
        texts = set(data.decode("utf-8", "surrogateescape").split("\n"))
        got = list(map(known, texts))
        hashes = set(got)
        if None in hashes:
            hashes.discard(None)
            hashes.update(textnorm.line_hash(x) for x, h in zip(texts, got, strict=True) if h is None)
        self._blob_hashes[bid] = hashes  # type: ignore[assignment]

    def _replay(self, todo: list[str], asks: dict[str, set[int]] | None = None) -> list[str]:
        """Once every diff is loaded (``_index``): the blobs among ``todo`` rebuilt by
        applying the history's diffs from the oldest commit on, each taken only when its git
        object id is the one the log names (so its bytes are the blob's); the rest, for git to
        read (a merge, a copy from another file, text the diff could not give back).

        With ``asks`` (blob -> line hashes), the replay counts the copies of the asked lines as
        it goes (each diff's lines, not each version's), and a rebuilt blob keeps only which of
        its asked lines it has."""
        if self._by_hash is None:
            return todo
        import hashlib  # OpenSSL's: several times faster than the builtin _sha1

        want = set(todo)
        counted = set().union(*(asks[b] for b in todo if b in asks)) if asks else set()
        copies = dict.fromkeys(counted, 0)  # line hash -> copies of it in ``lines``
        known = self._text_hashes.get
        lines: list[str] = []
        for c in reversed(self.commits()):
            if not want:
                break
            for old_start, old_lines, _, _, hunk in reversed(self._hunks.get(c.sha) or []):
                if old_start is None:  # not a line-numbered hunk: what follows is git's to read
                    return [b for b in todo if b in want]
                at = old_start if not old_lines else old_start - 1
                new = [ln[1:] for ln in hunk if ln[:1] == "+"]
                if counted:
                    for sign, part in ((-1, lines[at:at + (old_lines or 0)]), (1, new)):
                        for x in part:
                            h = known(x)
                            if h is None:
                                h = textnorm.line_hash(x)
                            if h in counted:
                                copies[h] += sign
                lines[at:at + (old_lines or 0)] = new
            if c.blob not in want:
                continue
            try:
                text = "\n".join(lines).encode("utf-8", "surrogateescape")
            except UnicodeEncodeError:  # text no file's bytes decode to: git reads this one
                continue
            algo = hashlib.sha1 if len(c.blob) == 40 else hashlib.sha256
            for data in ((text + b"\n") if lines else text, text):
                if algo(b"blob %d\0" % len(data) + data).hexdigest() == c.blob:
                    asked = asks.get(c.blob) if asks else None
                    if asked is not None:
                        self._blob_some[c.blob] = (asked, {h for h in asked if copies[h] > 0})
                    else:
                        self._add_blob(c.blob, data)
                    want.discard(c.blob)
                    break
        return [b for b in todo if b in want]
