"""`hansard review`: the story behind a change, for the person reviewing it.

For every line the change adds, the answer `why` gives that line at the change's head, cut
from the file's one whole-file answer (one line, one answer: never a second heuristic), then
grouped into hunks and runs of lines with one author and the request behind them; per session
that wrote lines of it, what it was asked, the files it touched here, the tests and commands it
ran after its last edit with their last outcome, what it said last and the command that opens
it; for the reviewer, the lines no session explains, the agent lines changed since, the
sessions whose tests after their last edit failed or that ran none, and the redactions; totals
by kind, agent and session.

Always true: ``files[i]["lines"]`` are `why`'s line answers for the file at ``range.head``,
exactly the lines the change added there, in order; every run and total is counted from them;
every text comes from the store or the why answer, which redact it. Nothing is written: `why`'s
fresh answers are offered to the request (``hansard.store.kept``), as `why` offers them.
"""

from __future__ import annotations

import os
import time
from typing import TYPE_CHECKING, cast

from hansard.errors import HansardError

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from typing import Any, Literal

    from hansard.answers.results import (
        Review,
        ReviewCommand,
        ReviewFile,
        ReviewHunk,
        ReviewLines,
        ReviewRun,
        ReviewSession,
        ReviewTestRun,
        Source,
        WhyAnswer,
        WhyLine,
    )
    from hansard.git.changes import Changed
    from hansard.store.interfaces import Store

    Outcome = Literal["passed", "failed", "unknown"]
    Tested = Literal["passed", "failed", "none", "unknown"]

SCHEMA = "hansard.review/1"
KINDS = ("agent", "agent_modified", "pasted", "human", "unknown", "uncommitted")
SUMMARY_CHARS = 1500  # of a session's closing message
REQUEST_CHARS = 1000  # of one request's text
COMMANDS_SHOWN = 10  # shell commands after a session's last edit, the newest
# Under a call's deadline (the MCP server's), files are answered while this much of it is left:
# the rest is for the sessions and the answer itself; a file left out says ``out_of_time``.
RESERVE_S = 10.0
# Where a session was read (its ``source`` kind), as the review says it.
SOURCE_NAMES = {"local": "this machine's agent homes", "repository": "the repository's checkpoint refs",
                "repository_file": "history files in the work tree", "import": "an imported export",
                "member": "a teammate (the team store)"}


def review(store: Store, range: str | None = None, *, commit: str | None = None, repo: str | None = None,
           token_budget: int | None = None, cache: bool = True, repo_only: str | None = None) -> Review:
    """The review of ``range`` (``A..B``, ``A...B``; default: this branch against its upstream's
    merge base, else the default branch's) or of ``commit``, in the repository holding ``repo``
    (default: the current folder). ``cache``: `why`'s cached answers may be read (the
    application's choice). With ``repo_only``, no session that ran in another repository is
    named. With ``token_budget``, the answer is cut to fit and ``truncated`` says what went.
    Under a deadline (``hansard.git.run.DEADLINE``), the files not answered in time are listed
    with ``skipped: "out_of_time"`` and counted in ``truncated``."""
    from hansard.errors import NotARepository
    from hansard.git import changes
    from hansard.git.identity import find_toplevel

    where = os.path.abspath(repo or os.getcwd())
    found = find_toplevel(where)
    if found is None:
        raise NotARepository(f"{where} is not inside a git repository")
    top = found[0]
    change, files = changes.changed(top, range, commit)
    out_files: list[ReviewFile] = []
    docs: dict[str, WhyAnswer] = {}
    from hansard.answers.why.many import InTurn
    from hansard.git.history import deleted_ahead
    from hansard.git.run import DEADLINE

    deadline = DEADLINE.get()
    answered = [f for f in files if not f.binary]
    turn = InTurn(top, [(change.head, f.path) for f in answered], not cache)
    k = 0
    # the change's own commits are most of its lines' commits: what each deleted is asked at once
    deleted_ahead(top, f"{change.base}..{change.head}" if change.base else change.head, now=not cache)
    try:
        for f in files:
            if f.binary:
                out_files.append(_file(f, None, "binary"))
                continue
            if deadline is not None and deadline - time.monotonic() < RESERVE_S:
                out_files.append(_file(f, None, "out_of_time"))  # the rest of the call's time: the answer itself
                continue
            turn.before(k)
            doc, skipped = _answer(store, top, f, change.head, cache, repo_only)
            turn.after(k)
            k += 1
            if doc is not None:
                docs[f.path] = doc
            out_files.append(_file(f, doc, skipped))
    finally:
        turn.close()
        deleted_ahead(top, None)
    sessions_seen: dict[str, Mapping[str, Any]] = {}
    for doc in docs.values():
        for sid, s in doc["sessions"].items():
            sessions_seen.setdefault(sid, s)
    for rf in out_files:
        _asked_runs(rf, sessions_seen)
    sessions = _sessions(store, out_files, sessions_seen)
    commits = {sha: c for doc in docs.values() for sha, c in doc["commits"].items()
               if any(ln["commit"] == sha for ln in _lines(out_files, doc["path"]))}
    result: dict[str, Any] = {
        "schema": SCHEMA, "repo": top,
        "range": {"spec": change.spec, "how": change.how, "base": change.base, "head": change.head,
                  "commits": change.commits},
        "files": out_files, "sessions": sessions, "commits": commits,
        "flags": _flags(out_files, sessions), "totals": _totals(out_files),
        "sources": _sources(store, out_files, sessions),
    }
    notice = next((d["notice"] for d in docs.values() if "notice" in d), None)
    if notice is not None:
        result["notice"] = notice
    if any(d.get("indexing") for d in docs.values()):
        result["indexing"] = True
    late = sum(1 for f in out_files if f.get("skipped") == "out_of_time")
    if late:
        result["truncated"] = {"files_out_of_time": late}
    if token_budget is not None:
        _fit(result, token_budget)
    return cast("Review", result)


