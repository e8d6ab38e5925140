"""The `why` engine: for each line of a file, the archived edit that wrote it.

It applies the attribution rules (the README's `kind` and `rule`) and fails closed: a line gets a session
only when an applied edit, in the same repository, to the same file (renames followed), made
before the line's commit, added that exact line (whitespace aside). Everything else is
``human`` when no session could have written it, and ``unknown`` when one might have.

Matching is by content, never by commit ids remembered from edit time, so amend, rebase,
squash, cherry-pick and revert need no special case: blame names the commit a line lives in
now, and the question is only which edits wrote that text before that commit existed.
"""

from __future__ import annotations

import os
import re
from collections import namedtuple
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from hansard.answers.restored import FileHistory
    from hansard.store.interfaces import Store

from hansard import textnorm
from hansard.answers import evidence
from hansard.answers.evidence import CLOCK_SLACK_S, EditRef, similarity
from hansard.errors import (
    BadLineRange,
    BinaryFile,
    GitError,
    LineOutOfRange,
    MalformedTarget,
    NotAFile,
    NotARepository,
    NotTracked,
    PathOutsideRepository,
    UnknownRevision,
)
from hansard.git import identity
from hansard.git.blame import ZERO, Blame, BlameLine, blame

WINDOW = 3  # lines either side that count as the same block
# From this many lines, a question reaches most of the file's history: its diffs are read at once.
WHOLE_LINES = 100
# Lines either side of a question's range that are answered with it (then left out): the block
# around a line decides which of two edits that added the same text wrote it, as in the whole file.
RANGE_MARGIN = 10
SHORT_LINE_MARGIN = 60  # for a short line called a person's, whose commit's other lines decide
# difflib ratio from which a changed line counts as "the same line, modified". Below ~0.7,
# unrelated lines of the same shape (`a_1 = f(x, 1)` vs `b_2 = g(y, 9)`) start to pass.
SIMILAR = 0.7
_WORD = re.compile(r"\w")  # a trivial line with a word in it may be an agent's; a blank or a brace, anyone's


# top: working tree top level; main_top: its main repository (differs for a worktree).
Target = namedtuple("Target", "top main_top rel start end")

_LINE_FIELDS = ("line content kind commit session_id provider message_index tool_call_id rule confidence"
                " similarity later_sessions edit_id tool block alternatives original_commit restoring_commit")


class LineAnswer(namedtuple("LineAnswer", _LINE_FIELDS, defaults=(None, None, None, None, None, 0.0, None, (), None, None, None, (), None, None))):
    """One line's answer. Named tuples, not dataclasses: this module is on `why`'s start-up path."""

    __slots__ = ()

    def as_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {
            "line": self.line, "content": self.content, "kind": self.kind, "session_id": self.session_id,
            "provider": self.provider, "message_index": self.message_index, "tool_call_id": self.tool_call_id,
            "commit": self.commit, "rule": self.rule, "confidence": round(self.confidence, 2),
        }
        if self.similarity is not None:
            d["similarity"] = round(self.similarity, 2)
        if self.later_sessions:
            d["later_sessions"] = list(self.later_sessions)
        if self.tool:
            d["tool"] = self.tool
        if self.block is not None:
            d["block"] = self.block
        if self.alternatives:
            d["alternatives"] = list(self.alternatives)
        if self.original_commit:
            d["original_commit"] = self.original_commit
            d["restoring_commit"] = self.restoring_commit
        return d


def parse_target(spec: str) -> tuple[str, int | None, int | None]:
    """``PATH``, ``PATH:LINE`` or ``PATH:START-END``. The last colon splits, so Windows
    drive letters and colons inside names still work."""
    path, sep, rng = spec.rpartition(":")
    if not sep or not rng or not all(c.isdigit() or c == "-" for c in rng) or not path:
        return spec, None, None
    lo, dash, hi = rng.partition("-")
    try:
        start = int(lo)
        end = int(hi) if dash else start
    except ValueError:
        raise BadLineRange(f"bad line range {rng!r}: use LINE or START-END") from None
    if start < 1 or end < 1:
        raise BadLineRange(f"line numbers start at 1, got {rng!r}")
    if start > end:
        raise BadLineRange(f"START {start} is after END {end}")
    return path, start, end


def resolve_target(path: str, start: int | None, end: int | None, *, cwd: str | None = None,
                   check_exists: bool = True) -> Target:
    p = os.path.abspath(os.path.join(cwd or os.getcwd(), path))
    if os.path.isdir(p):
        raise NotAFile(f"{path} is a directory; give a file")
    tops = identity.find_toplevel(p)
    if tops is None:
        raise NotARepository(f"{path} is not inside a git repository")
    top, main_top = tops
    real_top = os.path.realpath(top)
    rel = identity.relpath_in(real_top, os.path.realpath(p)) or identity.relpath_in(top, p)
    if rel is None:
        raise PathOutsideRepository(f"{path} is outside the repository at {top}")
    if check_exists and not os.path.exists(p):
        head, colon, tail = path.rpartition(":")
        if colon and os.path.isfile(os.path.join(cwd or os.getcwd(), head)):
            raise MalformedTarget(f"{path}: {tail!r} is not a line or a range; give PATH:LINE or PATH:START-END")
        raise NotAFile(f"{path} does not exist")
    return Target(top, main_top, rel, start, end)


