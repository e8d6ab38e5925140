"""The edit side of the evidence: which archived edits added (or removed) a line, by hash,
and the rules of time and likeness shared by why, code_history and the landing step.

Only applied edits are ever loaded. Candidates are limited to one repository, so a session
in another repository that wrote the same text at the same relative path is never seen.
Everything here reads through the store's ``evidence`` facet and never writes.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

from hansard.text import textnorm
from hansard.text.textnorm import split_lines
from hansard.values.timebounds import CLOCK_SLACK_S, parse_ts

if TYPE_CHECKING:
    from hansard.store.interfaces import Store
    from hansard.store.types import Row

__all__ = ["CLOCK_SLACK_S", "EditRef", "load_candidates", "parse_ts", "similar_texts", "similarity"]


class EditRef:
    """One applied edit seen as evidence. ``added`` maps a line's normal-form hash to the
    exact hashes of the lines this edit added with that form. (A plain class: the dataclasses
    module is a heavy import on the `why` path, docs/performance.md.)"""

    __slots__ = ("edit_id", "session_id", "provider", "call_id", "message_index", "rel_path", "ts", "timestamp",
                 "user_modified", "tool", "added", "trivial", "claimed_call")

    def __init__(self, edit_id: int, session_id: str, provider: str, call_id: str, message_index: int | None,
                 rel_path: str, ts: float, timestamp: str, user_modified: bool, tool: str | None) -> None:
        self.edit_id = edit_id
        self.session_id = session_id
        self.provider = provider
        self.call_id = call_id
        self.message_index = message_index
        self.rel_path = rel_path
        self.ts = ts
        self.timestamp = timestamp
        self.user_modified = user_modified
        self.tool = tool
        self.added: dict[int, set[int]] = {}
        self.trivial: set[int] = set()
        # A session a repository carries: the tool call id its record claims (else None).
        self.claimed_call: str | None = None


def load_candidates(store: Store, repo_id: int, hashes: set[int], side: str = "+",
                    untimed: dict[int, set[str]] | None = None, paths: set[str] | None = None,
                    placed: dict[int, set[str | None]] | None = None, others: bool = True
                    ) -> tuple[dict[int, EditRef], dict[int, list[int]]]:
    """(edits by id, edit ids by line hash) for applied edits in ``repo_id`` that added
    (side '+') or removed (side '-') any of ``hashes``. Edits with no time are never
    candidates; with ``untimed`` given, it receives their hashes (-> repository paths).

    With ``paths``, only the edits of those repository paths are loaded whole. ``placed``
    receives, for every timed edit whatever its path, its hashes (-> repository paths): what
    says that an edit added a line elsewhere; without ``others`` (a second load for more
    paths, whose placings are known already), the other paths' edits are not looked at."""
    edits: dict[int, EditRef] = {}
    by_hash: dict[int, list[int]] = {}
    if paths is not None:
        rows, elsewhere = store.evidence.edit_lines_at(repo_id, hashes, paths, side, others=others)
        times: dict[str | None, float | None] = {}
        for h, rel_path, timestamp in elsewhere:
            ts = times[timestamp] if timestamp in times else times.setdefault(timestamp, parse_ts(timestamp))
            if ts is None:
                if untimed is not None and rel_path:
                    untimed.setdefault(h, set()).add(rel_path)
            elif placed is not None:
                placed.setdefault(h, set()).add(rel_path)
    else:
        rows = store.evidence.edit_lines(repo_id, hashes, side)
    listed: set[tuple[int, int]] = set()  # (hash, edit) in by_hash
    for r in rows:
        ref = edits.get(r["id"])  # one row per line: an edit's facts are read once
        if ref is None:
            ts = parse_ts(r["timestamp"])
            if ts is None:
                # An edit with no time (Cursor's agent transcripts record none) can never be placed
                # before a commit: never a candidate, though evidence that an agent wrote the text.
                if untimed is not None and r["rel_path"]:
                    untimed.setdefault(r["hash"], set()).add(r["rel_path"])
                continue
            ref = edits[r["id"]] = EditRef(
                r["id"], r["session_id"], r["provider"], r["call_id"], r["message_index"], r["rel_path"], ts,
                r["timestamp"], bool(r["user_modified"]), r["tool"],
            )
            claimed = r["claimed_id"] if "claimed_id" in r.keys() else None
            if claimed:
                tail = ref.session_id[len(claimed):]
                ref.claimed_call = ref.call_id[:-len(tail)] if tail and ref.call_id.endswith(tail) else ref.call_id
        h = r["hash"]
        ref.added.setdefault(h, set()).add(r["exact"])
        if r["trivial"]:
            ref.trivial.add(h)
        if (h, ref.edit_id) not in listed:
            listed.add((h, ref.edit_id))
            by_hash.setdefault(h, []).append(ref.edit_id)
            if placed is not None:
                placed.setdefault(h, set()).add(ref.rel_path)
    _shadow(edits, by_hash)
    return edits, by_hash