def _answer(store: Store, top: str, f: Changed, head: str, cache: bool, repo_only: str | None
            ) -> tuple[WhyAnswer | None, str | None]:
    """The file's whole `why` answer at the head, or why it has none."""
    from hansard.answers.why import explain

    try:
        doc = explain(store, f.path, rev=head, cwd=top, cache=cache)
    except HansardError as exc:  # a file git cannot blame, one past the size bound: said, not answered
        return None, exc.code
    if repo_only is not None:
        from hansard.answers.code_history import unnamed_elsewhere

        doc = unnamed_elsewhere(store, doc, repo_only)
    return doc, None


def _file(f: Changed, doc: WhyAnswer | None, skipped: str | None) -> ReviewFile:
    at = {ln["line"]: ln for ln in doc["lines"]} if doc is not None else {}
    lines = [at[n] for n in f.added if n in at]
    hunks: list[ReviewHunk] = []
    for h in f.hunks:
        hl = [at[n] for n in range(h.new_start, h.new_start + h.new_lines) if n in at]
        hunks.append({"old_start": h.old_start, "old_lines": h.old_lines, "new_start": h.new_start,
                      "new_lines": h.new_lines, "runs": _runs(hl)})
    out: ReviewFile = {"path": f.path, "old_path": f.old_path, "status": f.status, "added": len(f.added),
                       "removed": f.removed, "hunks": hunks, "lines": lines}
    if skipped is not None:
        out["skipped"] = skipped
    return out


def _key(ln: WhyLine) -> tuple[object, ...]:
    return (ln["kind"], ln["rule"], ln["session_id"], ln["message_index"], ln["tool_call_id"], ln["commit"])


def _author(ln: WhyLine) -> tuple[object, ...]:
    return (ln["kind"], ln["session_id"], ln["message_index"], ln["tool_call_id"], ln["commit"])


def _runs(lines: Sequence[WhyLine]) -> list[ReviewRun]:
    """Consecutive lines with one author: the same kind, session, message, tool call and
    commit (each line's rule stays in its answer)."""
    out: list[ReviewRun] = []
    prev: WhyLine | None = None
    for ln in lines:
        if prev is not None and out and ln["line"] == out[-1]["end"] + 1 and _author(ln) == _author(prev):
            out[-1]["end"] = ln["line"]
        else:
            out.append({"start": ln["line"], "end": ln["line"], "kind": ln["kind"],
                        "session_id": ln["session_id"], "provider": ln["provider"],
                        "message_index": ln["message_index"], "tool_call_id": ln["tool_call_id"],
                        "commit": ln["commit"], "asked": None, "asked_index": None})
        prev = ln
    return out


def request_of(session: Mapping[str, Any], message_index: int | None) -> tuple[int | None, str | None]:
    """(index, text) of the request behind an edit at ``message_index``, as the `why` answer's
    session entry says it (``asked``: the request, not the acknowledgement that let the agent
    go on; the session's first request when the edit has none; the title, with no index,
    when it has no request at all)."""
    prompts: Mapping[str, str] = session.get("prompts") or {}
    asked = (session.get("asked") or {}).get(str(message_index))
    index = asked.get("request") if asked else session.get("first_request")
    if index is not None and str(index) in prompts:
        return index, prompts[str(index)][:REQUEST_CHARS]
    title = session.get("title") or session.get("prompt")
    return None, title[:REQUEST_CHARS] if title else None