def file_text(t: Target, rev: str | None, contents: bytes | None) -> bytes:
    if contents is not None:
        return contents
    if rev:
        from hansard.git.run import git

        try:
            return git(["show", f"{rev}:{t.rel}"], t.top)
        except GitError as exc:
            from hansard.git.refs import resolve_commit

            if resolve_commit(t.top, rev) is None:
                raise UnknownRevision(f"--rev {rev} names no commit of the repository at {t.top}") from exc
            raise NotTracked(f"{t.rel} does not exist at {rev}") from exc
    full = os.path.join(t.top, t.rel)
    if os.path.islink(full):
        # git tracks a symlink as the text of its target, and blames that one line.
        return os.fsencode(os.readlink(full))
    import stat

    try:
        regular = stat.S_ISREG(os.stat(full).st_mode)
    except OSError as exc:
        raise NotAFile(f"{t.rel} cannot be read: {exc.strerror}") from None
    if not regular:  # a FIFO or a device would block or never end
        raise NotAFile(f"{t.rel} is not a regular file")
    with open(full, "rb") as fh:
        return fh.read()


def check_range(t: Target, data: bytes) -> int:
    if b"\0" in data[:8000]:
        raise BinaryFile(f"{t.rel} is a binary file")
    n = data.count(b"\n") + (0 if data.endswith(b"\n") or not data else 1)
    if t.start is not None and t.start > n:
        raise LineOutOfRange(f"{t.rel} has {n} lines; line {t.start} is past the end")
    if t.end is not None and t.end > n:
        raise LineOutOfRange(f"{t.rel} has {n} lines; line {t.end} is past the end")
    return n


def run_blame(t: Target, rev: str | None, contents: bytes | None) -> Blame:
    try:
        return blame(t.top, t.rel, rev=rev, start=t.start, end=t.end, contents=contents)
    except GitError as exc:
        msg = exc.message
        if "no such path" in msg or "no such ref" in msg and rev is None:
            raise NotTracked(f"{t.rel} is not tracked by git; commit it first (or pass --contents)") from exc
        raise


class Prepared:
    """What the answer needs of the question's lines themselves, whoever blame names: their
    hashes and the edits that added such lines (computed while git blame runs)."""

    def __init__(self, store: Store, repo_id: int, texts: list[str], basename: str,
                 paths: set[str] | None = None) -> None:
        self.texts = texts
        facts = {x: textnorm.line_facts(x) for x in set(texts)}  # a file repeats its common lines
        self.hashes = [facts[x][0] for x in texts]
        self.exacts = [facts[x][1] for x in texts]
        self.trivial = [facts[x][2] for x in texts]
        self.untimed: dict[int, set[str]] = {}  # hash -> paths that edits with no time added it to
        self.placed: dict[int, set[str | None]] = {}  # hash -> paths that timed edits added it to
        hashes = set(self.hashes)
        # With ``paths`` (the file's names as far as known before blame), only the edits of
        # those paths are loaded whole; of the others, only where and when.
        self.paths = paths
        self.edits, self.by_hash = evidence.load_candidates(store, repo_id, hashes, untimed=self.untimed,
                                                            paths=paths, placed=self.placed)
        self.unlinked = evidence.unlinked_hashes(store, hashes, basename)

    def add_paths(self, store: Store, repo_id: int, paths: set[str]) -> None:
        """Also the edits of these paths, loaded whole (blame named a file the question did
        not know of: a copy's source)."""
        edits, by_hash = evidence.load_candidates(store, repo_id, set(self.hashes), paths=paths)
        for eid, e in edits.items():
            if e.rel_path in paths and eid not in self.edits:
                self.edits[eid] = e
        for h, ids in by_hash.items():
            new = [eid for eid in ids if eid in edits and edits[eid].rel_path in paths
                   and eid not in self.by_hash.get(h, ())]
            if new:
                self.by_hash.setdefault(h, []).extend(new)
        self.paths = (self.paths or set()) | paths


