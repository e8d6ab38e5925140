"""A teammate's session says whose it is in the text of `hansard log` and `hansard context`
too, as in `why` ("written by alice's Claude Code session …"; issue 12, item 3); the JSON
already carries `member` and `member_name`. Local sessions read as before."""

from __future__ import annotations

from typing import Any

from hansard.answers import work_context
from hansard.render import trees

SID = "4f0f2c6e-9d1b-4c7a-a35e-aaaaaaaaaaaa"
TEAM = {"member": "alice@example.com", "member_name": "alice"}


def _log(**member: str) -> dict[str, Any]:
    return {"target": {"path": "retry.py", "line": None}, "imported_by": [], "entries": [{
        "kind": "session", "session_id": SID, "provider": "claude_code", "title": "add a capped backoff",
        "last_edit_at": "2026-12-01T19:19:47.770Z", "live": False, "undoes": [], "reverted_by": [],
        "edits": [{"message_index": 1}], "commits": [{"sha": "365cdfa3a095", "summary": "Add capped backoff"}],
        **member}]}


def _context(**member: str) -> dict[str, Any]:
    return {"session": {"session_id": SID, "provider": "claude_code", "title": "add a capped backoff",
                        "selected_by": "argument"},
            "entries": [{"session_id": SID, "relation": "self", "title": "add a capped backoff",
                         "evidence": work_context.SELF, **member}],
            "steps": {}, "tests": {"failed_then_fixed": [], "still_failing": []}, "commits": []}


def test_log_text_names_the_member() -> None:
    assert "2026-12-01 alice's claude_code 4f0f2c6e-9d1b \"add a capped backoff\"" in trees.code_history_tree(_log(**TEAM))
    assert "2026-12-01 claude_code 4f0f2c6e-9d1b" in trees.code_history_tree(_log())


def test_context_text_names_the_member() -> None:
    text = trees.work_context_tree(_context(**TEAM)).splitlines()
    assert text[0] == f"alice's claude_code session {SID} \"add a capped backoff\" (the session asked for)"
    assert text[2] == "  self          alice's 4f0f2c6e-9d1b \"add a capped backoff\" — the session this context is about"
    local = trees.work_context_tree(_context()).splitlines()
    assert local[0].startswith("claude_code session") and "'s" not in local[2]
