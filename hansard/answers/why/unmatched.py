"""The rules for a line that no edit's block wrote directly: ``modified`` (a person changed an
agent's line, before committing or in a later commit), and otherwise ``unknown`` with its reason
(other_path, unlinked_session, untimed, trivial, unreadable_edit, shell_command) or ``human``
(no_session).

A mixin of the engine's ``Attributor``: it reads the state the engine built for the question.
"""

from __future__ import annotations

import os
import re
from bisect import bisect_left
from typing import TYPE_CHECKING

from hansard.answers import evidence
from hansard.answers.evidence import CLOCK_SLACK_S, EditRef, parse_ts, similar_texts
from hansard.answers.why.line import LineAnswer
from hansard.git.blame import ZERO
from hansard.text import textnorm

if TYPE_CHECKING:
    from typing import Any

    from hansard.answers.restored import FileHistory
    from hansard.answers.why.bases import Bases
    from hansard.answers.why.commits import CommitSessions
    from hansard.answers.why.target import Target

WINDOW = 3  # lines either side that count as the same block
# difflib ratio from which a changed line counts as "the same line, modified". Below ~0.7,
# unrelated lines of the same shape (`a_1 = f(x, 1)` vs `b_2 = g(y, 9)`) start to pass.
SIMILAR = 0.7
# An edit older than the file's commit before its line's by more than this wrote for another
# version of the file: a month is longer than a branch's work waits to be committed.
STALE_S = 30 * 86400
_WORD = re.compile(r"\w")  # a trivial line with a word in it may be an agent's; a blank or a brace, anyone's


