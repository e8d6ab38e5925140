"""Every shared sample through the whole ingest path (scanner, archive, writer), one store per
file: exact counts of sessions, messages, applied edits and failed or rejected edits. The
per-record counts were checked by reading each file (see tests/test_ingest_*.py, where every
number has its reason); here they must survive the store: keys, dedupe and numbering."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from hansard.ingest.run import index
from hansard.store.sqlite.db import connect

# sample -> (sessions, messages, applied edits, failed or rejected edits)
EXPECTED = {
    "claude-code/claude-code-log_subagent_layout/55550000-0000-4000-8000-000000000001/subagents/agent-showcol1.jsonl":
        (1, 2, 0, 0),
    "claude-code/entire_cc_2.1.119_b/full.jsonl": (1, 33, 2, 0),
    "claude-code/entire_cc_2.1.119_permission_mode/full.jsonl": (1, 6, 1, 0),
    "claude-code/entire_cc_2.1.80_custom_title/full.jsonl": (1, 21, 4, 0),
    "claude-code/entire_compaction/full.jsonl": (1, 49, 3, 0),
    "claude-code/entire_edit_small/full.jsonl": (1, 13, 1, 0),
    "claude-code/entire_edits4/full.jsonl": (1, 29, 2, 2),
    "claude-code/entire_linked_commit/full.jsonl": (1, 32, 2, 1),
    "claude-code/entire_rejected_edit/full.jsonl": (1, 44, 2, 1),
    "claude-code/entire_summaries/full.jsonl": (1, 34, 1, 0),
    "claude-code/entire_write_small/full.jsonl": (1, 5, 1, 0),
    "claude-code/gitai_agent-a1b2c3d4e5f6.jsonl": (1, 3, 0, 0),
    "claude-code/gitai_claude-code-with-plan.jsonl": (1, 9, 0, 0),
    "claude-code/gitai_claude-code-with-subagents.jsonl": (2, 8, 0, 0),
    "claude-code/gitai_claude-code-with-subagents/subagents/agent-test-sub-1.jsonl": (1, 5, 0, 0),
    "claude-code/gitai_claude-code-with-thinking.jsonl": (1, 7, 1, 0),
    "claude-code/gitai_example-claude-code.jsonl": (1, 38, 3, 0),
    "codex/entire_codex_0.121/full.jsonl": (1, 423, 30, 8),
    "codex/entire_codex_0.123_a/full.jsonl": (1, 135, 9, 0),
    "codex/entire_codex_0.123_b/full.jsonl": (1, 187, 10, 0),
    "codex/entire_codex_0.125/full.jsonl": (1, 139, 13, 0),
    "codex/gitai_codex-session-simple.jsonl": (1, 3, 0, 0),
    "codex/gitai_codex-session-updated.jsonl": (1, 4, 0, 0),
    "gemini-cli/entire_gemini_small/full.jsonl": (1, 20, 1, 0),
    "gemini-cli/entire_gemini_write_file/full.jsonl": (1, 40, 1, 0),
    "gemini-cli/gitai_gemini-session-simple.json": (1, 22, 1, 1),
    "gemini-cli/gitai_gemini-session-simple.jsonl": (1, 10, 0, 0),
    # One composer with one accepted apply_patch (tests/test_agent_cursor.py has the reasons).
    "cursor/gitai_cursor_test.vscdb": (1, 32, 1, 0),
    "cursor/gitai_cursor-session-simple.jsonl": (1, 14, 1, 0),
    # 27 edits followed by "Applied edit to", 11 blocks that were not (tests/test_agent_aider.py).
    "aider/simple-calculator.aider.chat.history.md": (1, 55, 27, 11),
}
# Counted skips a sample is known to hold: Aider's log says "Applied edit to If you're using
# **npm**", an applied edit with no block behind it.
SKIPS = {"aider/simple-calculator.aider.chat.history.md": {"edit_without_blocks": 1}}


def counts(db) -> tuple[int, int, int, int]:
    one = lambda sql: db.execute(sql).fetchone()[0]
    return (one("SELECT COUNT(*) FROM sessions"), one("SELECT COUNT(*) FROM messages"),
            one("SELECT COUNT(*) FROM edits WHERE status='applied'"),
            one("SELECT COUNT(*) FROM edits WHERE status IN ('failed','rejected')"))


@pytest.mark.parametrize("rel", sorted(EXPECTED))
def test_each_sample_alone(rel: str, samples: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HANSARD_HOME", str(tmp_path / "store"))
    db = connect()
    s = index(db, [samples / rel])
    assert s is not None and dict(s.skipped) == SKIPS.get(rel, {}), s.skipped
    assert counts(db) == EXPECTED[rel]
    # message_index is 0..n-1 in every session, with no gaps.
    for sid, n, lo, hi in db.execute(
        "SELECT session_id, COUNT(*), MIN(message_index), MAX(message_index) FROM messages GROUP BY session_id"
    ):
        assert (lo, hi) == (0, n - 1), sid


def test_continued_codex_rollout_is_not_duplicated(samples: Path, tmp_path: Path) -> None:
    """0.123_b is the same session as 0.123_a, continued: its prefix repeats a's records."""
    d = tmp_path / "t"
    d.mkdir()
    shutil.copyfile(samples / "codex/entire_codex_0.123_a/full.jsonl", d / "a.jsonl")
    shutil.copyfile(samples / "codex/entire_codex_0.123_b/full.jsonl", d / "b.jsonl")
    db = connect()
    index(db, [d])
    assert counts(db) == EXPECTED["codex/entire_codex_0.123_b/full.jsonl"]


def test_all_samples_together(samples: Path) -> None:
    """Files that are copies or migrations of one another merge instead of doubling: the
    Gemini JSONL is an abridged migration of the legacy JSON (same message ids)."""
    db = connect()
    s = index(db, [samples])
    assert s is not None
    sessions, messages, applied, failed = counts(db)
    assert applied == 107 and failed == 24
    # Four pairs of files hold one session each: the Claude subagent named in its parent and
    # in its own file, Codex 0.123_a/0.123_b (a continued rollout), the two git-ai Codex
    # fixtures (one session id), and the two Entire Gemini checkpoints of one growing session.
    assert sessions == sum(v[0] for v in EXPECTED.values()) - 4
    shared = {r[0] for r in db.execute(
        "SELECT s.session_id FROM sessions s JOIN messages m ON m.session_id=s.id GROUP BY s.id"
        " HAVING COUNT(DISTINCT m.source_id) > 1")}
    assert shared == {"019dbcc1-3812-72e1-9caa-f97edd88215b", "019c4b43-1451-7af3-be4c-5576369bf1ba",
                      "f7633853-6663-4dbb-bbf4-6159afa29df8"}