class Attributor:
    """Attributes the blamed lines of one file. One instance per question."""

    def __init__(self, store: Store, t: Target, repo_id: int, bl: Blame, rev: str | None = None,
                 history: FileHistory | None = None, pre: Prepared | None = None) -> None:
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
        from hansard.answers.commit_sessions import CommitSessions
        from hansard.answers.restored import FileHistory

        self.history = history or FileHistory(store, t.top, t.rel, rev)
        self.placed = pre.placed
        self.names = {t.rel} | {b.orig_path for b in self.lines}
        if any(p not in self.names for ps in self.placed.values() for p in ps):  # an edit of another path
            if rev is None:  # the `git log --follow` of HEAD that the history already ran
                self.names |= self.history.names()
            else:
                from hansard.git.history import path_names

                self.names |= path_names(t.top, t.rel)
        if pre.paths is not None and not self.names <= pre.paths:
            pre.add_paths(store, repo_id, self.names - pre.paths)
        self.unlinked = pre.unlinked
        self._texts: dict[int, list[str]] = {}
        self._shell: float | None | bool = False  # False: not looked up yet
        self._has_edits: bool | None = None
        self._hunks: dict[tuple[str, str], list[tuple[int, int, list[str], str | None]]] = {}
        self.cs = CommitSessions(store, t.top, repo_id, bl)
        self.by_commit: dict[str, list[int]] = {}
        for i, b in enumerate(self.lines):
            self.by_commit.setdefault(b.sha, []).append(i)
        self._loose: list[list[EditRef] | None] = [None] * len(self.lines)
        self._loose_by: dict[tuple[int, str], list[EditRef]] = {}
        self._quals: list[list[EditRef] | None] = [None] * len(self.lines)
        self._commit_sessions: dict[str, frozenset[str]] = {}
        self._restored: dict[int, dict[int, tuple[str, str]]] = {}  # line -> edit -> (original, restoring)
        self._file_edits: list[tuple[float | None, Any]] | None = None
        self._removed_writers: dict[int, list[EditRef]] = {}  # removed line hash -> edits that added it
        self._scored: dict[int, list[tuple[list[tuple[float, str]], str | None]]] = {}
        self._removed_by_commit: dict[tuple[str, str], set[int]] = {}
        self._later: dict[tuple[int, int], list[str]] = {}  # (line hash, edit) -> later sessions
        # line hash -> (time, edit) of the edits that added it to this file, in by_hash order
        self._named: dict[int, list[tuple[float, EditRef]]] = {}
        self._absent: dict[int, list[str]] = {}  # edit -> its added lines no longer in the file
        self._present = set(self.hashes)
        self._other_path: dict[int, bool] = {}  # line hash -> an edit added it to another file

    # -- rules ----------------------------------------------------------------------

    def commit_time(self, sha: str) -> float | None:
        if sha == ZERO:
            return None
        c = self.bl.commits.get(sha)
        return float(c.committer_time) if c else None

    def loose(self, i: int) -> list[EditRef]:
        """Edits that added line i's text to this file (renames followed) before its commit's
        committer time."""
        out = self._loose[i]
        if out is None:
            # the same text in the same commit has the same edits: common lines repeat
            key = (self.hashes[i], self.lines[i].sha)
            out = self._loose_by.get(key)
            if out is None:
                bound = self.commit_time(self.lines[i].sha)
                named = self._named_edits(self.hashes[i])
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
        """The sessions whose edits account for the commit's distinctive lines in this file."""
        if sha == ZERO:
            return {}
        return self.cs.weights(sha, self.by_commit.get(sha, []), self.loose, self.trivial)

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
        self._quals[i] = out
        return out

    def _unrestored(self, i: int, quals: list[EditRef]) -> list[EditRef]:
        """The edits whose line no commit removed between them and line i's commit; when there
        are none, all of them, remembered as restored (first landed where, restored by whom)."""
        sha, h = self.lines[i].sha, self.hashes[i]
        removed = {e.edit_id: self.history.removed_since(h, e.ts, sha) for e in quals}
        direct = [e for e in quals if removed[e.edit_id] is None]
        if direct:
            return direct
        self._restored[i] = {e.edit_id: (self.history.first_landed(h, e.ts, sha) or removed[e.edit_id] or sha, sha)
                             for e in quals}
        return quals

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
        answers: list[LineAnswer | None] = [None] * len(self.lines)
        if self.history.whole:
            # the file versions that may show an edit's line removed, read in one git process
            self.history.prefetch_removals(list({(self.hashes[i], e.ts, b.sha) for i, b in enumerate(self.lines)
                                                 if not self.trivial[i] and b.sha != ZERO for e in self.loose(i)}))
        for g in self.groups():
            self._answer_group(g, answers)
        return [a for a in answers if a is not None]

    def _answer_group(self, g: list[int], answers: list[LineAnswer | None]) -> None:
        quals = {i: self.qualifying(i) for i in g}
        chosen: dict[int, EditRef] = {}
        alternatives: dict[int, list[str]] = {}
        sha = self.lines[g[0]].sha
        mine: set[str] | None = None  # the commit's sessions, looked up at the first line that asks
        tied_to: set[str] = set()
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
            tied = [e for e, r in zip(quals[i], ranks) if r == best]
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
        modified = self._modified_block(g, chosen)
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
                if restored is not None:
                    ans = ans._replace(rule="restored", confidence=min(conf, 0.6), original_commit=restored[0],
                                       restoring_commit=restored[1])
                if i in alternatives:
                    # nothing but time separates these sessions' edits: say so
                    ans = ans._replace(alternatives=tuple(alternatives[i]), confidence=min(ans.confidence, 0.5))
                answers[i] = ans
                continue
            answers[i] = self._unmatched(i, modified.get(i), commit, group_has_agent)

    def _restored_from(self, g: list[int], pos: int, e: EditRef) -> tuple[str, str] | None:
        """(original, restoring commit) when edit e's line at g[pos] was restored; a trivial
        line follows the nearest non-trivial line of the same edit around it."""
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
            later = self._later[key] = sorted({
                x.session_id for ts, x in self._named_edits(self.hashes[i]) if ts > e.ts and x.session_id != e.session_id
            })
        return LineAnswer(
            b.final_line, b.content, kind, commit, e.session_id, e.provider, e.message_index, e.call_id, rule, conf,
            similarity, later, e.edit_id, e.tool,
        )

    def _unmatched(self, i: int, in_commit: tuple[EditRef, float, str] | None, commit: str | None,
                   group_has_agent: bool) -> LineAnswer:
        b = self.lines[i]
        if b.sha == ZERO:
            return LineAnswer(b.final_line, b.content, "uncommitted", None, rule=None, confidence=0.0)
        if not self.trivial[i]:
            if in_commit is not None and in_commit[0].session_id not in self.commit_sessions(b.sha):
                # the edit matched around the line is not one the commit's sessions made
                mod = self._modified_later(i) or in_commit
            else:
                mod = in_commit or self._modified_later(i)
            if mod is not None:
                e, sim, rule = mod
                return self._agent(i, "agent_modified", commit, e, rule, round(0.8 * sim, 2), sim)
            if self._elsewhere(self.hashes[i]):
                return LineAnswer(b.final_line, b.content, "unknown", commit, rule="other_path")
            if self.hashes[i] in self.unlinked:
                return LineAnswer(b.final_line, b.content, "unknown", commit, rule="unlinked_session")
            if self.untimed.get(self.hashes[i], set()) & self.names:
                return LineAnswer(b.final_line, b.content, "unknown", commit, rule="untimed")
        elif group_has_agent or self._short_line_of_the_commits_sessions(i):
            return LineAnswer(b.final_line, b.content, "unknown", commit, rule="trivial")
        if self._shell_touched(b.sha):
            return LineAnswer(b.final_line, b.content, "unknown", commit, rule="shell_command")
        return LineAnswer(b.final_line, b.content, "human", commit, rule="no_session", confidence=0.9)

    def _short_line_of_the_commits_sessions(self, i: int) -> bool:
        """A trivial line with a word in it (``"io"``, ``return None``; not a blank line or a
        lone brace, which everyone writes) that an edit of a session that made its commit
        added to this file: too short to be evidence, too likely the agent's to call human."""
        if not _WORD.search(self.lines[i].content):
            return False
        sessions = self.commit_sessions(self.lines[i].sha)
        return any(e.session_id in sessions for e in self.qualifying(i))

    def _elsewhere(self, h: int) -> bool:
        """An edit added the line ``h`` to another file of this repository."""
        out = self._other_path.get(h)
        if out is None:
            out = self._other_path[h] = any(p not in self.names for p in self.placed.get(h, ()))
        return out

    def _added_texts(self, edit_id: int) -> list[str]:
        if edit_id not in self._texts:
            self._texts[edit_id] = evidence.added_texts(self.store, edit_id)
        return self._texts[edit_id]

    def _absent_texts(self, edit_id: int) -> list[str]:
        """The non-trivial lines the edit added that are no longer in the file, in its order."""
        out = self._absent.get(edit_id)
        if out is None:
            present = self._present
            out = self._absent[edit_id] = [x for x in self._added_texts(edit_id)
                                           if not (textnorm.line_hash(x) in present or textnorm.is_trivial(x))]
        return out

    def _modified_block(self, g: list[int], chosen: dict[int, EditRef]) -> dict[int, tuple[EditRef, float, str]]:
        if not chosen:
            return {}
        found: dict[int, tuple[EditRef, float, str]] = {}
        todo = [pos for pos, i in enumerate(g) if i not in chosen and not self.trivial[i]]
        changed = True
        while changed and todo:
            changed = False
            anchors = {**chosen, **{j: m[0] for j, m in found.items()}}
            for pos in list(todo):
                hit = self._modified_in_commit(g, pos, anchors)
                if hit is not None:
                    found[g[pos]] = hit
                    todo.remove(pos)
                    changed = True
        return found

    def _modified_in_commit(self, g: list[int], pos: int, chosen: dict[int, EditRef]
                            ) -> tuple[EditRef, float, str] | None:
        """The agent's edit is matched right around this line, and it added a similar line
        that is no longer in the file: a human changed it before committing."""
        i = g[pos]
        near = {chosen[j].edit_id: chosen[j] for j in g[max(0, pos - WINDOW): pos + WINDOW + 1] if j in chosen}
        best: tuple[float, EditRef] | None = None
        for e in near.values():
            for text in self._absent_texts(e.edit_id):
                sim = similarity(text, self.lines[i].content, SIMILAR)
                if sim >= SIMILAR and (best is None or sim > best[0]):
                    best = (sim, e)
        return (best[1], best[0], "modified") if best else None

    def _modified_later(self, i: int) -> tuple[EditRef, float, str] | None:
        """The line's commit replaced a similar line that an agent's edit had written."""
        b = self.lines[i]
        bound = self.commit_time(b.sha)
        if bound is None or not self._path_has_edits():
            return None
        for scored, old_path in self._similar_removed(i):
            if scored and scored[0][0] >= SIMILAR:
                # The commit rewrote this region: the version the person changed is the last
                # one an edit of the commit's own sessions wrote there, if any did.
                own = self._commit_session_version(i, bound)
                if own is not None:
                    return own
            for sim, r in scored:
                if sim < SIMILAR:
                    break
                names = self.names | ({old_path} if old_path else set())
                quals = [e for e in self._writers(i, textnorm.line_hash(r))
                         if e.rel_path in names and e.ts <= bound + CLOCK_SLACK_S]
                if quals:
                    return max(quals, key=lambda e: (e.ts, e.edit_id)), sim, "modified"
        return None

    def _similar_removed(self, i: int) -> list[tuple[list[tuple[float, str]], str | None]]:
        """For each hunk of line i's commit around the line: the lines it removed, scored by
        likeness to line i (0.0 below ``SIMILAR``), best first, and the file's old name."""
        out = self._scored.get(i)
        if out is None:
            b = self.lines[i]
            out = self._scored[i] = [
                (sorted(((similarity(r, b.content, SIMILAR), r) for r in removed), reverse=True), old_path)
                for lo, hi, removed, old_path in self._commit_hunks(b.sha, b.orig_path) if lo <= b.orig_line < hi
            ]
        return out

    def _writers(self, i: int, h: int) -> list[EditRef]:
        """The timed edits in this repository that added ``h``, a line similar to line i that
        its commit removed. Looked up at once for every such line of line i, or, for a whole
        file, of every line."""
        got = self._removed_writers.get(h)
        if got is None:
            todo = range(len(self.lines)) if self.history.whole else (i,)
            hashes = {textnorm.line_hash(r) for j in todo if not self.trivial[j] and self.lines[j].sha != ZERO
                      for scored, _ in self._similar_removed(j) for sim, r in scored if sim >= SIMILAR}
            hashes = {x for x in hashes if x not in self._removed_writers} | {h}
            edits, by_hash = evidence.load_candidates(self.store, self.repo_id, hashes)
            for x in hashes:
                self._removed_writers[x] = [edits[eid] for eid in by_hash.get(x, ())]
            got = self._removed_writers[h]
        return got

    def _commit_session_version(self, i: int, bound: float) -> tuple[EditRef, float, str] | None:
        """The newest edit, by one of the sessions of line i's commit and before it, that added a
        line similar to line i that is no longer in the file."""
        from hansard.answers.evidence import parse_ts

        mine = self.commit_sessions(self.lines[i].sha)
        if not mine:
            return None
        if self._file_edits is None:  # (time, row), each timestamp parsed once for every line that asks
            self._file_edits = [(parse_ts(r["timestamp"]), r)
                                for r in self.store.evidence.applied_edits(self.repo_id, sorted(self.names))]
        best: tuple[float, float, EditRef] | None = None
        for ts, r in self._file_edits:
            if r["session_id"] not in mine or ts is None or ts > bound + CLOCK_SLACK_S:
                continue
            if best is not None and ts < best[0]:
                continue
            for text in self._absent_texts(r["id"]):
                sim = similarity(text, self.lines[i].content, SIMILAR)
                if sim >= SIMILAR and (best is None or (ts, sim) > best[:2]):
                    e = EditRef(r["id"], r["session_id"], r["provider"], r["call_id"], r["message_index"],
                                r["rel_path"], ts, r["timestamp"], False, r["tool"])
                    best = (ts, sim, e)
        return (best[2], best[1], "modified") if best else None

    def _path_has_edits(self) -> bool:
        if self._has_edits is None:
            self._has_edits = evidence.repo_has_edits(self.store, self.repo_id, self.names)
        return self._has_edits

    def _commit_hunks(self, sha: str, path: str) -> list[tuple[int, int, list[str], str | None]]:
        """(first new line, end, non-trivial removed lines, old path) per hunk of one commit's
        change to this file; computed once per commit."""
        key = (sha, path)
        if key not in self._hunks:
            # The file's history (one `git log`, diffs cached) has the commit's hunks; a merge,
            # or a commit outside it, is asked of git alone.
            hit = self.history.commit(sha)
            if hit is not None and hit[0].path == path and len(hit[0].parents) <= 1:
                rows, old_path = hit[1], hit[0].old_path
            else:
                from hansard.link.landing import commit_diff

                diff = commit_diff(self.store, self.t.top, sha, path)
                rows = [(h.old_start, h.old_lines, h.new_start, h.new_lines, h.lines) for h in diff.hunks] if diff else []
                old_path = diff.old_path if diff else None
            out = []
            for _, _, new_start, new_lines, lines in rows:
                if new_start is None:
                    continue
                removed = [ln[1:] for ln in lines if ln.startswith("-") and not textnorm.is_trivial(ln[1:])]
                if removed:
                    out.append((new_start, new_start + max(new_lines or 0, 1), removed, old_path))
            self._hunks[key] = out
        return self._hunks[key]

    def _shell_touched(self, sha: str) -> bool:
        """Only shell commands run before a commit could have written its lines."""
        if self._shell is False:
            self._shell = evidence.first_shell_write(self.store, self.repo_id, os.path.basename(self.t.rel))
        if self._shell is None:
            return False
        bound = self.commit_time(sha)
        return bound is None or self._shell < bound + CLOCK_SLACK_S


