"""The offline team copy (`hansard team pull`) answers keyword search through the same
TeamQueries as the server: words match literally, excluded words drop a message, and this
machine's own sessions are left out (they are answered from the local store)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hansard.store.postgres.queries import TeamQueries
from hansard.store.sqlite.store import SqliteStore
from hansard.store.sqlite.team_copy import SqliteTeamCopy
from hansard.team.view import TeamView

ROOT = "a" * 40
ME = ("me@example.com", "laptop")


def _copy(tmp_path: Path, **more: list[dict[str, Any]]) -> SqliteTeamCopy:
    copy = SqliteTeamCopy(str(tmp_path / "team" / "offline.db"))
    messages = [
        (1, 1, "we chose retry_policy exponential", "2026-11-01T10:00:00Z"),
        (2, 1, "the retryXpolicy field is unrelated", "2026-11-01T11:00:00Z"),
        (3, 2, "retry_policy chosen on my own machine", "2026-11-01T12:00:00Z"),
        (4, 1, "retry_policy flaky upload", "2026-11-01T13:00:00Z"),
        (5, 1, "100% of retry_policy calls", "2026-11-01T14:00:00Z"),
    ]
    copy.replace({
        "members": [{"id": 1, "email": "alice@example.com", "machine": "desk", "name": "Alice"},
                    {"id": 2, "email": ME[0], "machine": ME[1], "name": "Me"}],
        "repos": [{"id": 1, "root_commit": ROOT, "remote": None, "name": "app"}],
        "sessions": [{"id": 1, "member_id": 1, "repo_id": 1, "session_id": "s-alice", "provider": "claude_code"},
                     {"id": 2, "member_id": 2, "repo_id": 1, "session_id": "s-me", "provider": "codex"}],
        "messages": [{"id": i, "session_row": row, "message_index": i, "role": "user", "kind": "text",
                      "text": text, "timestamp": ts} for i, row, text, ts in messages],
        **more,
    }, "2026-11-02T00:00:00Z")
    return copy


def test_offline_keyword_search_matches_words_literally_and_leaves_out_this_machine(tmp_path: Path) -> None:
    copy = _copy(tmp_path)
    try:
        q = TeamQueries(copy.run, ME).search
        got = q.messages_containing([["retry_policy"]], [], [ROOT], None, None, 10)
        # `_` is not a wildcard (retryXpolicy stays out); my own session is not a team hit.
        assert [r["message_index"] for r in got] == [5, 4, 1]
        assert {r["session_id"] for r in got} == {"s-alice"} and got[0]["member"] == "alice@example.com"
        got = q.messages_containing([["retry_policy"]], [["flaky", "upload"]], [ROOT], None, "2026-11-01T13:30:00Z", 10)
        assert [r["message_index"] for r in got] == [1]
        assert q.messages_containing([["100%"]], [], [ROOT], None, None, 10)[0]["message_index"] == 5
        assert q.messages_containing([["retry_policy"]], [], ["b" * 40], None, None, 10) == []
    finally:
        copy.close()


def test_teammates_lines_elsewhere_follow_the_local_rule(tmp_path: Path) -> None:
    """The team view splits a teammate's edit lines by path as the local store does: a
    trivial line (``}``) is evidence only within its own file, and without ``others`` the
    other paths' edits are not looked at (their placings are known from the first load)."""
    at = "2026-11-01T10:00:00Z"
    edits = [{"id": i, "session_row": 1, "repo_id": 1, "message_index": 1, "call_id": f"c{i}", "seq": 0,
              "tool": "Edit", "kind": "edit", "rel_path": p, "timestamp": at, "user_modified": 0, "hunks": "[]",
              "after_text": None} for i, p in ((1, "a.py"), (2, "b.py"))]
    lines = [{"edit_id": e, "side": "+", "ordinal": o, "hash": h, "exact": h, "trivial": t}
             for e in (1, 2) for o, (h, t) in enumerate(((7, 1), (9, 0)))]
    copy = _copy(tmp_path, edits=edits, edit_lines=lines)
    local = SqliteStore.open(tmp_path / "local.db")
    try:
        repo = local.repos.register(ROOT, None, str(tmp_path / "app"))
        view = TeamView(local, TeamQueries(copy.run, ME), [ROOT], source="offline copy", owned=False)
        rows, elsewhere = view.evidence.edit_lines_at(repo, [7, 9], ["a.py"])
        assert sorted((r["hash"], r["rel_path"]) for r in rows) == [(7, "a.py"), (9, "a.py")]
        assert elsewhere == [(9, "b.py", at)]
        rows, elsewhere = view.evidence.edit_lines_at(repo, [7, 9], ["a.py"], others=False)
        assert len(rows) == 2 and elsewhere == []
    finally:
        local.close()
        copy.close()
