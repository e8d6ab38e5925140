"""The `why` engine: for each line of a file, the archived edit that wrote it.

It applies the attribution rules (the README's `kind` and `rule`) and fails closed: a line gets a session
only when an applied edit, in the same repository, to the same file (renames followed), made
before the line's commit, added that exact line (whitespace aside). Everything else is
``human`` when no session could have written it, and ``unknown`` when one might have.

Matching is by content, never by commit ids remembered from edit time, so amend, rebase,
squash, cherry-pick and revert need no special case: blame names the commit a line lives in
now, and the question is only which edits wrote that text before that commit existed.

The engine's steps, in order, for each run of lines blamed to one commit (``_answer_group``):
``wrote`` (direct evidence, the commit's own sessions first, then block support, then the
newest edit), ``inherited`` (trivial lines from the matched block around them), ``modified``
(lines a person changed before committing, hansard.answers.why.unmatched), and the rules that
decide a line no edit wrote: ``unknown`` with its reason, or ``human``.
"""

from __future__ import annotations

import functools
import os
import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Set as AbstractSet
    from typing import Any

    from hansard.answers.restored import FileHistory
    from hansard.answers.why.bases import ParentsAhead
    from hansard.answers.why.target import Target
    from hansard.store.interfaces import Store

from hansard.answers import evidence
from hansard.answers.evidence import CLOCK_SLACK_S, EditRef
from hansard.answers.why.line import LineAnswer
from hansard.answers.why.unmatched import STALE_S, WINDOW, Unmatched
from hansard.git.blame import ZERO, Blame, BlameLine
from hansard.text import textnorm

# Bump when a rule changes what an answer says: cached answers of other versions are not served.
# 2: no_sessions; 3: a line's own paths, bases, readded, changed_later, common_line, unreadable_edit;
# 4: moved files, a common line's block in its commit, new files' bases; 5: a line blame took from
# another file is restored or not by that file's history; 6: an edit's base written by its
# conversation, its subagents or a subagent whose transcript is not held, or by a piece of work
# the commit's own record names; 7: stale_edit
RULES_VERSION = 8
FEW_WORDS = 4  # distinct words up to which a line is little evidence of its writer
AWAY_S = 86400  # how long a line may be out of the file and still be restored by undoing its removal
LEFT_FEW = 3  # lines an edit must have added, new to the commit's parent, before a share of them is evidence
_WORDS = re.compile(r"\w+")


class Prepared:
    """What the answer needs of the question's lines themselves, whoever blame names: their
    hashes and the edits that added such lines (computed while git blame runs)."""

    def __init__(self, store: Store, repo_id: int, texts: list[str], basename: str,
                 paths: set[str] | None = None) -> None:
        from hansard.answers.why import together

        self.texts = texts
        facts = together.facts(texts)  # a file repeats its common lines, and files one another's
        self.hashes = [facts[x][0] for x in texts]
        self.exacts = [facts[x][1] for x in texts]
        self.trivial = [facts[x][2] for x in texts]
        self.untimed: dict[int, set[str]] = {}  # hash -> paths that edits with no time added it to
        self.placed: dict[int, set[str | None]] = {}  # hash -> paths that timed edits added it to
        hashes = set(self.hashes)
        # With ``paths`` (the file's names as far as known before blame), only the edits of
        # those paths are loaded whole; of the others, only where and when.
        self.paths = paths
        if paths is not None:
            together.lines_ahead(store, repo_id, hashes)  # other files' questions to come, looked up with this one
        self.edits, self.by_hash = evidence.load_candidates(store, repo_id, hashes, untimed=self.untimed,
                                                            paths=paths, placed=self.placed)
        self.unlinked = evidence.unlinked_hashes(store, hashes, basename)

    def add_paths(self, store: Store, repo_id: int, paths: set[str]) -> None:
        """Also the edits of these paths, loaded whole (blame named a file the question did
        not know of: a copy's source)."""
        edits, by_hash = evidence.load_candidates(store, repo_id, set(self.hashes), paths=paths, others=False)
        for eid, e in edits.items():
            if e.rel_path in paths and eid not in self.edits:
                self.edits[eid] = e
        for h, ids in by_hash.items():
            new = [eid for eid in ids if eid in edits and edits[eid].rel_path in paths
                   and eid not in self.by_hash.get(h, ())]
            if new:
                self.by_hash.setdefault(h, []).extend(new)
        self.paths = (self.paths or set()) | paths