def explain(store: Store, spec: str, *, rev: str | None = None, contents: bytes | None = None,
            cwd: str | None = None, cache: bool = True, sync: Callable[[], bool] | None = None) -> dict[str, Any]:
    """The `why` answer for ``PATH[:LINE[-END]]`` as the README's `hansard why --json` contract.
    With ``cache``, an answer already given for the same revision, bytes, question and store
    generation is served from the store's why-result cache (see ``_cached``). ``sync``, the
    caller's incremental index (True when it found something to read), runs while git blames."""
    doc, raw = _explain(store, spec, rev, contents, cwd, cache, sync)
    if doc is None:
        import json

        doc = json.loads(raw)  # type: ignore[arg-type]
    return doc


def explain_json(store: Store, spec: str, *, rev: str | None = None, contents: bytes | None = None,
                 cwd: str | None = None, cache: bool = True, sync: Callable[[], bool] | None = None) -> bytes:
    """``explain``'s answer as the JSON document `hansard why --json` prints (UTF-8, compact,
    no final newline): from the cache as stored, without decoding it."""
    doc, raw = _explain(store, spec, rev, contents, cwd, cache, sync)
    return raw if raw is not None else to_json(doc)  # type: ignore[arg-type]


# From this many lines, orjson's encoder saves more than its import costs (~15 ms, with
# dataclasses and uuid). Both write the same bytes: compact, no indentation (a machine
# reads it; indenting cost more than all the rest of the encoding).
ORJSON_LINES = 200
ORJSON_BYTES = 64 * 1024  # the same trade-off for decoding a document