class Unmatched:
    """The unmatched-line rules of ``hansard.answers.why.engine.Attributor``."""

    # set by the engine
    lines: Any
    hashes: list[int]
    trivial: list[bool]
    names: set[str]
    store: Any
    cs: CommitSessions
    by_commit: dict[str, list[int]]
    _distinct: dict[str, set[str]]
    t: Target
    repo_id: int
    history: FileHistory
    placed: dict[int, set[str | None]]
    _texts: dict[int, list[str]]
    _shell: float | None | bool
    _has_edits: bool | None
    _hunks: dict[tuple[str, str], list[tuple[int, int, list[str], str | None]]]
    _file_edits: list[tuple[float | None, Any]] | None
    _commit_times: list[int] | None
    _unreadable: list[tuple[float | None, Any]] | None
    _added_hunks: dict[tuple[str, str, int], bool]
    _first_edit_ts: float | None
    _removed_writers: dict[int, list[EditRef]]
    _scored: dict[int, list[tuple[list[tuple[float, str]], str | None]]]
    _absent: dict[int, list[str]]
    _present: set[int]
    _gone: dict[str, bool]
    _other_path: dict[tuple[int, frozenset[str]], bool]
    unlinked: set[int]
    _off_base: dict[int, list[str]]
    _lone_common: dict[int, list[str]]
    _copied: dict[int, list[str]]
    _stale: dict[int, list[str]]
    untimed: dict[int, set[str]]
    bases: Bases
    _file_delegations: list[tuple[float, str]] | None
    _unread_by_commit: dict[str, list[str]]

    if TYPE_CHECKING:  # the engine's rules these steps build on (hansard.answers.why.engine.Attributor)
        def commit_time(self, sha: str) -> float | None: ...
        def loose(self, i: int) -> list[EditRef]: ...
        def history_of(self, i: int) -> FileHistory: ...
        def paths_of(self, i: int) -> frozenset[str]: ...
        def own_paths(self, i: int) -> frozenset[str]: ...
        def commit_sessions(self, sha: str) -> frozenset[str]: ...
        def qualifying(self, i: int) -> list[EditRef]: ...
        def _common(self, i: int) -> bool: ...
        def _agent(self, i: int, kind: str, commit: str | None, e: EditRef, rule: str, conf: float,
                   similarity: float | None = None) -> LineAnswer: ...

    def _outside_the_commits_sessions(self, i: int, e: EditRef) -> bool:
        """The commit of line i is tied to sessions by its own record (shell output, a rewrite),
        and e's session is neither one of them nor the only writer of any other line of the
        commit that the file has once."""
        sha = self.lines[i].sha
        if sha == ZERO or e.session_id in self.cs.tied(sha) or not self.cs.tied(sha):
            return False
        return e.session_id not in self._distinct_writers(sha)

    def _distinct_writers(self, sha: str) -> set[str]:
        """Sessions that alone wrote some non-trivial line of commit ``sha`` that the file has once."""
        out = self._distinct.get(sha)
        if out is None:
            out = set()
            for j in self.by_commit.get(sha, ()):
                if self.trivial[j] or self._common(j):
                    continue
                sessions = {x.session_id for x in self.loose(j)}
                if len(sessions) == 1:
                    out |= sessions
            self._distinct[sha] = out
        return out

    def _not_the_commits(self, i: int, commit: str | None, e: EditRef) -> LineAnswer:
        b = self.lines[i]
        return LineAnswer(line=b.final_line, content=b.content, kind="unknown", commit=commit,
                          rule="not_the_commits_session", alternatives=(e.session_id,))

    def _unmatched(self, i: int, in_commit: tuple[EditRef, float, str] | None, commit: str | None,
                   group_has_agent: bool) -> LineAnswer:
        b = self.lines[i]
        if b.sha == ZERO:
            return LineAnswer(line=b.final_line, content=b.content, kind="uncommitted", commit=None, rule=None, confidence=0.0)
        if i in self._stale:
            return LineAnswer(line=b.final_line, content=b.content, kind="unknown", commit=commit,
                              rule="stale_edit", alternatives=tuple(self._stale[i]))
        if not self.trivial[i]:
            mod: tuple[EditRef, float, str] | None
            if in_commit is not None and in_commit[0].session_id not in self.commit_sessions(b.sha):
                # the edit matched around the line is not one the commit's sessions made
                mod = self._modified_later(i) or in_commit
            else:
                mod = in_commit or self._modified_later(i)
            if mod is not None:
                e, sim, rule = mod
                if self._outside_the_commits_sessions(i, e):
                    # likeness alone, against the sessions the commit's own record names
                    return self._not_the_commits(i, commit, e)
                if rule == "changed_later" or self._older_than_the_last_commit(i, e):
                    # Who changed a committed agent's line in a later commit is not known: a
                    # person, or an agent whose edits are not here (not archived, not readable).
                    return LineAnswer(line=b.final_line, content=b.content, kind="unknown", commit=commit,
                                      rule="changed_later", alternatives=(e.session_id,))
                unread = self._unreadable_writers(i, since=e.ts)
                if unread:
                    # an agent's edit that cannot be read may have made the change, not a person
                    return LineAnswer(line=b.final_line, content=b.content, kind="unknown", commit=commit,
                                      rule="unreadable_edit", alternatives=tuple(sorted({e.session_id, *unread})))
                return self._agent(i, "agent_modified", commit, e, rule, round(0.8 * sim, 2), sim)
            if i in self._copied:
                return LineAnswer(line=b.final_line, content=b.content, kind="unknown", commit=commit,
                                  rule="readded", alternatives=tuple(self._copied[i]))
            if i in self._lone_common:
                return LineAnswer(line=b.final_line, content=b.content, kind="unknown", commit=commit,
                                  rule="common_line", alternatives=tuple(self._lone_common[i]))
            if i in self._off_base:
                return LineAnswer(line=b.final_line, content=b.content, kind="unknown", commit=commit,
                                  rule="other_branch", alternatives=tuple(self._off_base[i]))
            if self._elsewhere(i):
                return LineAnswer(line=b.final_line, content=b.content, kind="unknown", commit=commit, rule="other_path")
            if self.hashes[i] in self.unlinked:
                return LineAnswer(line=b.final_line, content=b.content, kind="unknown", commit=commit, rule="unlinked_session")
            if self.untimed.get(self.hashes[i], set()) & self.paths_of(i):
                return LineAnswer(line=b.final_line, content=b.content, kind="unknown", commit=commit, rule="untimed")
        elif group_has_agent or self._short_line_of_the_commits_sessions(i):
            return LineAnswer(line=b.final_line, content=b.content, kind="unknown", commit=commit, rule="trivial")
        unread = self._unreadable_writers(i) or self._unread_subagents(i)
        if unread:
            return LineAnswer(line=b.final_line, content=b.content, kind="unknown", commit=commit,
                              rule="unreadable_edit", alternatives=tuple(unread))
        if self._shell_touched(b.sha):
            return LineAnswer(line=b.final_line, content=b.content, kind="unknown", commit=commit, rule="shell_command")
        return LineAnswer(line=b.final_line, content=b.content, kind="human", commit=commit, rule="no_session", confidence=0.9)

    def _older_than_the_last_commit(self, i: int, e: EditRef, by: float = 0.0) -> bool:
        """Edit e was made (more than ``by`` seconds) before the file's commit that came before
        line i's: its version went into the history (or was dropped) before this commit changed it."""
        before = self.history_of(i).previous_time(self.lines[i].sha)
        return before is not None and e.ts < before - CLOCK_SLACK_S - by

    def _unreadable_writers(self, i: int, since: float | None = None) -> list[str]:
        """Sessions with an applied edit of line i's file whose text cannot be read and that
        could have written line i: made before the line's commit (an edit with no time of its
        own, any time from its session's start), and not so long before it that the commit is
        past the first commit of the file after the session's last message (where its change
        would have landed). With ``since``, only edits that may have come after that time."""
        if self._unreadable is None:
            self._unreadable = [(ts, r) for ts, r in self._edits_of_file() if r["kind"] == "unreadable"]
        sha = self.lines[i].sha
        bound = self.commit_time(sha)
        if bound is None or not self._unreadable:
            return []
        paths = self.paths_of(i)
        out: set[str] = set()
        for ts, r in self._unreadable:
            if r["rel_path"] not in paths or r["session_id"] in out:
                continue
            last = parse_ts(r["last_at"])
            lo = ts if ts is not None else parse_ts(r["started_at"])
            hi = ts if ts is not None else last
            if lo is not None and lo > bound + CLOCK_SLACK_S:
                continue
            if since is not None and hi is not None and hi + CLOCK_SLACK_S < since:
                continue
            landed = self._first_commit_after(max(x for x in (lo, hi, last) if x is not None)) \
                if any(x is not None for x in (lo, hi, last)) else None
            if landed is not None and bound > landed + CLOCK_SLACK_S:
                continue
            out.add(r["session_id"])
        return sorted(out)

    def _unread_subagents(self, i: int) -> list[str]:
        """Sessions of the repository that started a subagent whose own transcript is not held,
        gave it line i's file by name or heard of it in its report, after the commit's parent
        was written and before the line's commit: that subagent's edits, which cannot be read,
        may have written the line. Worked out once per commit: every line of it has the same."""
        sha = self.lines[i].sha
        got = self._unread_by_commit.get(sha)
        if got is None:
            got = self._unread_by_commit[sha] = self._unread_subagents_of(sha)
        return got

    def _unread_subagents_of(self, sha: str) -> list[str]:
        if self._file_delegations is None:
            from hansard import agents
            from hansard.answers.why import together

            store, repo_id, tools, needle = self.store, self.repo_id, agents.tools("task"), os.path.basename(self.t.rel)
            if together.many_files():  # every file's calls read once, each file's name looked for here
                said = together.once(("delegations", id(store), repo_id),
                                     lambda: _said(store.evidence.repo_unread_delegation_texts(repo_id, tools)))
                calls = [(sid, raw) for sid, raw, text in said if needle in text]
            else:
                calls = store.evidence.repo_unread_delegations(repo_id, tools, needle)
            self._file_delegations = [(t, sid) for sid, raw in calls if (t := parse_ts(raw)) is not None]
        hi = self.commit_time(sha) if self._file_delegations and sha != ZERO else None
        before = [(t, sid) for t, sid in self._file_delegations or () if hi is not None and t <= hi + CLOCK_SLACK_S]
        if not before:
            return []
        lo = self.bases.parent_authored(sha)
        return sorted({sid for t, sid in before if lo is None or t >= lo - CLOCK_SLACK_S})

    def _first_commit_after(self, t: float) -> float | None:
        """The committer time of the file's first commit at or after ``t`` (None: none yet)."""
        times = self._commit_times
        if times is None:
            times = self._commit_times = sorted(c.committer_time for c in self.history.commits())
        k = bisect_left(times, t - CLOCK_SLACK_S)
        return float(times[k]) if k < len(times) else None

    def _short_line_of_the_commits_sessions(self, i: int) -> bool:
        """A trivial line with a word in it (``"io"``, ``return None``; not a blank line or a
        lone brace, which everyone writes) that an edit of a session that made its commit
        added to this file: too short to be evidence, too likely the agent's to call human."""
        if not _WORD.search(self.lines[i].content):
            return False
        sessions = self.commit_sessions(self.lines[i].sha)
        return any(e.session_id in sessions for e in self.qualifying(i))

    def _elsewhere(self, i: int) -> bool:
        """An edit added line i's text to another file of this repository than its own."""
        paths = self.own_paths(i)
        key = (self.hashes[i], paths)
        out = self._other_path.get(key)
        if out is None:
            out = self._other_path[key] = any(p not in paths for p in self.placed.get(self.hashes[i], ()))
        return out

    def _added_texts(self, edit_id: int) -> list[str]:
        if edit_id not in self._texts:
            self._texts[edit_id] = evidence.added_texts(self.store, edit_id)
        return self._texts[edit_id]

    def _absent_texts(self, edit_id: int) -> list[str]:
        """The non-trivial lines the edit added that are no longer in the file, in its order."""
        out = self._absent.get(edit_id)
        if out is None:
            present, gone = self._present, self._gone
            hashed = self.history.hashed  # (through the table of texts the file's history hashed)
            out = []
            for x in self._added_texts(edit_id):
                g = gone.get(x)
                if g is None:
                    h = hashed(x)
                    g = gone[x] = h is not None and h not in present
                if g:
                    out.append(x)
            self._absent[edit_id] = out
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
            for sim, _ in similar_texts(self.lines[i].content, self._absent_texts(e.edit_id), SIMILAR):
                if best is None or sim > best[0]:
                    best = (sim, e)
        return (best[1], best[0], "modified") if best else None

    def _modified_later(self, i: int) -> tuple[EditRef, float, str] | None:
        """The line's commit replaced a similar line that an agent's edit had written."""
        b = self.lines[i]
        bound = self.commit_time(b.sha)
        if bound is None or not self._path_has_edits() or not self._may_be_modified(i, bound):
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
                names = self.paths_of(i) | ({old_path} if old_path else set())
                quals = [e for e in self._writers(i, textnorm.line_hash(r))
                         if e.rel_path in names and e.ts <= bound + CLOCK_SLACK_S]
                if quals:
                    # the agent's line landed in an earlier commit; this one changed it
                    return max(quals, key=lambda e: (e.ts, e.edit_id)), sim, "changed_later"
        return None

    def _may_be_modified(self, i: int, bound: float) -> bool:
        """What ``_modified_later`` needs before it compares line i with anything (so a line
        without it costs no likeness): an edit of this file made before the line's commit (a
        version the commit's sessions wrote), or a line the commit removed around line i that
        some edit added (whose writer it could be). Looked up once per file, and per hunk."""
        if self._first_edit_ts is None:
            self._first_edit_ts = min((ts for ts, _ in self._edits_of_file() if ts is not None), default=float("inf"))
        if self._first_edit_ts <= bound + CLOCK_SLACK_S:
            return True
        b = self.lines[i]
        return any(self._hunk_added(b.sha, b.orig_path, lo) for lo, hi, _, _ in self._commit_hunks(b.sha, b.orig_path)
                   if lo <= b.orig_line < hi)

    def _hunk_added(self, sha: str, path: str, lo: int) -> bool:
        """Did any edit add a line that the hunk of commit ``sha`` starting at ``lo`` removed? Every
        hunk of every blamed commit is asked at once (most lines will ask)."""
        key = (sha, path, lo)
        if key not in self._added_hunks:
            asked = {(sha, path)} | {(b.sha, b.orig_path) for b in self.lines if b.sha != ZERO}
            hunks = {(c, p, h_lo): {textnorm.line_hash(r) for r in rs}
                     for c, p in asked for h_lo, _, rs, _ in self._commit_hunks(c, p)
                     if (c, p, h_lo) not in self._added_hunks}
            added = self.store.evidence.added_anywhere(set().union(*hunks.values()))
            for k, hashes in hunks.items():
                self._added_hunks[k] = not added.isdisjoint(hashes)
        return self._added_hunks[key]

    def _edits_of_file(self) -> list[tuple[float | None, Any]]:
        """(time, row) of the applied edits of this file's names, each timestamp parsed once."""
        if self._file_edits is None:
            from hansard.answers.evidence import parse_ts

            self._file_edits = [(parse_ts(r["timestamp"]), r)
                                for r in self.store.evidence.applied_edits(self.repo_id, sorted(self.names))]
        return self._file_edits

    def _similar_removed(self, i: int) -> list[tuple[list[tuple[float, str]], str | None]]:
        """For each hunk of line i's commit around the line: the lines it removed, scored by
        likeness to line i (0.0 below ``SIMILAR``), best first, and the file's old name."""
        out = self._scored.get(i)
        if out is None:
            b = self.lines[i]
            # (lines under SIMILAR are left out: no reader goes past the first of them)
            out = self._scored[i] = [
                (sorted(((sim, removed[k]) for sim, k in similar_texts(b.content, removed, SIMILAR)), reverse=True),
                 old_path)
                for lo, hi, removed, old_path in self._commit_hunks(b.sha, b.orig_path) if lo <= b.orig_line < hi
            ]
        return out

    def _writers(self, i: int, h: int) -> list[EditRef]:
        """The timed edits in this repository that added ``h``, a line similar to line i that
        its commit removed. Looked up at once for every such line of every line of the file."""
        got = self._removed_writers.get(h)
        if got is None:
            texts = {r for j in range(len(self.lines)) if not self.trivial[j] and self.lines[j].sha != ZERO
                     for scored, _ in self._similar_removed(j) for sim, r in scored if sim >= SIMILAR}
            hashes = {textnorm.line_hash(r) for r in texts}  # (a removed line is like many lines: hashed once)
            hashes = {x for x in hashes if x not in self._removed_writers} | {h}
            edits, by_hash = evidence.load_candidates(self.store, self.repo_id, hashes)
            for x in hashes:
                self._removed_writers[x] = [edits[eid] for eid in by_hash.get(x, ())]
            got = self._removed_writers[h]
        return got

    def _commit_session_version(self, i: int, bound: float) -> tuple[EditRef, float, str] | None:
        """The newest edit, by one of the sessions of line i's commit and before it, that added a
        line similar to line i that is no longer in the file. A session counts here when the
        commit's record ties it to the commit or it alone wrote a line of the commit the file has
        once: lines the file has many times (``println!();``) do not show it made the commit."""
        sha = self.lines[i].sha
        mine = self.commit_sessions(sha) & (self.cs.tied(sha) | self._distinct_writers(sha))
        if not mine:
            return None
        best: tuple[float, float, EditRef] | None = None
        for ts, r in self._edits_of_file():
            if r["session_id"] not in mine or ts is None or ts > bound + CLOCK_SLACK_S:
                continue
            if best is not None and ts < best[0]:
                continue
            for sim, _ in similar_texts(self.lines[i].content, self._absent_texts(r["id"]), SIMILAR):
                if best is None or (ts, sim) > best[:2]:
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


def _said(calls: list[tuple[str, str, str | bytes | None, str | None]]) -> list[tuple[str, str, str]]:
    """(session id, timestamp, what its input and output say) of each call: a file's name is in
    it where SQL's ``instr`` finds it in either (a NUL between them, which no name holds)."""
    return [(sid, raw, "\0".join(_text(x) for x in (inp, out))) for sid, raw, inp, out in calls]


def _text(x: str | bytes | None) -> str:
    if x is None:
        return ""
    return x if isinstance(x, str) else bytes(x).decode("utf-8", "replace")
