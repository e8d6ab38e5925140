"""Per-session facts read back from the store for code_history and work_context: whether a
session is live, its shell commands, its test runs (failing, then fixed), and its steps.

Shell commands are read from the tool calls of every agent's shell tools (each agent's
record in hansard.agents names them), with the working directory of that call where the
transcript gives one.
"""

from __future__ import annotations

import json
import os
import time
from typing import TYPE_CHECKING, Any

from hansard.answers.evidence import parse_ts
from hansard.facts.shell import SHELL_TOOLS, shell_command

if TYPE_CHECKING:
    from hansard.store.interfaces import Store

# A transcript appended within this many seconds, with no end marker, is a live session.
LIVE_WINDOW_S = 300


def shell_calls(store: Store, session_row: int, until: float | None = None) -> list[dict[str, Any]]:
    """A session's shell commands in order, up to ``until``."""
    rows = store.evidence.session_tool_calls(session_row, SHELL_TOOLS)
    out = []
    for r in rows:
        ts = parse_ts(r["timestamp"])
        if until is not None and ts is not None and ts > until:
            continue
        try:
            inp = json.loads(r["input"] or "{}")
        except ValueError:
            inp = {}
        cmd = shell_command(inp if isinstance(inp, dict) else {})
        if cmd is None:
            continue
        out.append({"call_id": r["call_id"], "command": cmd, "output": r["output"], "exit_code": r["exit_code"],
                    "status": r["status"], "timestamp": r["timestamp"], "message_index": r["message_index"],
                    "cwd": inp.get("workdir") if isinstance(inp, dict) else None})
    return out


def session_tests(store: Store, session_row: int, until: float | None = None,
                  calls: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """Test runs of a session: which tests failed and were fixed later, which still fail
    (``calls``: its ``shell_calls`` up to ``until``, when already read)."""
    if calls is None:
        calls = shell_calls(store, session_row, until)
    if not calls:  # no command ran: no test either (and the runners' parsers stay unimported)
        return {"runs": [], "failed_then_fixed": [], "still_failing": []}
    from hansard.facts.test_outcomes import analyze_test_runs

    hist = analyze_test_runs(
        (c["timestamp"], c["call_id"], c["message_index"], c["command"], c["output"],
         c["exit_code"] if c["exit_code"] is not None else _status_code(c["status"]))
        for c in calls
    )
    return {
        "runs": [{"runner": r.runner, "command": r.command, "passed": r.passed, "failed": r.failed,
                  "failing": list(r.failing_ids), "exit_code": r.exit_code, "message_index": r.message_index,
                  "tool_call_id": r.call_id, "timestamp": r.timestamp} for r in hist.runs],
        "failed_then_fixed": [{"test": f.test_id, "runner": f.runner, "failed_at": f.first_failed.message_index,
                               "fixed_at": f.fixed.message_index, "evidence": f.evidence} for f in hist.fixed],
        "still_failing": [s.test_id for s in hist.still_failing],
    }


def _status_code(status: str | None) -> int | None:
    return {"ok": 0, "error": 1}.get(status or "")


def live_sessions(store: Store, now: float | None = None) -> set[str]:
    """Sessions whose transcript is still growing: the file changed within the last few
    minutes (or has an unfinished line), and its last message is recent."""
    now = time.time() if now is None else now
    out: set[str] = set()
    for r in store.evidence.session_sources():
        try:
            st = os.stat(r["path"])
        except OSError:
            continue
        growing = r["size"] == -1 or st.st_size != r["size"]
        last = parse_ts(r["last_at"])
        if growing or (now - st.st_mtime < LIVE_WINDOW_S and last is not None and now - last < LIVE_WINDOW_S):
            out.add(r["session_id"])
    return out
