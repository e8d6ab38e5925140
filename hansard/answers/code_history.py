"""code_history: the conversations that changed a file, a line or a symbol, newest first.

Always true of an answer: every entry names something to open (a ``session_id`` with
``message_index`` values, or a commit), evidence newer than ``until`` is left out, and the
whole answer fits ``token_budget`` (4 characters a token), with ``truncated`` counting the
entries dropped, oldest and weakest first. A ``path:line`` target is answered by the `why`
engine, exactly as `hansard why` does. Without ``until``, history and blame agree: every session
whose lines `why` gives in the file (or the symbol) now has an entry, and each session entry
counts those lines (``lines``), from the file's `why` answer.
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, cast

from hansard.agents.origin import source_of
from hansard.answers import evidence
from hansard.answers.budget import Render, fit_budget
from hansard.answers.evidence import similarity
from hansard.answers.session_facts import live_sessions, session_tests
from hansard.answers.why import explain, parse_target, resolve_target
from hansard.errors import NotFound, UntilNotAllowed
from hansard.files import safeopen
from hansard.git.run import git_text
from hansard.link.landing import FileCommit, commit_diff, edit_hashes, edit_landed_in, file_commits
from hansard.link.repos import known_repo
from hansard.text import textnorm

if TYPE_CHECKING:
    from hansard.answers.results import CodeHistory, WhyAnswer
    from hansard.store.interfaces import Store

# Share of an earlier change's lines that a later one must remove to count as undoing it.
UNDO_SHARE = 0.6
# What stands for a session that ran in another repository than ``repo_only``.
OTHER_REPOSITORY = "another repository's session"


def parse_until(until: str | None) -> float | None:
    """The last instant ``until`` includes (see :mod:`hansard.values.timebounds`)."""
    from hansard.values.timebounds import until_epoch

    return until_epoch(until, "until")


def code_history(store: Store, path: str, *, symbol: str | None = None, repo: str | None = None,
                 until: str | None = None, token_budget: int = 4000, cwd: str | None = None,
                 repo_only: str | None = None, render: Render) -> CodeHistory:
    """``render`` makes the answer's ``tree`` for people (the adapters pass hansard/render's
    :func:`~hansard.render.trees.code_history_tree`); it counts toward the token budget, so it
    is made here, from what is kept. With ``repo_only`` (a repository's path), a session that ran in any other repository is
    never named, quoted or linked: its edits and lines are said to be OTHER_REPOSITORY's, with
    no id, title, prompt, message or tool call."""
    base = os.path.abspath(repo or cwd or os.getcwd())
    file, start, end = parse_target(path)
    if start is not None:
        if until is not None:
            raise UntilNotAllowed("until cannot be combined with path:line, which reads the current code")
        ans = explain(store, path, cwd=base)
        if repo_only is not None:
            ans = unnamed_elsewhere(store, ans, repo_only)
        return _line_answer(ans, token_budget, render)
    if symbol and until is not None:
        raise UntilNotAllowed("until cannot be combined with symbol, which reads the current code")
    bound = parse_until(until)
    t = resolve_target(file, None, None, cwd=base, check_exists=False)
    repo_id = known_repo(store, t.main_top)
    all_commits = file_commits(store, t.top, t.rel)
    names = {t.rel} | {c.path for c in all_commits} | {c.old_path for c in all_commits if c.old_path}
    commits = [c for c in all_commits if bound is None or c.committer_time <= bound]
    edits = _edits(store, repo_id, names, bound)
    if not all_commits and not edits and not os.path.lexists(os.path.join(t.top, t.rel)):
        _missing(file, base)
    span_filter = None
    span = None
    if symbol:
        span_filter = SymbolSpans(store, t.top, symbol, t.rel)
        span = span_filter.span_now()
        if span is None:
            raise NotFound(f"no symbol {symbol!r} in {t.rel}")
        span_filter.trace(commits)
        commits = [c for c in commits if span_filter.commit_touches(c)]
        edits = [e for e in edits if span_filter.edit_touches(e, commits)]
    blamed = None if until is not None else _why_lines(store, t.top, t.rel, span)
    if blamed is not None:
        edits += _edits_of_lines(store, repo_id, blamed, {e["session_id"] for e in edits}, bound)
    elsewhere = set() if repo_only is None else _elsewhere(store, {e["session_id"] for e in edits} | set(blamed or ()),
                                                           repo_only)
    entries = _session_entries(store, edits, commits, elsewhere, blamed)
    reverts = _revert_entries(commits, [s for s in entries if s["session_id"] is not None])
    for r in reverts:
        for u in r["undoes"]:
            for s in entries:
                if any(c["sha"] == u["commit"] for c in s["commits"]):
                    s.setdefault("reverted_by", []).append(r["commit"])
    entries += reverts
    entries.sort(key=lambda e: e["sort_time"], reverse=True)
    importers = imported_by(store, t.top, t.rel)
    result: dict[str, Any] = {
        "target": {"path": t.rel, "symbol": symbol, "repo": t.main_top, "until": until},
        "names": sorted(names),
        "entries": entries,
        "imported_by": importers,
        "commit_count": len(commits),
    }
    if span_filter is not None and len(span_filter.aliases) > 1:
        result["target"]["formerly"] = [name for name, _ in span_filter.aliases[1:]]
    if (repo_id < 0 or not store.repos.has_sessions(repo_id)) and not edits:
        from hansard.answers.notices import no_sessions

        result["notice"] = no_sessions(store)  # an empty history here says nothing of who wrote it

    def add_tests(entry: dict[str, Any]) -> None:
        srow = entry.pop("srow", None)
        if srow is not None:
            tests = session_tests(store, srow, bound)
            if tests["failed_then_fixed"] or tests["still_failing"]:
                entry["tests"] = {"failed_then_fixed": tests["failed_then_fixed"], "still_failing": tests["still_failing"]}

    return cast("CodeHistory", fit_budget(served(result), token_budget, render, enrich=add_tests))


def _missing(path: str, base: str) -> None:
    """A path that is not in the working tree, not in the file's git history and that no session
    edited: a typed error, not an empty history (``PATH:abc`` is a malformed target)."""
    from hansard.errors import MalformedTarget

    head, colon, tail = path.rpartition(":")
    if colon and os.path.isfile(os.path.join(base, head)):
        raise MalformedTarget(f"{path}: {tail!r} is not a line; give PATH or PATH:LINE")
    raise NotFound(f"{path} is not in the working tree, its git history or any archived session's edits")


# -- evidence gathering ------------------------------------------------------------------


def _edits(store: Store, repo_id: int, names: set[str], bound: float | None) -> list[dict[str, Any]]:
    rows = store.evidence.applied_edits(repo_id, names)
    out = []
    for r in rows:
        ts = evidence.parse_ts(r["timestamp"])
        if ts is None or (bound is not None and ts > bound):
            continue
        added, removed = edit_hashes(store, r["id"])
        d = dict(r)
        d.update(ts=ts, added=added, removed=removed)
        out.append(d)
    return out


def _why_lines(store: Store, top: str, rel: str, span: tuple[int, int] | None) -> dict[str, Blamed] | None:
    """Each session `why` gives lines of the file now (within ``span``, a symbol's lines, when
    given) and what of it wrote them. None when the file has no lines to blame here (gone from
    the working tree, binary, not committed)."""
    from hansard.errors import BinaryFile, NotAFile, NotTracked

    try:
        ans = explain(store, rel, cwd=top)
    except (NotTracked, BinaryFile, NotAFile):
        return None
    out: dict[str, Blamed] = {}
    for ln in ans["lines"]:
        sid = ln.get("session_id")
        if sid and (span is None or span[0] <= ln["line"] <= span[1]):
            b = out.get(sid)
            if b is None:
                b = out[sid] = Blamed(ans["sessions"].get(sid) or {})
            b.lines += 1
            if call := ln["tool_call_id"]:
                b.calls.add(call)
            if (index := ln["message_index"]) is not None:
                b.messages.add(index)
    return out


class Blamed:
    """What `why` gives one session of a file now: ``lines`` lines, written by the tool calls
    ``calls`` of the messages ``messages`` (a pasted line names a message and no call), and the
    session as the answer describes it (``about``: title, provider, start...)."""

    __slots__ = ("about", "calls", "lines", "messages")

    def __init__(self, about: Mapping[str, Any]) -> None:
        self.about = about
        self.lines = 0
        self.calls: set[str] = set()
        self.messages: set[int] = set()


def _edits_of_lines(store: Store, repo_id: int, blamed: dict[str, Blamed], listed: set[str],
                    bound: float | None) -> list[dict[str, Any]]:
    """The edits that wrote the file's lines now, of the sessions history does not list: edits
    `why` follows where git's history of the file does not (an edit of a file a commit moved
    this one's lines from, which git saw as a deletion and a new file)."""
    paths: set[str] = set()
    for sid in set(blamed) - listed:
        row = store.evidence.session(sid)
        if row is not None:
            paths |= {r["rel_path"] for r in store.evidence.session_edits(row["id"]) if r["rel_path"]}
    if not paths or repo_id < 0:
        return []
    return [e for e in _edits(store, repo_id, paths, bound)
            if e["session_id"] in blamed and e["session_id"] not in listed and e["call_id"] in blamed[e["session_id"]].calls]


def _elsewhere(store: Store, session_ids: set[str], repo_only: str) -> set[str]:
    """The sessions among ``session_ids`` that did not run in the repository at ``repo_only``."""
    granted = os.path.realpath(repo_only)
    out = set()
    for sid in session_ids:
        found, path = store.sessions.repo_path_of(sid)
        if not found or not path or os.path.realpath(path) != granted:
            out.add(sid)
    return out


def unnamed_elsewhere(store: Store, ans: Mapping[str, Any], repo_only: str) -> WhyAnswer:
    """A why answer in which no session that ran outside ``repo_only`` is named: its lines say
    OTHER_REPOSITORY, and no id, prompt or title of it is left anywhere in the answer."""
    named: set[str] = set(ans.get("sessions") or {})
    for ln in ans["lines"]:
        named.update(x for x in (ln.get("session_id"), (ln.get("recorded") or {}).get("session_id")) if isinstance(x, str))
        named.update(x for key in ("later_sessions", "alternatives") for x in ln.get(key) or () if isinstance(x, str))
    elsewhere = _elsewhere(store, named, repo_only)
    if not elsewhere:
        return cast("WhyAnswer", ans)
    lines = []
    for ln in ans["lines"]:
        ln = dict(ln)
        if ln.get("session_id") in elsewhere:
            ln.update(session_id=None, provider=None, message_index=None, tool_call_id=None, session=OTHER_REPOSITORY)
            ln.pop("tool", None)
        for key in ("later_sessions", "alternatives"):
            if ln.get(key):
                ln[key] = [x for x in ln[key] if x not in elsewhere]
        rec = ln.get("recorded")
        if isinstance(rec, dict) and rec.get("session_id") in elsewhere:
            # an Agent Trace record's hansard:// url names the session too
            ln["recorded"] = {k: v for k, v in rec.items() if k not in ("session_id", "prompt", "title", "url")}
        lines.append(ln)
    sessions = {sid: s for sid, s in (ans.get("sessions") or {}).items() if sid not in elsewhere}
    return cast("WhyAnswer", {**ans, "lines": lines, "sessions": sessions})


def _session_entries(store: Store, edits: list[dict[str, Any]], commits: list[FileCommit],
                     elsewhere: set[str] | frozenset[str] = frozenset(), blamed: dict[str, Blamed] | None = None
                     ) -> list[dict[str, Any]]:
    """One entry per session among ``edits``; with ``blamed`` (`why`'s sessions of the file
    now), one for each of those too, and each entry's ``lines``."""
    by_sha = {c.sha: c for c in commits}
    sessions: dict[str, dict[str, Any]] = {}
    live = live_sessions(store)
    for e in sorted(edits, key=lambda e: e["ts"]):
        s = sessions.get(e["session_id"])
        if s is None and e["session_id"] in elsewhere:
            s = sessions[e["session_id"]] = _unnamed()
        if s is None:
            s = sessions[e["session_id"]] = {
                "kind": "session", "session_id": e["session_id"], "provider": e["provider"],
                "title": e["title"] or first_line(e["first_prompt"]), "started_at": e["started_at"],
                "last_at": e["last_at"], "parent_session_id": e["parent_session_id"],
                "live": e["session_id"] in live, "edits": [], "commits": [], "undoes": [], "srow": e["srow"],
            }
            if e["member"]:  # a teammate's session (hansard.team)
                s["member"], s["member_name"] = e["member"], e["member_name"]
            s["source"] = source_of(e)
        shas = edit_landed_in(e["ts"], e["added"], e["removed"], commits)
        foreign = e["session_id"] in elsewhere
        s["edits"].append({"message_index": None if foreign else e["message_index"],
                           "tool_call_id": None if foreign else e["call_id"], "tool": e["tool"],
                           "path": e["rel_path"], "timestamp": e["timestamp"], "commits": shas})
        for sha in shas:
            if sha not in [c["sha"] for c in s["commits"]]:
                c = by_sha[sha]
                s["commits"].append({"sha": sha, "summary": c.summary, "committed_at": _iso(c.committer_time)})
    # Edits that undo an earlier session's edit: they take out most of what it added and put
    # back what it removed (for a pure addition: add next to nothing). A follow-up that
    # rewrites the same lines differently is not an undo.
    ordered = sorted(edits, key=lambda e: e["ts"])
    for i, later in enumerate(ordered):
        for earlier in ordered[:i]:
            if undoes(later["added"], later["removed"], earlier["added"], earlier["removed"]):
                hidden, by_hidden = earlier["session_id"] in elsewhere, later["session_id"] in elsewhere
                sessions[later["session_id"]]["undoes"].append({
                    "session_id": None if hidden else earlier["session_id"],
                    "message_index": None if hidden else earlier["message_index"],
                    "tool_call_id": None if hidden else earlier["call_id"],
                    "by_message_index": None if by_hidden else later["message_index"],
                    **({"session": OTHER_REPOSITORY} if hidden else {}),
                })
    for sid, b in (blamed or {}).items():
        if sid not in sessions:  # no edit to show (a chat's pasted code): the messages its lines name
            about = b.about
            sessions[sid] = _unnamed() if sid in elsewhere else {
                "kind": "session", "session_id": sid, "provider": about.get("provider"), "title": about.get("title"),
                "started_at": about.get("started_at"), "last_at": None, "parent_session_id": about.get("parent_session_id"),
                "live": sid in live, "edits": [], "commits": [], "undoes": [], "srow": None,
                **{k: about[k] for k in ("member", "member_name", "source") if k in about}}
            sessions[sid]["messages"] = [] if sid in elsewhere else sorted(b.messages)
    out = []
    for sid, s in sessions.items():
        if not s["undoes"]:
            s.pop("undoes")
        s["last_edit_at"] = max((e["timestamp"] or "" for e in s["edits"]), default=None)
        s["sort_time"] = s["last_edit_at"] or s["started_at"] or ""
        if blamed is not None:
            s["lines"] = blamed[sid].lines if sid in blamed else 0
        out.append(s)
    return out


def _unnamed() -> dict[str, Any]:
    """The entry of a session that ran in another repository: nothing that names it."""
    return {"kind": "session", "session_id": None, "session": OTHER_REPOSITORY, "provider": None, "title": None,
            "started_at": None, "last_at": None, "parent_session_id": None, "live": False, "edits": [],
            "commits": [], "undoes": [], "srow": None}


def _revert_entries(commits: list[FileCommit], sessions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """`git revert` commits, and commits that remove most of what an earlier linked commit added."""
    linked = {c["sha"]: s["session_id"] for s in sessions for c in s["commits"]}
    out = []
    ordered = sorted(commits, key=lambda c: c.committer_time)
    for i, c in enumerate(ordered):
        undone = [p for p in ordered[:i] if p.sha in linked and undoes(c.added, c.removed, p.added, p.removed)]
        if not c.is_revert and not undone:
            continue
        entry = {"kind": "revert", "commit": c.sha, "summary": c.summary, "committed_at": _iso(c.committer_time),
                 "author": c.author, "sort_time": _iso(c.committer_time), "git_revert": c.is_revert,
                 "undoes": [{"commit": p.sha, "session_id": linked[p.sha]} for p in undone]}
        out.append(entry)
    return out


def undoes(added: set[int], removed: set[int], earlier_added: set[int], earlier_removed: set[int]) -> bool:
    """Does a change (added, removed) undo an earlier one? It removes most of what the earlier
    change added, and what it adds is mostly what the earlier change removed."""
    if not earlier_added or len(removed & earlier_added) < UNDO_SHARE * len(earlier_added):
        return False
    if not earlier_removed:
        return len(added) <= 1
    return len(added & earlier_removed) >= UNDO_SHARE * max(len(added), 1)


class SymbolSpans:
    """Where a symbol was, in each version of the file, so history can be narrowed to the
    edits and commits whose changed lines fell inside it at that time. The symbol is followed
    as it moves within the file (its span is looked up by name in every version) and through
    renames: when a commit introduces the name and its parent has no such symbol, the parent's
    symbol of the same kind with the most similar body is the same symbol under its old name.

    Versions are read by blob id: symbols come from the cache keyed by blob id, and the blobs
    the cache lacks are read in one `git cat-file --batch`."""

    RENAME_SIMILARITY = 0.6

    def __init__(self, store: Store, top: str, name: str, rel: str) -> None:
        from hansard.code import symbols as sym

        self.store, self.top, self.name, self.rel, self.sym = store, top, name, rel, sym
        self._blobs: dict[str, bytes] = {}
        # (name, valid until this commit time): the newest name is valid for ever.
        self.aliases: list[tuple[str, float]] = [(name, float("inf"))]

    def prefetch(self, commits: list[FileCommit]) -> None:
        from hansard.git.history import read_blobs

        want = []
        for c in commits:
            lang = self.sym.language_for(c.path)
            if c.blob and lang and c.blob not in self._blobs and not self.sym.is_cached(self.store, c.blob, lang):
                want.append(c.blob)
        self._blobs.update(read_blobs(self.top, sorted(set(want))))

    def _text(self, blob: str) -> bytes | None:
        if blob not in self._blobs:
            from hansard.git.history import read_blobs

            self._blobs.update(read_blobs(self.top, [blob]))
        return self._blobs.get(blob)

    def _symbols(self, blob: str | None, path: str) -> list[Any]:
        lang = self.sym.language_for(path)
        if lang is None or not blob:
            return []
        return self.sym.cached_symbols(self.store, blob, lang, lambda: self._text(blob))

    def _span(self, blob: str | None, path: str, name: str) -> tuple[int, int] | None:
        found = self.sym.find(self._symbols(blob, path), name)
        return (found[0].start_line, found[0].end_line) if found else None

    def span_in(self, source: bytes, path: str, name: str) -> tuple[int, int] | None:
        lang = self.sym.language_for(path)
        if lang is None:
            return None
        found = self.sym.find(self.sym.cached_symbols(self.store, self.sym.blob_id(source), lang, source), name)
        return (found[0].start_line, found[0].end_line) if found else None

    def name_at(self, t: float) -> str:
        for name, until in reversed(self.aliases):
            if t <= until:
                return name
        return self.name

    def span_now(self) -> tuple[int, int] | None:
        """The symbol's lines (first, last) in the working tree's file, or None."""
        try:
            data = safeopen.read_bytes(os.path.join(self.top, self.rel), follow=True)  # a FIFO never blocks
        except OSError:
            return None
        return self.span_in(data, self.rel, self.name)

    def trace(self, commits: list[FileCommit]) -> None:
        """Walk the file's history newest first and record renames of the symbol."""
        self.prefetch(commits)
        name = self.name
        for i, c in enumerate(commits):
            found = self.sym.find(self._symbols(c.blob, c.path), name)
            if not found:
                continue
            parent = commits[i + 1] if i + 1 < len(commits) else None
            if parent is None:
                break
            if self.sym.find(self._symbols(parent.blob, parent.path), name):
                continue
            old = self._renamed_from(found[0], c, parent)
            if old is None:
                break  # the symbol was born in this commit
            self.aliases.append((old, float(c.committer_time) - 1))
            name = old

    def _renamed_from(self, now: Any, c: FileCommit, parent: FileCommit) -> str | None:
        src, psrc = self._text(c.blob or ""), self._text(parent.blob or "")
        if src is None or psrc is None:
            return None
        body = "\n".join(textnorm.split_lines(src.decode("utf-8", "replace"))[now.start_line: now.end_line])
        plines = textnorm.split_lines(psrc.decode("utf-8", "replace"))
        best: tuple[float, str] | None = None
        for cand in self._symbols(parent.blob, parent.path):
            if cand.kind != now.kind:
                continue
            sim = similarity(body, "\n".join(plines[cand.start_line: cand.end_line]), self.RENAME_SIMILARITY)
            if sim >= self.RENAME_SIMILARITY and (best is None or sim > best[0]):
                best = (sim, cand.name)
        return best[1] if best else None

    def commit_touches(self, c: FileCommit) -> bool:
        span = self._span(c.blob, c.path, self.name_at(c.committer_time))
        if span is None:
            return False
        diff = commit_diff(self.store, self.top, c.sha, c.path)
        for h in diff.hunks if diff else ():
            if h.new_start is None:
                continue
            lo, hi = h.new_start, h.new_start + max((h.new_lines or 0) - 1, 0)
            if lo <= span[1] and hi >= span[0]:
                return True
        return False

    def edit_touches(self, e: dict[str, Any], commits: list[FileCommit]) -> bool:
        # The edit may itself be the rename: any name the symbol had at its time or later.
        names = [n for n, until in self.aliases if until >= e["ts"]]
        content = self.store.evidence.edit_content(e["id"])
        after = content["after_text"] if content else None
        numbers = touched_lines(content["hunks"]) if content else []
        if after is not None and numbers:
            data = after.encode("utf-8", "surrogatepass")
            spans = [sp for n in names if (sp := self.span_in(data, e["rel_path"], n)) is not None]
            return any(sp[0] <= n <= sp[1] for sp in spans for n in numbers)
        # No text of the file after the edit: look for its lines in the version it landed in.
        by_sha = {c.sha: c for c in commits}
        for sha in edit_landed_in(e["ts"], e["added"], e["removed"], commits):
            c = by_sha[sha]
            span = self._span(c.blob, c.path, self.name_at(c.committer_time))
            src = self._text(c.blob) if span is not None and c.blob else None
            if span is None or src is None:
                continue
            lines = textnorm.split_lines(src.decode("utf-8", "replace"))[span[0] - 1: span[1]]
            if {textnorm.line_hash(x) for x in lines} & e["added"]:
                return True
        return False


def touched_lines(hunks: list[list[Any]]) -> list[int]:
    """Post-edit line numbers an edit changed: its added lines, and for removed lines the
    lines on either side of where they were."""
    out: list[int] = []
    for _old_start, _old_lines, new_start, _new_lines, lines in hunks:
        if new_start is None:
            continue
        ln = new_start
        for raw in lines:
            tag = raw[:1]
            if tag == "+":
                out.append(ln)
                ln += 1
            elif tag == "-":
                out.extend((max(ln - 1, 1), ln))
            else:
                ln += 1
    return out


def imported_by(store: Store, top: str, rel: str) -> list[dict[str, Any]]:
    from hansard.code.imports import importers_of
    from hansard.code.symbols import blob_id, cached_imports, language_for

    if language_for(rel) is None:
        return []
    files = set(git_text(["ls-files", "-z"], top).split("\0")) - {""}

    def read(p: str) -> bytes | None:
        try:
            return safeopen.read_bytes(os.path.join(top, p), follow=True)
        except OSError:
            return None

    def imports_of(p: str, source: bytes, lang: str):  # type: ignore[no-untyped-def]
        return cached_imports(store, blob_id(source), lang, source)

    return [{"path": imp.path, "line": imp.line} for imp in importers_of(files, rel, read, imports_of=imports_of)]


# -- rendering -----------------------------------------------------------------------------


def served(result: Mapping[str, Any]) -> dict[str, Any]:
    """The answer as served: every string through the redactor. Transcript
    text is redacted when indexed; what git and the working tree give (commit summaries and
    authors, a line's text) is not, until here."""
    from hansard.ingest.redact import redact_value

    clean: dict[str, Any] = redact_value(result)[0]
    return clean


def _redacted_lines(ans: Mapping[str, Any]) -> Mapping[str, Any]:
    """The why answer with its lines' texts redacted together (a private key spans lines)."""
    from hansard.ingest.redact import redact_lines

    texts = [ln["content"] if isinstance(ln.get("content"), str) else "" for ln in ans["lines"]]
    red, n = redact_lines(texts)
    if not n:
        return ans
    lines = [{**ln, "content": r} if isinstance(ln.get("content"), str) else ln for ln, r in zip(ans["lines"], red, strict=True)]
    return {**ans, "lines": lines}


def _line_answer(ans: Mapping[str, Any], token_budget: int, render: Render) -> CodeHistory:
    ans = served(_redacted_lines(ans))
    entries = []
    for ln in ans["lines"]:
        e = {"kind": "line", "line": ln["line"], "content": ln["content"], "attribution": ln["kind"],
             "session_id": ln["session_id"], "message_index": ln["message_index"], "tool_call_id": ln["tool_call_id"],
             "commit": ln["commit"], "rule": ln["rule"], "sort_time": ""}
        if ln["session_id"]:
            s = ans["sessions"][ln["session_id"]]
            e.update(title=s["title"], provider=s["provider"], prompt=s["prompt"])
            if s.get("member"):
                e.update(member=s["member"], member_name=s.get("member_name"))
            if s.get("source"):
                e["source"] = s["source"]
        c = (ans.get("commits") or {}).get(ln["commit"] or "")
        if c:
            e["commit_summary"] = c.get("summary")
        if ln.get("tool"):
            e["tool"] = ln["tool"]
        if ln.get("session"):
            e["session"] = ln["session"]
        entries.append(e)
    result = {"target": {"path": ans["path"], "line": ans["lines"][0]["line"] if ans["lines"] else None},
              "entries": entries, "imported_by": [], "why": ans}
    if ans.get("notice"):
        result["notice"] = ans["notice"]
    return cast("CodeHistory", fit_budget(result, token_budget, render))


def _iso(ts: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(ts))


def first_line(text: str | None) -> str | None:
    return text.strip().splitlines()[0][:100] if text and text.strip() else None