def _shadow(edits: dict[int, EditRef], by_hash: dict[int, list[int]]) -> None:
    """A repository's copy of a tool call this machine recorded too (the same agent and call id)
    is left out: the answer names this machine's session. A copy is never merged into it (see
    hansard.agents.origin), so both are loaded; a copy claiming a call no local edit made stays."""
    copies = [ref for ref in edits.values() if ref.claimed_call is not None]
    if not copies:
        return
    mine = {(ref.provider, ref.call_id) for ref in edits.values() if ref.claimed_call is None}
    gone = {ref.edit_id for ref in copies if (ref.provider, ref.claimed_call) in mine}
    if not gone:
        return
    for eid in gone:
        del edits[eid]
    for h in list(by_hash):
        kept = [e for e in by_hash[h] if e not in gone]
        if kept:
            by_hash[h] = kept
        else:
            del by_hash[h]


def added_texts(store: Store, edit_id: int) -> list[str]:
    """The text of the lines an edit added: from its hunks, else its whole-file result."""
    content = store.evidence.edit_content(edit_id)
    if content is None:
        return []
    out = [ln[1:] for h in content["hunks"] for ln in h[4] if ln.startswith("+")]
    if not out and content["after_text"] is not None:
        out = split_lines(content["after_text"] or "")
    return out


def repo_has_edits(store: Store, repo_id: int, paths: set[str]) -> bool:
    return store.evidence.has_applied_edits(repo_id, paths)


def first_shell_write(store: Store, repo_id: int, basename: str) -> float | None:
    """When a session in this repository first ran a shell command that could have written
    this file (sed -i, cat >, a script naming it), or None. Such edits are invisible to
    structured patches, so a line committed after that may still be an agent's: unknown, not
    human. The writing calls the link step keeps are read when they stand for the repository's
    shell calls as they are now; otherwise every shell call naming the file is read."""
    from hansard.facts.shell import may_write

    calls = _kept_shell_writes(store, repo_id, basename)
    if calls is None:
        calls = live_shell_writes(store, repo_id, basename)
    first: float | None = None
    for t, cmd, parsed in calls:
        if first is not None and t >= first:
            continue
        if not parsed or may_write(cmd, basename):
            first = t
    return first


def live_shell_writes(store: Store, repo_id: int, basename: str) -> list[tuple[float, str, bool]]:
    """(ts, command, parsed) of the timed shell calls whose input names ``basename`` and that
    could write a file (``hansard.facts.shell.writing_call``), read from every shell call."""
    from hansard.facts.shell import SHELL_TOOLS, writing_call

    return [w for ts, raw in store.evidence.repo_tool_inputs(repo_id, SHELL_TOOLS, basename)
            if (w := writing_call(ts, raw)) is not None]


def _kept_shell_writes(store: Store, repo_id: int, basename: str) -> list[tuple[float, str, bool]] | None:
    """The kept writing calls naming ``basename``, or None when none are kept or they stand for
    other shell calls than the repository's now. While files are answered together, the kept
    calls are read once for all of them and each file's name looked for here, as SQL's
    ``instr`` looks for it (an empty name is in every command, a NULL command names nothing)."""
    from hansard.answers.why import together

    if together.many_files():
        every = together.once(("shell_writes", id(store), repo_id), lambda: _kept_writes_of(store, repo_id, ""))
        return None if every is None else [w for w in every if w[1] is not None and basename in w[1]]
    return _kept_writes_of(store, repo_id, basename)