def to_json(doc: dict[str, Any]) -> bytes:
    if len(doc["lines"]) >= ORJSON_LINES:
        import orjson

        return orjson.dumps(doc, default=str)
    import json

    return json.dumps(doc, ensure_ascii=False, separators=(",", ":"), default=str).encode("utf-8", "surrogateescape")


def _explain(store: Store, spec: str, rev: str | None, contents: bytes | None, cwd: str | None, cache: bool,
             sync: Callable[[], bool] | None = None) -> tuple[dict[str, Any] | None, bytes | None]:
    """(answer, its JSON document): a cached answer as its document alone, a fresh one as the
    answer, with its document when it was cached. ``sync`` runs before anything read from the
    store is used: after a cache hit (served only if it found nothing new), or while git blames
    (blame reads git, never the store)."""
    from hansard.link.repos import repo_for

    path, start, end = parse_target(spec)
    t = resolve_target(path, start, end, cwd=cwd, check_exists=contents is None and rev is None)
    data = file_text(t, rev, contents)
    n = check_range(t, data)
    repo_id = repo_for(store, t.main_top)
    # An index elsewhere may still be adding what this file's answer needs (its first run, an
    # edit of it not linked yet, or this repository, which it could not register meanwhile):
    # the answer says so and is never cached.
    def still_building() -> bool:
        return store.archive.building(os.path.basename(t.rel)) or (repo_id == -1 and store.archive.index_running())

    building = still_building()
    cached = _cached(store, t, rev, contents, data, repo_id) if cache and not building else None
    if cached is not None and cached[2] is not None:
        if sync is None or not sync():
            return None, _with_contents(cached[2], data)
        return _explain(store, spec, rev, contents, cwd, cache)  # something new was read: look again
    asked = t  # a range is answered with the lines around it: locality decides between copies
    if t.start is not None:
        t = t._replace(start=max(1, t.start - RANGE_MARGIN), end=min(n, t.end + RANGE_MARGIN))
    blamed = _in_thread(run_blame, t, rev, contents)
    if sync is not None and sync():
        # New sessions were read while git blamed: the store's generation (the cache key) and
        # what is still being indexed are read again.
        building = still_building()
        cached = _cached(store, asked, rev, contents, data, repo_id) if cache and not building else None
    from hansard.answers.restored import FileHistory

    history = FileHistory(store, t.top, t.rel, rev, whole=t.start is None or t.end - t.start >= WHOLE_LINES)
    history.prefetch()  # the file's `git log` runs beside blame
    # While git blames (the other core): what the answer needs of the lines' own text and of
    # the file's history. Attributor checks that blame gave these very lines.
    failed = None
    try:
        texts = _file_lines(data)[:n][(t.start or 1) - 1:t.end]
        # the file's names in its history (its `git log` is quicker than blame)
        pre = Prepared(store, repo_id, texts, os.path.basename(t.rel), paths=history.names())
        history.prepare()
    except Exception as exc:  # noqa: BLE001 - blame's own error, if any, is the one to report
        failed = exc
    bl = blamed()
    if failed is not None:
        raise failed
    answers = Attributor(store, t, repo_id, bl, rev, history, pre).answer()
    if asked.start is not None and any(pre.trivial[k] and a.rule == "no_session" and asked.start <= a.line <= asked.end
                                       for k, a in enumerate(answers)):
        # A short asked line called a person's may still be its commit's sessions', which only
        # that commit's other lines, further away, can tell: answered again with more around it.
        t = asked._replace(start=max(1, asked.start - SHORT_LINE_MARGIN), end=min(n, asked.end + SHORT_LINE_MARGIN))
        bl = run_blame(t, rev, contents)
        answers = Attributor(store, t, repo_id, bl, rev, history).answer()
    if any(a.kind == "human" for a in answers):
        from hansard.answers.pasted import mark_pasted

        def whole() -> tuple[Blame, list[LineAnswer]]:  # a range's neighbours decide a pasted run
            tw = t._replace(start=None, end=None)
            bw = run_blame(tw, rev, contents)
            history.whole = True
            return bw, Attributor(store, tw, repo_id, bw, rev, history).answer()

        # human lines copied from a web chat
        answers = mark_pasted(store, bl, answers, whole=None if t.start is None else whole)
    if asked.start is not None:
        answers = [a for a in answers if asked.start <= a.line <= asked.end]
    ans = render_contract(store, asked, rev, bl, answers)
    if building:
        ans["indexing"] = True
    if cached is None:
        return ans, None
    raw = to_json(ans)
    stored = _without_contents(ans, data)
    if stored is not None:
        cached[0].put(cached[1], cached[3], stored)
    return ans, raw