def _asked_runs(rf: ReviewFile, sessions: Mapping[str, Mapping[str, Any]]) -> None:
    for h in rf["hunks"]:
        for run in h["runs"]:
            s = sessions.get(run["session_id"] or "")
            if s is not None and run["kind"] != "pasted":
                run["asked_index"], run["asked"] = request_of(s, run["message_index"])


def _lines(files: Sequence[ReviewFile], path: str) -> list[WhyLine]:
    return next((f["lines"] for f in files if f["path"] == path), [])


def _sessions(store: Store, files: Sequence[ReviewFile], seen: Mapping[str, Mapping[str, Any]]
              ) -> list[ReviewSession]:
    """Every session named by an added line, most lines first."""
    lines: dict[str, int] = {}
    touched: dict[str, set[str]] = {}
    requests: dict[str, dict[int | None, tuple[str, int]]] = {}
    for f in files:
        for ln in f["lines"]:
            sid = ln["session_id"]
            if sid is None or sid not in seen:
                continue
            lines[sid] = lines.get(sid, 0) + 1
            touched.setdefault(sid, set()).add(f["path"])
            if ln["kind"] != "pasted":
                idx, text = request_of(seen[sid], ln["message_index"])
                if text is not None:
                    got = requests.setdefault(sid, {})
                    got[idx] = (text, got.get(idx, ("", 0))[1] + 1)
    order = sorted(lines, key=lambda s: (-lines[s], s))
    redacted = store.sessions.redactions(order) if order else {}
    out: list[ReviewSession] = []
    for sid in order:
        s = seen[sid]
        row = store.evidence.session(sid)
        last_edit = store.sessions.last_edit_index(sid)
        tests, commands, failing = _after_last_edit(store, row["id"], last_edit) if row is not None else ([], [], [])
        closing = store.sessions.closing_message(sid)
        reqs = sorted(requests.get(sid, {}).items(), key=lambda kv: (kv[0] is None, kv[0] or 0))
        around = next((i for i, _ in reqs if i is not None), closing[0] if closing else 0)
        entry: ReviewSession = {
            "session_id": sid, "provider": s.get("provider"), "title": s.get("title"),
            "started_at": s.get("started_at"), "source": cast("Source", s.get("source") or {"kind": "local"}),
            "requests": [{"index": i, "text": t, "lines": n} for i, (t, n) in reqs],
            "files": sorted(touched[sid]), "lines": lines[sid], "last_edit_index": last_edit,
            "tests_after_last_edit": tests, "tested": _tested(tests, row is not None),
            "still_failing": failing,
            "commands_after_last_edit": commands,
            "summary": closing[1][:SUMMARY_CHARS] if closing else None,
            "summary_index": closing[0] if closing else None,
            "redactions": redacted.get(sid, 0), "open": f"hansard show {sid} --around {around}",
        }
        for key in ("member", "member_name"):
            if s.get(key):
                entry[key] = s[key]
        out.append(entry)
    return out


def _after_last_edit(store: Store, session_row: int, last: int | None
                     ) -> tuple[list[ReviewTestRun], list[ReviewCommand], list[str]]:
    """The session's test runs and other shell commands after its last applied edit (at
    message ``last``; all of them when its edits have no message index), and the tests still
    failing at its end."""
    from hansard.answers.session_facts import session_tests, shell_calls

    calls = shell_calls(store, session_row)
    facts = session_tests(store, session_row, calls=calls)
    runs = facts["runs"]
    tests: list[ReviewTestRun] = []
    test_calls = set()
    for r in runs:
        test_calls.add(r["tool_call_id"])
        if last is not None and (r["message_index"] is None or r["message_index"] <= last):
            continue
        tests.append({"command": str(r["command"])[:500], "runner": r["runner"], "message_index": r["message_index"],
                      "passed": r["passed"], "failed": r["failed"], "exit_code": r["exit_code"],
                      "outcome": _outcome(r["passed"], r["failed"], r["exit_code"])})
    commands: list[ReviewCommand] = [
        {"command": str(c["command"])[:500], "message_index": c["message_index"], "exit_code": c["exit_code"]}
        for c in calls
        if c["call_id"] not in test_calls and not (last is not None and (c["message_index"] or -1) <= last)]
    return tests, commands[-COMMANDS_SHOWN:], [str(t) for t in facts["still_failing"]][:50]


def _outcome(passed: int | None, failed: int | None, exit_code: int | None) -> Outcome:
    if (failed or 0) > 0 or (exit_code not in (None, 0)):
        return "failed"
    if (passed or 0) > 0 or exit_code == 0:
        return "passed"
    return "unknown"


