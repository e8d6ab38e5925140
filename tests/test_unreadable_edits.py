"""An applied edit whose text was not recorded (Cursor's edit calls as git-ai keeps them: the
file's path alone) makes the lines its session could have written ``unknown``, never ``human``;
the reader counts such a call as a skip with its reason."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest
from agent_helpers import edits, parse_records, skips
from helpers import run_cli

from fixtures_repos.git_ai import write_vscdb
from fixtures_repos.gitrepo import GitRepo
from hansard.agents.cursor import transcripts as cursor

SAMPLES = Path(__file__).parent / "git_ai_samples"
RECORDED_ROOT = "/Users/aidancunniffe/Desktop/git-ai"  # where the sessions ran (their calls' paths)
WORKFLOW = ".github/workflows/test.yml"


def conversations() -> list[tuple[str, str | None, list[dict]]]:
    """The Cursor conversations the note embeds: (composer id, model, messages)."""
    meta = json.loads((SAMPLES / "note-906c059c.txt").read_text().partition("\n---\n")[2])
    return [(p["agent_id"]["id"], p["agent_id"]["model"], p["messages"]) for p in meta["prompts"].values()]


def test_the_reader_keeps_a_path_only_call_as_an_unreadable_edit(tmp_path: Path) -> None:
    db = tmp_path / "globalStorage" / "state.vscdb"
    write_vscdb(db, conversations())
    recs, _ = cursor.vscdb_records(str(db), None)
    items, _ = parse_records(cursor.PROVIDER_VSCDB, str(db), recs)
    got = sorted((e.session_id[:8], e.kind, e.status, e.timestamp, e.path) for e in edits(items))
    assert got == [("9fdf504a", "unreadable", "applied", None, f"{RECORDED_ROOT}/{WORKFLOW}"),
                   ("e3370ef7", "unreadable", "applied", None, f"{RECORDED_ROOT}/{WORKFLOW}")]
    assert skips(items)["unreadable_edit"] == 2


def test_a_real_cursor_conversation_with_path_only_edits(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Commit 906c059c of git-ai: its note gives lines 46-76 of the workflow to a Cursor
    conversation whose only edit call names the file. Those lines are unknown (rule
    unreadable_edit, that conversation among the alternatives), not a person's; the lines of
    the commit before the conversations began stay a person's."""
    repo = GitRepo.init(tmp_path / "git-ai")
    repo.write(WORKFLOW, (SAMPLES / "test.yml.before").read_text())
    repo.commit("CI", datetime(2025, 11, 20, 9, 0, tzinfo=UTC))
    repo.write(WORKFLOW, (SAMPLES / "test.yml.after").read_text())
    commit = repo.commit("run ignored tests just once", datetime.fromtimestamp(1763918459, UTC))
    user = tmp_path / "cursor-user"
    write_vscdb(user / "globalStorage" / "state.vscdb", conversations())
    monkeypatch.setenv("CURSOR_CONFIG_DIR", str(user))
    monkeypatch.chdir(repo.path)
    assert run_cli("config", "map", RECORDED_ROOT, str(repo.path))[0] == 0
    code, out, err = run_cli("index", "--json")
    assert code == 0, err
    assert json.loads(out)["skipped"] == {"unreadable_edit": 2}
    code, out, err = run_cli("why", WORKFLOW, "--json")
    assert code == 0, err
    lines = json.loads(out)["lines"]
    # blame -M finds many of the new job's lines in the old one: the rest are the commit's own
    mine = [ln for ln in lines if ln["commit"] == commit]
    assert sum(1 for ln in mine if 46 <= ln["line"] <= 76) == 7
    assert {(ln["kind"], ln["rule"]) for ln in mine} == {("unknown", "unreadable_edit")}
    assert all(ln["alternatives"] == ["9fdf504a-2ae4-46f0-a426-cb8cf7044490", "e3370ef7-1b25-4cf0-a01f-d325adb0265f"]
               for ln in mine)
    assert {ln["kind"] for ln in lines if ln["commit"] != commit} == {"human"}  # before either conversation
    code, out, _ = run_cli("status")
    assert code == 0 and "unreadable_edit" in out