def _in_thread(fn: Any, *args: Any) -> Any:
    """Start ``fn(*args)`` in a thread (in this context: an MCP call's git deadline reaches it);
    the function returned waits for it and gives its result or raises its error."""
    import contextvars
    import threading

    box: dict[str, Any] = {}
    ctx = contextvars.copy_context()

    def run() -> None:
        try:
            box["out"] = ctx.run(fn, *args)
        except BaseException as exc:  # noqa: BLE001 - raised again in the caller's thread
            box["err"] = exc

    th = threading.Thread(target=run, daemon=True)
    th.start()

    def result() -> Any:
        th.join()
        if "err" in box:
            raise box["err"]
        return box["out"]

    return result


def _file_lines(data: bytes) -> list[str]:
    """The file's lines as blame gives them (UTF-8, undecodable bytes kept, no line end)."""
    return [ln.rstrip("\r") for ln in data.decode("utf-8", "surrogateescape").split("\n")]


def _without_contents(ans: dict[str, Any], data: bytes) -> bytes | None:
    """The answer's document for the cache, each line's text left out (null): the text is the
    file's own, which git and the file give again, and it may hold a committed secret that the
    store must not keep (README: secrets). None when the file's lines do not give back the
    texts blame gave (then the answer is not cached at all)."""
    lines = _file_lines(data)
    out = []
    for ln in ans["lines"]:
        n = ln["line"]
        if n > len(lines) or lines[n - 1] != ln["content"]:
            return None
        out.append({**ln, "content": None})
    return to_json({**ans, "lines": out})