def _tested(tests: Sequence[ReviewTestRun], known: bool) -> Tested:
    """The last test run's outcome after the session's last edit; ``none`` when it ran none
    after it, ``unknown`` when the session is not in this store."""
    if not known:
        return "unknown"
    return tests[-1]["outcome"] if tests else "none"


def _line_runs(files: Sequence[ReviewFile], keep: Any) -> list[ReviewLines]:
    """Runs of consecutive added lines that ``keep`` picks, with their answer."""
    out: list[ReviewLines] = []
    for f in files:
        prev: WhyLine | None = None
        for ln in f["lines"]:
            if not keep(ln):
                prev = None
                continue
            if prev is not None and out and out[-1]["path"] == f["path"] and ln["line"] == out[-1]["end"] + 1 \
                    and _key(ln) == _key(prev):
                out[-1]["end"] = ln["line"]
            else:
                run: ReviewLines = {"path": f["path"], "start": ln["line"], "end": ln["line"], "kind": ln["kind"],
                                    "rule": ln["rule"], "session_id": ln["session_id"]}
                if ln.get("alternatives"):
                    run["alternatives"] = list(ln["alternatives"])
                out.append(run)
            prev = ln
    return out


def _flags(files: Sequence[ReviewFile], sessions: Sequence[ReviewSession]) -> dict[str, Any]:
    from hansard.ingest.secret_screen import MARK

    return {
        "unexplained": _line_runs(files, lambda ln: ln["kind"] == "unknown"),
        "changed": _line_runs(files, lambda ln: ln["kind"] == "agent_modified" or ln["rule"] == "changed_later"),
        "tests_failed": [s["session_id"] for s in sessions if s["tested"] == "failed"],
        "untested": [s["session_id"] for s in sessions if s["tested"] == "none" and _runs_tools(s)],
        "redacted_lines": _line_runs(files, lambda ln: MARK in ln["content"]),
        "redacted_sessions": [s["session_id"] for s in sessions if s["redactions"]],
    }


def _runs_tools(s: ReviewSession) -> bool:
    """A session whose edits ran tools (a pasted web chat runs no test to look for)."""
    from hansard import agents

    a = agents.by_name(s["provider"] or "")
    return a is None or not a.web


def _totals(files: Sequence[ReviewFile]) -> dict[str, Any]:
    by_kind = dict.fromkeys(KINDS, 0)
    by_agent: dict[str, int] = {}
    by_session: dict[str, int] = {}
    n = 0
    for f in files:
        for ln in f["lines"]:
            n += 1
            by_kind[ln["kind"]] = by_kind.get(ln["kind"], 0) + 1
            if ln["session_id"] is not None:
                by_session[ln["session_id"]] = by_session.get(ln["session_id"], 0) + 1
                if ln["provider"]:
                    by_agent[ln["provider"]] = by_agent.get(ln["provider"], 0) + 1
    return {"lines": n, "files": len(files), "by_kind": by_kind, "by_agent": by_agent, "by_session": by_session}


def _sources(store: Store, files: Sequence[ReviewFile], sessions: Sequence[ReviewSession]) -> dict[str, list[str]]:
    """Where the sessions and records came from, and what could not be read here."""
    read = {SOURCE_NAMES.get(s["source"].get("kind", "local"), s["source"].get("kind", "local")) for s in sessions}
    for f in files:
        for ln in f["lines"]:
            rec = ln.get("recorded")
            if rec:
                read.add(f"{rec['by']} records")
    unread = []
    from hansard.answers.agents_status import agent_status

    if not any(a["found"] for a in agent_status(store)):
        unread.append("agent homes (none on this machine)")
    return {"read": sorted(read), "unread": unread}


def _fit(result: dict[str, Any], token_budget: int) -> None:
    """Cut the answer to ``token_budget`` tokens: first each file's line answers (its runs
    stay), then whole files, longest first; ``truncated`` counts what went."""
    from hansard.answers.budget import estimate_tokens
    from hansard.errors import InvalidArgument

    if token_budget < 500:
        raise InvalidArgument("token_budget must be at least 500")
    cut: dict[str, int] = {}
    if estimate_tokens(result) > token_budget:
        cut["lines"] = sum(len(f["lines"]) for f in result["files"])
        for f in result["files"]:
            f["lines"] = []
    files = sorted(result["files"], key=lambda f: f["added"])
    while estimate_tokens(result) > token_budget and files:
        files.pop()
        cut["files"] = cut.get("files", 0) + 1
        result["files"] = [f for f in result["files"] if f in files]
    if cut:
        result["truncated"] = {**result.get("truncated", {}), **cut}