def _kept_writes_of(store: Store, repo_id: int, basename: str) -> list[tuple[float, str, bool]] | None:
    from hansard.facts.shell import SHELL_TOOLS

    facts = store.commit_facts
    state = facts.shell_write_state(repo_id)
    if state is None:
        return None
    generation = facts.generation()
    if generation is None or state["generation"] != generation:
        if facts.all_shell_key(repo_id, SHELL_TOOLS) != (state["calls_upto"], state["calls"]):
            return None
    return facts.shell_writes(repo_id, basename)


def conversation(store: Store, session_id: str, row: Row | None = None) -> tuple[str | None, list[str]]:
    """(the session ``session_id`` resumes, the sessions resuming it): one conversation. A
    resumed or forked copy replays the earlier session's messages and edit calls, which the
    store keeps once, under the session read first (``row``: the session's, when read)."""
    from hansard.answers.why import together

    resumes, resuming = together.once(("conversation", id(store), session_id), lambda: _conversation(store, session_id, row))
    return resumes, list(resuming)


def _conversation(store: Store, session_id: str, row: Row | None) -> tuple[str | None, list[str]]:
    if row is None:
        row = store.evidence.session(session_id)
    resumes = row["resumed_from"] if row is not None and row["resumed_from"] else None
    return resumes, sorted(r["session_id"] for r in store.evidence.sessions_resuming(session_id))


def unlinked_hashes(store: Store, hashes: set[int], basename: str) -> set[int]:
    """Hashes among ``hashes`` that an applied edit of a file with this name added, where the
    edit could not be placed in any repository (a deleted worktree, a path from another
    machine with no `config map`). Such a line may be an agent's: unknown, not human."""
    from hansard.answers.why.together import once

    if not once(("unlinked", id(store)), store.evidence.any_unlinked):
        return set()  # no edit is unplaced at all
    return store.evidence.unlinked_hashes(hashes, basename)


def similarity(a: str, b: str, floor: float = 0.0) -> float:
    """Indel similarity (difflib's ratio, computed by rapidfuzz in C) of the normal forms;
    0.0 when below ``floor``."""
    from rapidfuzz.distance.Indel import normalized_similarity

    return normalized_similarity(_normal(a), _normal(b), score_cutoff=floor or None)


def similar_texts(query: str, texts: list[str], floor: float) -> list[tuple[float, int]]:
    """(similarity, position) of each of ``texts`` at least ``floor`` like ``query``, in the
    order of ``texts``: ``similarity`` of each pair, in one call into rapidfuzz (a whole file
    compares each line with hundreds of removed and absent lines)."""
    if not texts:
        return []
    from rapidfuzz import process
    from rapidfuzz.distance.Indel import normalized_similarity

    got = process.extract(_normal(query), _normal_list(texts), scorer=normalized_similarity,
                          score_cutoff=floor, limit=None)
    return sorted(((score, k) for _, score, k in got), key=lambda x: x[1])


# ``textnorm.normalise`` once per text: a whole file compares the same lines again and again.
_normal = functools.lru_cache(maxsize=1 << 17)(textnorm.normalise)
# id of a list -> (the list, its normal forms): the lists compared are a commit's removed lines
# and an edit's absent ones, never changed once made, each asked about by every line near it
# (the list is kept, so its id stays its own).
_NORMAL_LISTS: dict[int, tuple[list[str], list[str]]] = {}


def _normal_list(texts: list[str]) -> list[str]:
    hit = _NORMAL_LISTS.get(id(texts))
    if hit is None or hit[0] is not texts:
        if len(_NORMAL_LISTS) > 50_000:
            _NORMAL_LISTS.clear()
        hit = _NORMAL_LISTS[id(texts)] = (texts, [_normal(t) for t in texts])
    return hit[1]