def _with_contents(stored: bytes, data: bytes) -> bytes:
    """A cached document with each line's text put back from the file's bytes."""
    lines = _file_lines(data)
    if len(stored) >= ORJSON_BYTES:
        import orjson

        doc = orjson.loads(stored)
    else:
        import json

        doc = json.loads(stored)
    for ln in doc["lines"]:
        ln["content"] = lines[ln["line"] - 1]
    return to_json(doc)


# Part of every cache key: a change to what an answer holds must not be served from old rows.
CACHE_FORMAT = 2  # 2: lines stored without their text
# The modules whose code decides an answer: a checkout that changes one (same version number)
# gets fresh answers.
_ANSWER_CODE = ("answers/why.py", "answers/evidence.py", "answers/commit_sessions.py", "answers/restored.py",
                "answers/pasted.py", "git/blame.py", "textnorm.py")


def _code_stamp() -> tuple[int, ...]:
    top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    out = []
    for rel in _ANSWER_CODE:
        try:
            out.append(os.stat(os.path.join(top, rel)).st_mtime_ns)
        except OSError:
            out.append(0)
    return tuple(out)


def _cached(store: Store, t: Target, rev: str | None, contents: bytes | None, data: bytes, repo_id: int
            ) -> tuple[Any, str, bytes | None, int] | None:
    """(cache, key, the cached JSON document or None, generation) when the store keeps answers; None
    when it does not (a store wrapped with a team's evidence: the team's rows change without
    the local generation) or the revision names no commit.

    The key is a hash of all an answer depends on: the commit of HEAD (or ``rev``), the
    file's bytes (the working tree's, or ``contents``), the question (path, line range), the
    files git blame reads beside history (``.git-blame-ignore-revs``, ``.mailmap``), the
    repository, hansard's version and the store generation (a newly indexed transcript, a
    linked repository or a re-dated edit changes it)."""
    cache = store.why_cache if hasattr(type(store), "why_cache") else None  # type: ignore[attr-defined]
    if cache is None:
        return None
    generation = cache.generation()
    if generation is None:
        return None
    from hansard.git.refs import head_commit, resolve_commit

    commit = resolve_commit(t.top, rev) if rev else head_commit(t.top)
    if commit is None:
        return None
    try:  # the C module directly: hashlib loads OpenSSL too
        from _blake2 import blake2b
    except ImportError:  # pragma: no cover - not CPython
        from hashlib import blake2b

    from hansard import __version__

    h = blake2b(digest_size=20)
    h.update(repr((CACHE_FORMAT, __version__, _code_stamp(), generation, repo_id, t.top, t.main_top, t.rel,
                   t.start, t.end, rev, commit, contents is not None)).encode("utf-8", "surrogateescape"))
    for name in (".git-blame-ignore-revs", ".mailmap"):
        try:
            with open(os.path.join(t.top, name), "rb") as fh:
                side = fh.read()
        except OSError:
            side = None
        h.update(repr(side).encode())
    h.update(data)
    key = h.hexdigest()
    return cache, key, cache.get(key), generation


