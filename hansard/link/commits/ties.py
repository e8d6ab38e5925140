"""Which sessions made which commit, from what their shell calls printed and ran.

A **print** is one fact a shell call states about commits, independent of any repository
history: the call's output named a commit (``[main abc1234] summary``), or its command rewrote
commits (``git commit --amend``, ``git rebase``, ``git cherry-pick``) at a known time. A **tie**
joins a print to a commit of a history:

* ``printed``: the printed id is a prefix of the commit's id;
* ``fixup``: the printed summary is ``fixup! S`` (or ``squash!``/``amend!``) for a commit whose
  summary is S, printed while that commit was being written (between its author and committer
  times);
* ``rewrite``: the command ran within ``REWRITE_WINDOW_S`` before the committer time of a commit
  whose author and committer times differ;
* ``patch_id``: the printed id names a commit git still has but the history does not (a rebase
  or an amend replaced it), with the same author time and `git patch-id` as a rewritten commit
  (author and committer times differ) of the history.

Every rule joins one print to one commit, so the ties of a history are the union over its
prints and commits: new prints or new commits add ties and never change old ones. Nothing here
runs git or reads a store; callers give the commits, what git has of printed ids, and patch-ids.
"""

from __future__ import annotations

import json
import re
from bisect import bisect_left, bisect_right
from collections import namedtuple
from collections.abc import Iterable, Mapping
from typing import Any

from hansard.values.timebounds import CLOCK_SLACK_S, parse_ts

# A rebase, an amend or a cherry-pick gives the commits it writes a committer time within
# this many seconds of the shell call that ran it.
REWRITE_WINDOW_S = 600.0

_COMMIT_LINE = re.compile(r"^\[([^\]\s]+)(?: \([^)]*\))? ([0-9a-f]{7,40})\] (.*)$", re.M)
_REWRITE = re.compile(r"\bgit\b[^|;&]*\b(?:commit\b[^|;&]*--amend|rebase|cherry-pick)\b")
_FIXUP = re.compile(r"^(?:fixup|squash|amend)! (.*)$")
_SHORT = 7

# A commit as the rules need it (hansard.git.history.CommitMeta has these fields).
CommitRow = namedtuple("CommitRow", "sha author_time committer_time summary")
# kind: 'printed' (short, summary) or 'rewrite' (short and summary empty); ts: seconds or None
Print = namedtuple("Print", "session_id ts kind short summary")


def prints_of(calls: Iterable[tuple[str, str | None, str | None, str | None]]) -> list[Print]:
    """The prints of shell calls given as (session id, timestamp, input JSON, output)."""
    from hansard.facts.shell import shell_command

    out: list[Print] = []
    for session_id, ts, raw_in, output in calls:
        try:
            inp = json.loads(raw_in or "{}")
        except ValueError:
            continue
        cmd = shell_command(inp) if isinstance(inp, dict) else None
        if not cmd or "git" not in cmd:
            continue
        t = parse_ts(ts)
        for m in _COMMIT_LINE.finditer(output or ""):
            out.append(Print(session_id, t, "printed", m.group(2), m.group(3).strip()))
        if t is not None and _REWRITE.search(cmd):
            out.append(Print(session_id, t, "rewrite", "", ""))
    return out


class History:
    """The commits ties may name (CommitMeta rows), indexed for the rules."""

    def __init__(self, commits: Iterable) -> None:
        self.commits = list(commits)
        self.by_prefix: dict[str, list] = {}
        self.by_summary: dict[str, list] = {}
        self.by_author_time: dict[int, list] = {}  # rewritten commits only
        for c in self.commits:
            self.by_prefix.setdefault(c.sha[:_SHORT], []).append(c)
            self.by_summary.setdefault(c.summary, []).append(c)
            if c.author_time != c.committer_time:
                self.by_author_time.setdefault(c.author_time, []).append(c)
        rewritten = sorted((c.committer_time, c.sha) for c in self.commits if c.author_time < c.committer_time)
        self._rewritten_times = [t for t, _ in rewritten]
        self._rewritten = [sha for _, sha in rewritten]

    def named(self, short: str) -> list:
        return [c for c in self.by_prefix.get(short[:_SHORT], ()) if c.sha.startswith(short)]

    def rewritten_near(self, t: float) -> list[str]:
        """Rewritten commits whose committer time is within the window after ``t``."""
        lo = bisect_left(self._rewritten_times, t - CLOCK_SLACK_S)
        hi = bisect_right(self._rewritten_times, t + REWRITE_WINDOW_S)
        return self._rewritten[lo:hi]


def has_fixups(prints: Iterable[Print]) -> bool:
    """Some print is a ``fixup!``/``squash!``/``amend!`` of a summary."""
    return any(p.kind == "printed" and _FIXUP.match(p.summary) for p in prints)


def unknown_shorts(prints: Iterable[Print], history: History) -> list[str]:
    """Printed ids that name no commit of the history: git may still have them (rewritten)."""
    return sorted({p.short for p in prints if p.kind == "printed" and not history.named(p.short)})


def patch_id_candidates(elsewhere: Mapping[str, Any], history: History) -> set[str]:
    """The commits whose patch-ids decide the ``patch_id`` rule: each printed commit git has
    outside the history, and the history's rewritten commits with its author time."""
    out: set[str] = set()
    for c in elsewhere.values():
        same = [h.sha for h in history.by_author_time.get(c.author_time, ()) if h.sha != c.sha]
        if same:
            out.add(c.sha)
            out.update(same)
    return out


def ties(prints: Iterable[Print], history: History, elsewhere: Mapping[str, Any] | None = None,
         pids: Mapping[str, str] | None = None) -> dict[str, set[tuple[str, str]]]:
    """commit -> {(session, rule)} for the prints' ties to the history's commits.
    ``elsewhere``: printed short id -> the commit git has for it outside the history;
    ``pids``: full commit id -> patch-id."""
    out: dict[str, set[tuple[str, str]]] = {}
    elsewhere = elsewhere or {}
    pids = pids or {}
    for p in prints:
        if p.kind == "rewrite":
            for sha in history.rewritten_near(p.ts):
                out.setdefault(sha, set()).add((p.session_id, "rewrite"))
            continue
        named = history.named(p.short)
        for c in named:
            out.setdefault(c.sha, set()).add((p.session_id, "printed"))
        if not named and p.short in elsewhere:
            was = elsewhere[p.short]
            pid = pids.get(was.sha)
            if pid is not None:
                for c in history.by_author_time.get(was.author_time, ()):
                    if c.sha != was.sha and pids.get(c.sha) == pid:
                        out.setdefault(c.sha, set()).add((p.session_id, "patch_id"))
        fx = _FIXUP.match(p.summary)
        if fx and p.ts is not None:
            for c in history.by_summary.get(fx.group(1).strip(), ()):
                if c.author_time - CLOCK_SLACK_S <= p.ts <= c.committer_time + CLOCK_SLACK_S:
                    out.setdefault(c.sha, set()).add((p.session_id, "fixup"))
    return out
