"""A teammate's session says whose it is in the text of `hansard log` and `hansard context`
too, as in `why` ("written by alice@example.com (alice)'s Claude Code session …"); the
JSON already carries `member` and `member_name`. Local sessions read as before.
A teammate is named by the email the owner registered for their role; the name they give
themselves only follows in brackets."""

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
    assert ("2026-12-01 alice@example.com (alice)'s claude_code 4f0f2c6e-9d1b \"add a capped backoff\""
            in trees.code_history_tree(_log(**TEAM)))
    assert "2026-12-01 claude_code 4f0f2c6e-9d1b" in trees.code_history_tree(_log())


def test_context_text_names_the_member() -> None:
    text = trees.work_context_tree(_context(**TEAM)).splitlines()
    assert text[0] == f"alice@example.com (alice)'s claude_code session {SID} \"add a capped backoff\" (the session asked for)"
    assert text[2] == ("  self          alice@example.com (alice)'s 4f0f2c6e-9d1b \"add a capped backoff\""
                       " — the session this context is about")
    local = trees.work_context_tree(_context()).splitlines()
    assert local[0].startswith("claude_code session") and "'s" not in local[2]


def test_a_declared_name_never_stands_for_the_registered_member() -> None:
    """Mallory's git user.name is "Alice Example": her sessions are still mallory@example.com's."""
    from hansard.render import answers, recall, teammate

    mallory = {"member": "mallory@example.com", "member_name": "Alice Example"}
    assert teammate(mallory) == "mallory@example.com (Alice Example)"
    assert teammate({"member": "bob@example.com", "member_name": None}) == "bob@example.com"
    texts = [trees.code_history_tree(_log(**mallory)), trees.work_context_tree(_context(**mallory))]
    ans = {"path": "retry.py", "commits": {}, "sessions": {SID: {"provider": "claude_code", "title": None,
                                                                  "started_at": None, "prompts": {}, **mallory}},
           "lines": [{"line": 1, "content": "x", "kind": "agent", "rule": "wrote", "commit": None, "session_id": SID,
                      "message_index": 1, "tool_call_id": "t", "tool": "Edit"}]}
    texts.append(answers.why_line(ans, ans["lines"][0]))
    texts.append(recall.transcript({"session": {"session_id": SID, "provider": "claude_code", "title": None,
                                                "started_at": "t", "cwd": "/r", "message_count": 0, **mallory},
                                    "messages": []}))
    for text in texts:
        assert "mallory@example.com (Alice Example)'s" in text and "Alice Example's" not in text, text


def test_the_web_page_names_the_registered_member_too() -> None:
    from hansard.web import pages
    from hansard.web.html import Links

    mallory = {"member": "mallory@example.com", "member_name": "Alice Example"}
    session = {"session_id": SID, "provider": "claude_code", "title": "t", **mallory}
    view = {"line": {"line": 1, "kind": "agent", "rule": "wrote", "message_index": 1, "session_id": SID},
            "session": session}
    side = str(pages.conversation(Links("tok"), "a.py", view))
    page = str(pages.session_page(Links("tok"), "/r", {"session": {**session, "cwd": "/r", "message_count": 0},
                                                        "messages": []}, [], False, None))
    for html in (side, page):
        assert "team: mallory@example.com (Alice Example)" in html and "team: Alice Example" not in html