def render_contract(store: Store, t: Target, rev: str | None, bl: Blame, answers: list[LineAnswer]
                    ) -> dict[str, Any]:
    from hansard.git.run import git_text

    resolved = None
    if rev:
        try:
            resolved = git_text(["rev-parse", "--verify", f"{rev}^{{commit}}"], t.top).strip()
        except GitError:
            resolved = rev
    sessions: dict[str, dict[str, Any]] = {}
    prompts: dict[tuple[str, int | None], tuple[int, str] | None] = {}  # lines of one call share its prompt
    for a in answers:
        if a.session_id is None:
            continue
        s = sessions.get(a.session_id)
        if s is None:
            row = store.evidence.session(a.session_id)
            s = sessions[a.session_id] = {
                "title": row["title"] if row else None,
                "started_at": row["started_at"] if row else None,
                "provider": row["provider"] if row else a.provider,
                "parent_session_id": row["parent_session_id"] if row else None,
                "prompt": None,
                "prompts": {},
            }
            if row is not None and "member" in row.keys():  # a teammate's session (hansard.team)
                s["member"], s["member_name"] = row["member"], row["member_name"]
        key = (a.session_id, a.message_index)
        p = prompts[key] if key in prompts else prompts.setdefault(key, evidence.prompt_for(store, *key))
        if p is not None:
            s["prompts"][str(p[0])] = p[1]
            if s["prompt"] is None:
                s["prompt"] = p[1]
    named = {x for a in answers for x in (a.commit, a.original_commit, a.restoring_commit) if x}
    commits = {
        sha: {"summary": c.summary, "author": c.author, "author_time": c.author_time, "author_tz": c.author_tz,
              "committer_time": c.committer_time}
        for sha, c in bl.commits.items() if sha != ZERO and (t.start is None or sha in named)
    }
    return {
        "path": t.rel,
        "rev": resolved,
        "lines": [a.as_dict() for a in answers],
        "sessions": sessions,
        "commits": commits,
    }


__all__ = ["explain", "parse_target"]
