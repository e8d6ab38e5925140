"""The offline team copy (`hansard team pull`) answers keyword search through the same
TeamQueries as the server: words match literally, excluded words drop a message, and this
machine's own sessions are left out (they are answered from the local store)."""

from __future__ import annotations

from pathlib import Path

from hansard.store.postgres.queries import TeamQueries
from hansard.store.sqlite.team_copy import SqliteTeamCopy

ROOT = "a" * 40
ME = ("me@example.com", "laptop")


def _copy(tmp_path: Path) -> SqliteTeamCopy:
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