class Attributor(Unmatched):
    """Attributes the blamed lines of one file. One instance per question."""

    def __init__(self, store: Store, t: Target, repo_id: int, bl: Blame, rev: str | None = None,
                 history: FileHistory | None = None, pre: Prepared | None = None,
                 parents: ParentsAhead | None = None) -> None:
        self.store = store
        self.t = t
        self.repo_id = repo_id
        self.bl = bl
        self.lines = bl.lines
        texts = [b.content for b in self.lines]
        if pre is None or pre.texts != texts:  # prepared from other lines than blame gave
            pre = Prepared(store, repo_id, texts, os.path.basename(t.rel))
        self.hashes, self.exacts, self.trivial = pre.hashes, pre.exacts, pre.trivial
        self.untimed = pre.untimed
        self.edits, self.by_hash = pre.edits, pre.by_hash
        from hansard.answers.restored import FileHistory
        from hansard.answers.why.commits import CommitSessions

        self.history = history or FileHistory(store, t.top, t.rel, rev)
        self._histories: dict[str, FileHistory] = {}  # a copy's source -> its own history
        self.placed = pre.placed
        # The file's own names: its path, and, when an edit of another path added one of its
        # lines, its names before renames (which a line's blamed path may be), not the file it
        # was copied from.
        own = {t.rel}
        if any(p != t.rel for ps in self.placed.values() for p in ps):
            own |= self.history.own_names()  # from the `git log --follow` of the revision the history ran
        self.own_names = frozenset(own)
        self._paths_of: dict[tuple[str, str], frozenset[str]] = {}  # (blamed path, commit) -> the paths its writer edited
        self._logged_early = self._copies_logged()
        self.moved = self._moved_sources()
        self.names = own | {b.orig_path for b in self.lines} | {p for ps in self.moved.values() for p in ps}
        if pre.paths is not None and not self.names <= pre.paths:
            pre.add_paths(store, repo_id, self.names - pre.paths)
        self.unlinked = pre.unlinked
        self._texts: dict[int, list[str]] = {}
        self._shell: float | None | bool = False  # False: not looked up yet
        self._has_edits: bool | None = None
        self._hunks: dict[tuple[str, str], list[tuple[int, int, list[str], str | None]]] = {}
        self.cs = CommitSessions(store, t.top, repo_id, bl, at_head=rev is None or _is_head(t.top, rev))
        from hansard.answers.why.bases import Bases

        self.bases = Bases(store, t.top, bl, self.moved, hashed=self.history.texts[0], ahead=parents)
        self._off_base: dict[int, list[str]] = {}  # line -> sessions whose edits wrote it on another version
        self._works: dict[str, frozenset[str]] = {}  # session -> its piece of work (see _work)
        self._file_delegations: list[tuple[float, str]] | None = None  # (start, session) of unread subagents told of the file
        self._unread_by_commit: dict[str, list[str]] = {}  # commit -> the sessions of those that may have written its lines
        self._delegations: dict[frozenset[str], list[float]] = {}  # a piece of work -> its unread subagents' starts
        self._lone_common: dict[int, list[str]] = {}  # line -> sessions whose edits wrote it, but no block around it
        self._copied: dict[int, list[str]] = {}  # line -> sessions whose edits wrote it for an earlier commit
        self._stale: dict[int, list[str]] = {}  # line -> sessions whose edits, older than the file's last commit, wrote it
        self.by_commit: dict[str, list[int]] = {}
        for i, b in enumerate(self.lines):
            self.by_commit.setdefault(b.sha, []).append(i)
        self._loose: list[list[EditRef] | None] = [None] * len(self.lines)
        self._loose_by: dict[tuple[int, str, frozenset[str]], list[EditRef]] = {}
        self._quals: list[list[EditRef] | None] = [None] * len(self.lines)
        self._commit_sessions: dict[str, frozenset[str]] = {}
        # line -> edit -> (original, restoring commit, whether the restoring commit brings the line back)
        self._restored: dict[int, dict[int, tuple[str, str, bool]]] = {}
        self._file_edits: list[tuple[float | None, Any]] | None = None
        self._commit_times: list[int] | None = None  # committer times of the file's commits, ascending
        self._unreadable: list[tuple[float | None, Any]] | None = None  # the file's unreadable edits
        self._newest_first: list[tuple[float | None, Any]] | None = None  # the file's edits, newest first
        self._added_hunks: dict[tuple[str, str, int], bool] = {}  # (commit, path, hunk start) -> an edit added a removed line
        self._first_edit_ts: float | None = None  # the earliest applied edit of this file (inf: none)
        self._removed_writers: dict[int, list[EditRef]] = {}  # removed line hash -> edits that added it
        self._scored: dict[int, list[tuple[list[tuple[float, str]], str | None]]] = {}
        self._removed_by_commit: dict[tuple[str, str], set[int]] = {}
        self._later: dict[tuple[int, int], list[str]] = {}  # (line hash, edit) -> later sessions
        # line hash -> (time, edit) of the edits that added it to this file, in by_hash order
        self._named: dict[int, list[tuple[float, EditRef]]] = {}
        self._absent: dict[int, list[str]] = {}  # edit -> its added lines no longer in the file
        self._present = set(self.hashes)
        # text -> whether it is a non-trivial line the file no longer has (the file's own texts:
        # no); edits of one file add the same texts again and again, each looked at once
        self._gone: dict[str, bool] = dict.fromkeys(texts, False)
        self._other_path: dict[tuple[int, frozenset[str]], bool] = {}  # (line hash, its paths) -> an edit added it elsewhere
        self._counts: dict[int, int] | None = None  # line hash -> lines of the file with it
        self._distinct: dict[str, set[str]] = {}  # commit -> sessions that alone wrote one of its lines

    # -- rules ----------------------------------------------------------------------

    def commit_time(self, sha: str) -> float | None:
        if sha == ZERO:
            return None
        c = self.bl.commits.get(sha)
        return float(c.committer_time) if c else None

    def own_paths(self, i: int) -> frozenset[str]:
        """The file's own names when blame found line i in one of them, else the file blame
        found it in (a copy's source) alone. A line is never evidence of an edit into another
        file because other lines of this one came from there."""
        p = self.lines[i].orig_path
        return self.own_names if p in self.own_names else frozenset((p,))

    def paths_of(self, i: int) -> frozenset[str]:
        """The paths an edit must have written to be line i's: its own paths (``own_paths``),
        and the paths its commit deleted whose edits' text it may have moved here
        (``_moved_sources``; such an edit counts only inside a block, ``_moved_block``)."""
        b = self.lines[i]
        key = (b.orig_path, b.sha)
        out = self._paths_of.get(key)
        if out is None:
            out = self._paths_of[key] = self.own_paths(i) | self.moved.get(b.sha, frozenset())
        return out

    def _copies_logged(self) -> frozenset[str]:
        """The files blame took a line from whose `git log` the rules will read (an edit of that
        file added the line's text before its commit: ``loose`` then has it, whatever the
        commit's deleted paths add), that log started now, beside the rest of the answer's
        set-up, rather than once every line's edits are weighed (``_answer``)."""
        rel, own, known = self.t.rel, self.own_names, self.history.names()
        out: set[str] = set()
        for i, b in enumerate(self.lines):
            p = b.orig_path
            if p == rel or p in own or p in out or p in known or b.sha == ZERO or self.trivial[i]:
                continue
            bound = self.commit_time(b.sha)
            limit = None if bound is None else bound + CLOCK_SLACK_S
            edits = self.edits
            if any((e := edits[eid]).rel_path == p and (limit is None or e.ts <= limit)
                   for eid in self.by_hash.get(self.hashes[i], ())):
                self._history_at(p).prefetch()
                out.add(p)
        return frozenset(out)

    def _moved_sources(self) -> dict[str, frozenset[str]]:
        """commit -> the paths it deleted (no rename git found pairs them with a new one) into
        which an edit wrote a line that the commit added to this file: the commit may have moved
        the edit's text here. Asked of git only for commits with such a line."""
        asked: dict[str, set[str]] = {}
        for i, b in enumerate(self.lines):
            if b.sha == ZERO or self.trivial[i]:
                continue
            placed = self.placed.get(self.hashes[i])
            if placed:
                own = self.own_paths(i)
                others = {p for p in placed if p is not None and p not in own}
                if others:
                    asked.setdefault(b.sha, set()).update(others)
        if not asked:
            return {}
        from hansard.git.history import deleted_files

        deleted = deleted_files(self.t.top, sorted(asked))
        return {sha: frozenset(ps & deleted.get(sha, set())) for sha, ps in asked.items() if ps & deleted.get(sha, set())}

    def history_of(self, i: int) -> FileHistory:
        """The history that line i's commit changed it in: the file's own (renames followed),
        or, for a line blame took from another file (a copy's or a move's source), that
        file's, at the same revision. Whether an edit's line was removed and brought back is
        a question about the file the line was in."""
        p = self.lines[i].orig_path
        if p == self.t.rel or p in self.own_names:
            return self.history
        return self._histories.get(p) or self._history_at(p)

    def _history_at(self, p: str) -> FileHistory:
        """The history of path ``p``: the file's own when ``p`` is one of its names in it, else
        that path's, at the same revision (made once)."""
        if p in self.history.names():
            got = self.history
        else:
            from hansard.answers.restored import FileHistory

            got = FileHistory(self.store, self.t.top, p, self.history.rev, texts=self.history.texts)
        self._histories[p] = got
        return got

    def loose(self, i: int) -> list[EditRef]:
        """Edits that added line i's text to its file (``paths_of``) before its commit's
        committer time."""
        out = self._loose[i]
        if out is None:
            # the same text in the same commit has the same edits: common lines repeat
            paths = self.paths_of(i)
            key = (self.hashes[i], self.lines[i].sha, paths)
            out = self._loose_by.get(key)
            if out is None:
                bound = self.commit_time(self.lines[i].sha)
                named = [(ts, e) for ts, e in self._named_edits(self.hashes[i]) if e.rel_path in paths]
                if bound is None:
                    out = [e for _, e in named]
                else:
                    limit = bound + CLOCK_SLACK_S
                    out = [e for ts, e in named if ts <= limit]
                self._loose_by[key] = out
            self._loose[i] = out
        return out

    def _named_edits(self, h: int) -> list[tuple[float, EditRef]]:
        """(time, edit) of the edits that added the line ``h`` to this file (renames followed)."""
        out = self._named.get(h)
        if out is None:
            out = self._named[h] = [(e.ts, e) for eid in self.by_hash.get(h, ())
                                    if (e := self.edits[eid]).rel_path in self.names]
        return out

    def commit_weights(self, sha: str) -> dict[str, float]:
        """The sessions whose edits account for the commit's distinctive lines in this file (an
        edit whose line a commit removed before this one brought it back does not: it wrote the
        line for an earlier commit)."""
        if sha == ZERO:
            return {}
        return self.cs.weights(sha, self.by_commit.get(sha, []), self._landing_here, self.trivial)

    def _landing_here(self, i: int) -> list[EditRef]:
        """``loose(i)`` without the edits whose line was removed from the file since."""
        sha, h = self.lines[i].sha, self.hashes[i]
        history = self.history_of(i)
        return [e for e in self.loose(i) if history.removed_since(h, e.ts, sha) is None]

    def commit_sessions(self, sha: str) -> frozenset[str]:
        """Sessions that made the commit: tied to it by their shell output, or accounting for its
        distinctive lines."""
        if sha == ZERO:
            return frozenset()
        out = self._commit_sessions.get(sha)
        if out is None:  # asked for line after line of the same commit
            out = self._commit_sessions[sha] = frozenset(self.commit_weights(sha)) | self.cs.tied(sha)
        return out

    def qualifying(self, i: int) -> list[EditRef]:
        """Edits that could have written line i: right file, before its commit. An edit made
        after the commit was authored (a rebase or an amend moved its committer time) counts
        only when its session is tied to the commit, or, where no earlier edit wrote the line,
        accounts for the commit's other lines. An edit whose line a later commit removed before
        this one brought it back counts only when no other edit does (then the line is
        ``restored``)."""
        out = self._quals[i]
        if out is not None:
            return out
        out = self.loose(i)
        sha = self.lines[i].sha
        c = self.bl.commits.get(sha) if sha != ZERO else None
        if out and c is not None:
            authored = min(c.author_time, c.committer_time) + CLOCK_SLACK_S
            early = [e for e in out if e.ts <= authored]
            if len(early) < len(out):
                tied = self.cs.tied(sha)
                weights = self.commit_weights(sha) if not early else {}
                out = early + [e for e in out if e.ts > authored and (e.session_id in tied or e.session_id in weights)]
            if out and not self.trivial[i]:
                out = self._unrestored(i, out)
        out = self._one_per_call(out)
        self._quals[i] = out
        return out

    def _unrestored(self, i: int, quals: list[EditRef]) -> list[EditRef]:
        """The edits whose line no commit removed between them and line i's commit, made on the
        file the commit grew from (hansard.answers.why.bases), or by a piece of work the commit's
        own record names (its checkpoint, the session's shell output making it: a rebase or a
        squash gave the commit another parent than the one the work saw); when there are none, the others,
        remembered as restored (first landed where, restored by whom). Edits of the first kind
        made on another version of the file are remembered too (``_off_base``)."""
        sha, h = self.lines[i].sha, self.hashes[i]
        history = self.history_of(i)
        removed = {e.edit_id: history.removed_since(h, e.ts, sha) for e in quals}
        direct = [e for e in quals if removed[e.edit_id] is None]
        before = history.previous_time(sha) if direct else None
        copies = [e for e in direct if e.ts < before - CLOCK_SLACK_S] if before is not None else []
        if copies and h in self.bases.parent(sha):
            # The parent already has this text: an edit older than the parent landed its line
            # there; this commit made another copy of it.
            direct = [e for e in direct if e not in copies]
            if not direct:
                self._copied[i] = sorted({e.session_id for e in copies})
                return []
        if direct:
            fit = [e for e in direct if self.bases.fits(e, sha, functools.partial(self._earlier_edits, i, e))
                   or self._its_own_work(i, e, sha)]
            if fit:
                return fit
            self._off_base[i] = sorted({e.session_id for e in direct})
            quals = [e for e in quals if removed[e.edit_id] is not None]
            if not quals:
                return []
        line = self.lines[i].orig_line
        restored: dict[int, tuple[str, str, bool]] = {}
        for e in quals:
            gone = removed[e.edit_id]
            restored[e.edit_id] = (history.first_landed(h, e.ts, sha) or gone or sha, sha,
                                   gone is not None and history.brings_back(sha, line, gone)
                                   and not self._away_long(history, gone, sha))
        self._restored[i] = restored
        return quals

    @staticmethod
    def _away_long(history: FileHistory, remover: str, sha: str) -> bool:
        """The line was out of the file for more than ``AWAY_S`` before commit ``sha`` brought it
        back: undoing a removal (a revert, a checkout of the old version, a rebase replaying a
        split) comes soon after it; a line back days later came with new work, whose hand (a
        person retyping it, an agent whose edits are not here) is not known."""
        away = history.absent_for(remover, sha)
        return away is not None and away > AWAY_S

    def _checks_parent(self, i: int, edits: list[EditRef]) -> bool:
        """Line i's answer may look at its commit's parent: one of these edits replaced lines
        (its base is checked there) or is older than the file's commit before (its line may be
        one the parent had)."""
        before = self.history_of(i).previous_time(self.lines[i].sha)
        return any(self.bases.removes(e.edit_id) or (before is not None and e.ts < before - CLOCK_SLACK_S)
                   for e in edits)

    def _earlier_edits(self, i: int, e: EditRef) -> list[int]:
        """Ids of the edits into line i's file made before e by e's piece of work (its session,
        the sessions of its conversation and their subagents), newest first."""
        paths = self.paths_of(i)
        if self._newest_first is None:  # sorted once per file: asked for each edit off its parent's base
            self._newest_first = sorted(self._edits_of_file(), key=lambda x: -(x[0] or 0.0))
        work = self._work(e.session_id)
        return [r["id"] for ts, r in self._newest_first
                if r["session_id"] in work and r["rel_path"] in paths and ts is not None and ts < e.ts]

    def _work(self, session_id: str) -> frozenset[str]:
        """The session, the sessions of its conversation (the one it resumes, those resuming
        it) and the subagents of each: one piece of work on one tree, whose earlier edits can
        hold the lines an edit replaced."""
        got = self._works.get(session_id)
        if got is None:
            ev = self.store.evidence
            resumes, resumed_in = evidence.conversation(self.store, session_id)
            one = {session_id, *resumed_in} | ({resumes} if resumes else set())
            got = self._works[session_id] = frozenset(one | {r["session_id"] for s in one for r in ev.subagents(s)})
        return got

    def _its_own_work(self, i: int, e: EditRef, sha: str) -> bool:
        """Edit e replaced lines the commit's parent lacks, yet on the tree the commit grew
        from: the commit's own record (its checkpoint, the session's `git commit` output) names
        e's piece of work, which made the commit whatever parent a rebase or a squash gave it;
        or, for a line the file has once, that work started a subagent whose transcript is not
        held, which may have written them (a line the file has many times is no evidence of
        which edit wrote it there, and no record says the work made this commit)."""
        if self._work(e.session_id) & self.cs.tied(sha):
            return True
        return not self._common(i) and self._delegated_before(e, sha)

    def _delegated_before(self, e: EditRef, sha: str) -> bool:
        """e's piece of work started a subagent whose own transcript is not held after the
        commit's parent was written and before e: what it wrote on that tree (the lines e
        replaced, which neither the parent nor a held edit has) is nowhere here."""
        work = self._work(e.session_id)
        starts = self._delegations.get(work)
        if starts is None:
            from hansard import agents

            starts = self._delegations[work] = sorted(
                t for _sid, raw in self.store.evidence.unread_delegations(sorted(work), agents.tools("task"))
                if (t := evidence.parse_ts(raw)) is not None)
        if not starts:
            return False
        lo = self.bases.parent_authored(sha)
        return any((lo is None or t >= lo - CLOCK_SLACK_S) and t < e.ts for t in starts)

    def groups(self) -> list[list[int]]:
        """Runs of consecutive lines blamed to the same commit: what survives of one hunk."""
        out: list[list[int]] = []
        for i, b in enumerate(self.lines):
            if out and self.lines[out[-1][-1]].sha == b.sha and self.lines[out[-1][-1]].final_line + 1 == b.final_line:
                out[-1].append(i)
            else:
                out.append([i])
        return out

    def answer(self) -> list[LineAnswer]:
        try:
            return self._answer()
        finally:
            self.bases.stop()
            for history in self._histories.values():
                history.stop()

    def _answer(self) -> list[LineAnswer]:
        answers: list[LineAnswer | None] = [None] * len(self.lines)
        # the edits' bases, and the parents of the commits whose lines edits may have written, read at once
        weighed = {i: self.loose(i) for i, b in enumerate(self.lines) if not self.trivial[i] and b.sha != ZERO}
        # the `git log` of each copy's source these lines need, started side by side
        logged = set(self._logged_early)
        for p in {self.lines[i].orig_path for i, es in weighed.items() if es} - {self.t.rel} - self.own_names:
            if p not in self._histories and (got := self._history_at(p)) is not self.history:
                got.prefetch()
                logged.add(p)
        self.bases.prefetch(e.edit_id for es in weighed.values() for e in es)
        # (a line of another file is read whatever its check says: the check waits for that file's log)
        self.bases.want(self.lines[i].sha for i, es in weighed.items()
                        if es and (self.history_of(i) is not self.history or self._checks_parent(i, es)))
        # the commits' own versions a common line's block may be judged in (``_in_block``)
        common = [i for i, es in weighed.items() if es and self._common(i)]
        self.bases.want_versions((self.lines[i].sha, self.lines[i].orig_path) for i in common)
        self.bases.want(self.lines[i].sha for i in common)
        # the file versions that may show an edit's line removed, read in one git process
        asks: dict[FileHistory, set[tuple[int, float, str]]] = {}
        for i, es in weighed.items():
            if es:
                asks.setdefault(self.history_of(i), set()).update((self.hashes[i], e.ts, self.lines[i].sha) for e in es)
        from hansard.answers.why.together import many_files

        if not many_files():  # files answered in turn: the next file's blame runs beside; read when a line needs them
            self.bases.start()  # read beside the removals' versions and the rules until a line needs them
        for history, questions in asks.items():
            if history is self.history:
                history.prefetch_removals(list(questions))
            else:  # read when a line first asks that file (its log may still run)
                history.prefetch_removals_later(list(questions))
        for g in self._logged_last(self.groups(), logged):
            self._answer_group(g, answers)
        return [a for a in answers if a is not None]

    def _logged_last(self, groups: list[list[int]], logged: AbstractSet[str]) -> list[list[int]]:
        """``groups`` with those that will wait for the `git log` of a file in ``logged`` last
        (a line blame took from it, a line of a commit that has such a line, whose sessions are
        weighed over all its lines, or a line near one, whose block is judged by it): the others
        are worked out while that log runs. A line's answer is a function of the file's evidence,
        whatever order its groups are worked out in."""
        if not logged:
            return groups
        shas: set[str] = set()
        near: set[int] = set()
        for i, b in enumerate(self.lines):
            if b.orig_path in logged:
                shas.add(b.sha)
                near.update(range(i - WINDOW, i + WINDOW + 1))
        first: list[list[int]] = []
        last: list[list[int]] = []
        for g in groups:
            (last if self.lines[g[0]].sha in shas or not near.isdisjoint(g) else first).append(g)
        return first + last

    def _answer_group(self, g: list[int], answers: list[LineAnswer | None]) -> None:
        quals = {i: self.qualifying(i) for i in g}
        chosen: dict[int, EditRef] = {}
        alternatives: dict[int, list[str]] = {}
        sha = self.lines[g[0]].sha
        mine: AbstractSet[str] | None = None  # the commit's sessions, looked up at the first line that asks
        tied_to: set[str] = set()
        # 0. a line the file has more than once is evidence only inside a block its session
        #    wrote: another line of that session's around it (in this commit or not).
        weighed = dict(quals)
        if sha in self.moved:
            # 0a. an edit of a path the commit deleted is evidence only inside a block of that
            #     path's text moved here (a line of its own among others' is not).
            for i in g:
                own = self.own_paths(i)
                if any(e.rel_path not in own for e in quals[i]):
                    quals[i] = [e for e in quals[i] if e.rel_path in own or self._moved_block(i, e, weighed)]
        for i in g:
            if quals[i] and not self.trivial[i] and self._common(i):
                held = [e for e in quals[i] if self._in_block(i, e, weighed)]
                if not held:  # no block holds it now: its commit's own version may show one
                    held = [e for e in quals[i] if self._in_block_then(i, e)]
                if not held:
                    self._lone_common[i] = sorted({e.session_id for e in quals[i]})
                quals[i] = held
        # 1. wrote: non-trivial lines with direct evidence. The commit's own sessions first
        #    (a common line that an older session also wrote elsewhere in the file is theirs),
        #    then block support decides between edits, then the newest edit before the commit.
        for pos, i in enumerate(g):
            if self.trivial[i] or not quals[i]:
                continue
            if len(quals[i]) == 1:
                chosen[i] = quals[i][0]
                continue
            window = [self.hashes[j] for j in g[max(0, pos - WINDOW): pos + WINDOW + 1]]
            if mine is None:
                mine = self.commit_sessions(sha)
                tied_to = self.cs.tied(sha) if sha != ZERO else set()
            ranks = [(e.session_id in mine, sum(1 for x in window if x in e.added)) for e in quals[i]]
            best = max(ranks)
            tied = [e for e, r in zip(quals[i], ranks, strict=True) if r == best]
            if len(tied) > 1:
                # replaced, as supporting evidence only: an edit that also removed what this
                # commit removed beats one that merely wrote the same text.
                replaced = self._replaced_support(self.lines[i], tied)
                chosen[i] = max(tied, key=lambda e: (e.session_id in tied_to, replaced.get(e.edit_id, 0), e.ts,
                                                     e.edit_id))
                top = (chosen[i].session_id in tied_to, replaced.get(chosen[i].edit_id, 0))
                others = sorted({e.session_id for e in tied if e.session_id != chosen[i].session_id
                                 and (e.session_id in tied_to, replaced.get(e.edit_id, 0)) == top})
                if others:
                    alternatives[i] = others
            else:
                chosen[i] = tied[0]
        # 1b. an edit older than the file's commit before this one had that commit to land in:
        #     what it wrote comes here late, as a short or common line alone, or long after.
        for i in self._stale_matches(g, chosen):
            self._stale[i] = sorted({chosen[i].session_id, *alternatives.pop(i, ())})
            del chosen[i]
        # 2. trivial lines inherit from the nearest matched line above or below in the same
        #    block, if that edit also added them. Between two edits' blocks (one appended
        #    after the other) the separating lines came with the newer edit.
        inherited: dict[int, EditRef] = {}
        for pos, i in enumerate(g):
            if not self.trivial[i] or not quals[i]:
                continue
            ids = {q.edit_id for q in quals[i]}
            near = [e for e in self._nearest_matches(g, pos, chosen) if e.edit_id in ids]
            if near:
                mine = self.commit_sessions(sha) if len({e.session_id for e in near}) > 1 else set()
                inherited[i] = max(near, key=lambda e: (e.session_id in mine, e.ts, e.edit_id))
        # 3. lines a person changed before committing: similar to a line the edit matched
        #    around them added. A modified line counts as a neighbour for the next one, so
        #    a rename across a whole block is followed line by line.
        # (a line brought back among new text is no anchor: who wrote the text around it is not known)
        readded = {i for pos, i in enumerate(g) if i in chosen
                   and (r := self._restored_from(g, pos, chosen[i])) is not None and not r[2]}
        modified = self._modified_block(g, {i: e for i, e in chosen.items() if i not in readded})
        if sha in self.moved:
            # a line the deleted file already had at the parent moved here as it was: not changed
            modified = {i: m for i, m in modified.items()
                        if not any(self.hashes[i] in self.bases.deleted_at_parent(sha, p) for p in self.moved[sha])}
        group_has_agent = bool(chosen)
        for pos, i in enumerate(g):
            b = self.lines[i]
            commit = None if b.sha == ZERO else b.sha
            base_kind = "uncommitted" if b.sha == ZERO else "agent"
            e = chosen.get(i) or inherited.get(i)
            if e is not None:
                formatted = self.exacts[i] not in e.added.get(self.hashes[i], set())
                rule = "inherited" if i in inherited else ("formatted" if formatted else "wrote")
                conf = 0.7 if rule == "inherited" else (0.85 if formatted else 0.95)
                if e.user_modified:
                    conf -= 0.1
                ans = self._agent(i, base_kind, commit, e, rule, conf)
                restored = self._restored_from(g, pos, e)
                if restored is not None and not restored[2]:
                    # The commit wrote new text where it brought the line back, or brought it back
                    # days after its removal: the edit that first wrote it does not say who wrote
                    # it again.
                    answers[i] = LineAnswer(line=b.final_line, content=b.content, kind="unknown", commit=commit,
                                            rule="readded", alternatives=(e.session_id,))
                    continue
                if restored is not None:
                    ans = ans.replace(rule="restored", confidence=min(conf, 0.6), original_commit=restored[0],
                                       restoring_commit=restored[1])
                if i in alternatives:
                    # nothing but time separates these sessions' edits: say so
                    ans = ans.replace(alternatives=tuple(alternatives[i]), confidence=min(ans.confidence, 0.5))
                if self._common(i) and self._outside_the_commits_sessions(i, e):
                    # a line the file has many times is no evidence against the sessions the
                    # commit's own record names
                    ans = self._not_the_commits(i, commit, e)
                answers[i] = ans
                continue
            answers[i] = self._unmatched(i, modified.get(i), commit, group_has_agent)

    def _stale_matches(self, g: list[int], chosen: dict[int, EditRef]) -> list[int]:
        """The lines of group ``g`` whose chosen edit is older than the file's commit before
        theirs (that commit did not take the edit's line) and that are either little evidence
        (``_little``: short, or in the file more than once) with no other line of the edit's
        session around them in the commit, or more than ``STALE_S`` older, or of an edit the
        commit took little of (``_landed_in_part``): a person typing the same short line again,
        work set aside for so long that another hand may have redone it, or work redone with a
        line or two alike, is as likely as the edit's line landing late."""
        out = []
        for pos, i in enumerate(g):
            e = chosen.get(i)
            if e is None or not self._older_than_the_last_commit(i, e) or self._restored_from(g, pos, e) is not None:
                continue  # (a restored line did land before: a commit took it, another removed it)
            if self._older_than_the_last_commit(i, e, STALE_S) or self._landed_in_part(i, e):
                out.append(i)
                continue
            if not self._little(i):
                continue
            near = g[max(0, pos - WINDOW): pos + WINDOW + 1]
            if not any(j != i and j in chosen and chosen[j].session_id == e.session_id for j in near):
                out.append(i)
        return out

    def _landed_in_part(self, i: int, e: EditRef) -> bool:
        """Line i's commit brought into the file at most a third of the lines edit e added that
        the commit's parent lacks (and ``LEFT_FEW`` of them or more): what a commit has of an
        edit the file's commit before did not take is its landing when it comes whole, not a
        line or two among other text that redoes the work."""
        sha = self.lines[i].sha
        left = self.bases.added(e.edit_id) - self.bases.parent(sha)
        if len(left) < LEFT_FEW:
            return False
        took = self.history_of(i).added_by(sha)
        return took is not None and 3 * len(left & took) <= len(left)

    def _little(self, i: int) -> bool:
        """Line i says little of who wrote it: a few words (``use std::fs;``, ``#[serde(default)]``)
        or a text the file has more than once."""
        return len(set(_WORDS.findall(self.lines[i].content))) <= FEW_WORDS or self._common(i)

    def _one_per_call(self, edits: list[EditRef]) -> list[EditRef]:
        """One edit per call: edits of several sessions made at the same instant (to the
        millisecond) to the same file, adding the same lines, are copies of one call in copies of
        one conversation (a resumed or forked session): the one of the session that started
        first stands for them (of sessions that started together, the copy read first)."""
        if len(edits) < 2 or len({e.timestamp for e in edits}) == len(edits):
            return edits
        calls: dict[tuple[str, str, frozenset[int]], list[EditRef]] = {}
        for e in edits:
            calls.setdefault((e.timestamp, e.rel_path, frozenset(e.added)), []).append(e)
        if len(calls) == len(edits) or all(len({e.session_id for e in c}) == 1 for c in calls.values()):
            return edits
        return [min(copies, key=lambda e: (self._started(e.session_id), e.edit_id)) if len(copies) > 1 else copies[0]
                for copies in calls.values()]

    def _started(self, session_id: str) -> str:
        row = self.store.evidence.session(session_id)
        return (row["started_at"] if row is not None else None) or "~"

    def _in_block(self, i: int, e: EditRef, quals: dict[int, list[EditRef]]) -> bool:
        """e's session could have written another non-trivial line within ``WINDOW`` lines of
        line i, or every line e wrote is there (a small edit of common lines)."""
        near = range(max(0, i - WINDOW), min(len(self.lines), i + WINDOW + 1))
        for j in near:
            if j != i and not self.trivial[j] and any(x.session_id == e.session_id
                                                      for x in (quals[j] if j in quals else self.qualifying(j))):
                return True
        wrote = self.bases.added(e.edit_id)
        return bool(wrote) and wrote <= {self.hashes[j] for j in near}

    def _in_block_then(self, i: int, e: EditRef) -> bool:
        """In line i's commit's own version of the file (later commits may have rewritten the
        lines around it since), e added another non-trivial line within ``WINDOW`` lines of it
        that the commit's parent did not have."""
        wrote = self.bases.added(e.edit_id)
        if not wrote:
            return False
        b = self.lines[i]
        then = self.bases.at_commit(b.sha, b.orig_path)
        k = b.orig_line - 1
        if not (0 <= k < len(then)) or then[k] != self.hashes[i]:
            return False  # not the version blame read: no block to judge by
        # a neighbour is evidence when e added it and it is new there (its parent lacks it)
        before = self.bases.parent(b.sha)
        return any(then[x] in wrote and then[x] != self.hashes[i] and then[x] not in before
                   for x in range(max(0, k - WINDOW), min(len(then), k + WINDOW + 1)) if x != k)

    def _moved_block(self, i: int, e: EditRef, quals: dict[int, list[EditRef]]) -> bool:
        """Another non-trivial line within ``WINDOW`` lines of line i, of the same commit, could
        have been written by an edit of e's session into e's path (a path line i's commit
        deleted): the two lines moved here together."""
        sha = self.lines[i].sha
        for j in range(max(0, i - WINDOW), min(len(self.lines), i + WINDOW + 1)):
            if j != i and not self.trivial[j] and self.lines[j].sha == sha and any(
                    x.session_id == e.session_id and x.rel_path == e.rel_path
                    for x in (quals[j] if j in quals else self.qualifying(j))):
                return True
        return False

    def _common(self, i: int) -> bool:
        """Line i's text is in the file more than once (``if err != nil {``)."""
        if self._counts is None:
            self._counts = {}
            for h in self.hashes:
                self._counts[h] = self._counts.get(h, 0) + 1
        return self._counts[self.hashes[i]] > 1

    def _restored_from(self, g: list[int], pos: int, e: EditRef) -> tuple[str, str, bool] | None:
        """(original, restoring commit, whether it brings the line back soon after its removal)
        when edit e's line at g[pos] was restored; a trivial line follows the nearest non-trivial
        line of the same edit around it."""
        i = g[pos]
        if not self.trivial[i]:
            return self._restored.get(i, {}).get(e.edit_id)
        for step in (-1, 1):
            p = pos + step
            while 0 <= p < len(g):
                j = g[p]
                if not self.trivial[j]:
                    hit = self._restored.get(j, {}).get(e.edit_id)
                    if hit is not None:
                        return hit
                    break
                p += step
        return None

    def _replaced_support(self, b: BlameLine, edits: list[EditRef]) -> dict[int, int]:
        """For each edit: how many non-trivial lines it removed that the line's commit removed."""
        if b.sha == ZERO:
            return {}
        key = (b.sha, b.orig_path)
        removed_by_commit = self._removed_by_commit.get(key)
        if removed_by_commit is None:
            removed_by_commit = self._removed_by_commit[key] = {
                textnorm.line_hash(r) for _, _, rem, _ in self._commit_hunks(b.sha, b.orig_path) for r in rem}
        if not removed_by_commit:
            return {}
        out: dict[int, int] = {}
        for eid, h in self.store.evidence.removed_lines([e.edit_id for e in edits]):
            if h in removed_by_commit:
                out[eid] = out.get(eid, 0) + 1
        return out

    def _nearest_matches(self, g: list[int], pos: int, chosen: dict[int, EditRef]) -> list[EditRef]:
        """Matched edits of the closest non-trivial lines above and below, nearest first,
        walking only across trivial lines."""
        found: list[tuple[int, EditRef]] = []
        for step in (-1, 1):
            p = pos + step
            while 0 <= p < len(g):
                j = g[p]
                if j in chosen:
                    found.append((abs(p - pos), chosen[j]))
                    break
                if not self.trivial[j]:
                    break
                p += step
        return [e for _, e in sorted(found, key=lambda x: x[0])]

    def _agent(self, i: int, kind: str, commit: str | None, e: EditRef, rule: str, conf: float,
               similarity: float | None = None) -> LineAnswer:
        b = self.lines[i]
        key = (self.hashes[i], e.edit_id)
        later = self._later.get(key)
        if later is None:
            paths = self.paths_of(i)
            later = self._later[key] = sorted({
                x.session_id for ts, x in self._named_edits(self.hashes[i])
                if ts > e.ts and x.session_id != e.session_id and x.rel_path in paths
            })
        return LineAnswer(
            line=b.final_line, content=b.content, kind=kind, commit=commit, session_id=e.session_id,
            provider=e.provider, message_index=e.message_index, tool_call_id=e.call_id, rule=rule, confidence=conf,
            similarity=similarity, later_sessions=later, edit_id=e.edit_id, tool=e.tool,
            edit_path=e.rel_path if e.rel_path != self.t.rel else None,
        )


def _is_head(top: str, rev: str) -> bool:
    """``rev`` is HEAD's own commit id (as `stats` asks): blame's commits are then HEAD's
    history, and the repository's kept commit facts answer for them as for a question
    without a revision."""
    from hansard.git.refs import head_commit

    return len(rev) == 40 and rev == head_commit(top)
