"""The newer agents end to end: a bare `hansard index` finds every home (and Aider's log in a
known repository), the real Cursor and Aider samples are indexed with their edits, other
programs' databases are read incrementally (a change only in the ``-wal`` file counts), web
chats are imported and kept out of listings and search unless asked for, an edit with no time
never makes a line `agent`, and `hansard status` names every agent."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
from datetime import UTC, datetime
from pathlib import Path

import pytest
from agent_helpers import AGENT_SAMPLES

from fixtures_repos.gitrepo import GitRepo
from fixtures_repos.writers import ClaudeWriter, Clock
from fixtures_repos.writers_more import (
    AiderWriter,
    CopilotWriter,
    CursorTranscriptWriter,
    CursorWriter,
    OpenCodeWriter,
)
from hansard import agents
from hansard.cli import main
from hansard.errors import InvalidArgument
from hansard.ingest.run import index
from hansard.ingest.webchat_import import import_export
from hansard.store import open_store

START = datetime(2026, 3, 5, 9, 0, tzinfo=UTC)


def _repo(path: Path, clock: Clock) -> GitRepo:
    r = GitRepo.init(path)
    r.write(".gitignore", ".aider*\n")
    r.write("app.py", "def total(xs):\n    return sum(xs)\n")
    r.commit("App", clock.next_second(10))
    return r


def _json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict:
    capsys.readouterr()
    assert main([*argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_bare_index_reads_every_new_agent(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    clock = Clock(START)
    r = _repo(tmp_path / "repo", clock)
    cu = CursorWriter(Path(os.environ["CURSOR_CONFIG_DIR"]), "c0ffee00-0000-4000-8000-000000000001", clock)
    cu.prompt("return an int total")
    cu.search_replace(r.path / "app.py", "    return sum(xs)\n", "    return int(sum(xs))\n")
    ct = CursorTranscriptWriter(Path(os.environ["CURSOR_HOME"]), r.path, "c0ffee00-0000-4000-8000-000000000002", clock)
    ct.prompt("add a docstring")
    ct.str_replace(r.path / "app.py", "def total(xs):\n", 'def total(xs):\n    """Sum of xs."""\n')
    oc = OpenCodeWriter(Path(os.environ["OPENCODE_DATA_DIR"]), r.path, clock, "e2e")
    oc.prompt("rename xs to values")
    oc.edit(r.path / "app.py", "def total(xs):\n", "def total(values):\n")
    cp = CopilotWriter(Path(os.environ["COPILOT_HOME"]), r.path, "5b0d8c1e-0000-4000-8000-000000000003", clock)
    cp.prompt("fix the body")
    cp.edit(r.path / "app.py", "int(sum(xs))", "int(sum(values))")
    ai = AiderWriter(r.path, clock)
    ai.prompt("add a mean function")
    ai.reply("Here it is.", (r.path / "app.py", "    return int(sum(values))\n",
                             "    return int(sum(values))\n\n\ndef mean(values):\n    return total(values) / len(values)\n"))

    store = open_store()
    try:
        index(store)  # the repository becomes known through the sessions run in it
        index(store)  # and its aider log is found there
        counts = store.sessions.provider_counts()
    finally:
        store.close()
    assert {p: (c["sessions"], c["edits"]) for p, c in counts.items()} == {
        "cursor": (2, 2), "opencode": (1, 1), "copilot": (1, 1), "aider": (1, 1)}
    status = _json(capsys, "status")
    rows = {a["name"]: a for a in status["agents"]}
    assert [a["name"] for a in status["agents"]] == [a.name for a in agents.agents()]
    for name in ("cursor", "opencode", "copilot", "aider"):
        assert rows[name]["found"] and rows[name]["sessions"] >= 1, rows[name]
    assert not rows["claude_code"]["found"] and rows["chatgpt"]["sessions"] == 0
    listed = _json(capsys, "sessions", "--provider", "opencode")["sessions"]
    assert [s["provider"] for s in listed] == ["opencode"]


def test_real_cursor_and_aider_samples_are_indexed_with_their_edits(samples: Path, tmp_path: Path) -> None:
    cursor = tmp_path / "cursor"
    transcripts = cursor / "projects" / "Users-dev-git-ai" / "agent-transcripts"
    transcripts.mkdir(parents=True)
    shutil.copy(samples / "cursor" / "gitai_cursor-session-simple.jsonl", transcripts / "a1b2c3d4.jsonl")
    shutil.copy(samples / "cursor" / "gitai_cursor_test.vscdb", cursor / "state.vscdb")
    aider = tmp_path / "aider" / ".aider.chat.history.md"
    aider.parent.mkdir()
    shutil.copy(samples / "aider" / "simple-calculator.aider.chat.history.md", aider)
    store = open_store()
    try:
        first = index(store, [cursor, aider])
        again = index(store, [cursor, aider])
        counts = store.sessions.provider_counts()
    finally:
        store.close()
    assert first is not None and first.changed == 3 and first.edits > 0
    assert again is not None and again.changed == 0 and again.records == 0
    assert counts["cursor"]["sessions"] >= 2 and counts["cursor"]["edits"] >= 2
    assert counts["aider"]["sessions"] >= 1 and counts["aider"]["edits"] >= 1


def test_vscdb_is_read_incrementally_and_a_wal_change_counts(tmp_path: Path) -> None:
    clock = Clock(START)
    user = Path(os.environ["CURSOR_CONFIG_DIR"])
    cu = CursorWriter(user, "c0ffee00-0000-4000-8000-0000000000aa", clock)
    cu.prompt("first question")
    db = cu.db_path
    store = open_store()
    try:
        index(store)
        # The editor keeps the database in WAL mode with a connection open: new rows may live
        # only in the -wal file for a while, and the main file's stat does not move.
        con = sqlite3.connect(db)
        con.execute("PRAGMA journal_mode=WAL")
        con.execute("PRAGMA wal_autocheckpoint=0")
        before = os.stat(db)
        value = json.dumps({"_v": 3, "type": 1, "bubbleId": "b2", "text": "second question",
                            "createdAt": "2026-03-05T09:10:00.000Z"})
        with con:
            con.execute("INSERT INTO cursorDiskKV (key, value) VALUES (?, ?)",
                        ("bubbleId:c0ffee00-0000-4000-8000-0000000000aa:b2", value))
        assert os.path.exists(str(db) + "-wal")
        assert (os.stat(db).st_size, os.stat(db).st_mtime_ns) == (before.st_size, before.st_mtime_ns)
        second = index(store)
        assert second is not None and second.changed == 1 and second.records == 1 and second.messages == 1
        con.close()
        assert index(store).records == 0  # the checkpoint on close moved rows, but no new ones
        from hansard.ingest.run import rebuild

        rebuild(store)  # from the archive alone; the next scan still resumes at the reader's cursor
        cu.prompt("third question")
        third = index(store)
        assert third is not None and third.records == 2 and third.messages == 1  # the bubble and its conversation
        texts = [m["text"] for m in store.sessions.messages_from(
            store.sessions.find("c0ffee00-0000-4000-8000-0000000000aa")["id"], 0, None, 10)]
    finally:
        store.close()
    assert texts == ["first question", "second question", "third question"]


def test_an_edit_with_no_time_never_makes_a_line_agent(tmp_path: Path) -> None:
    """Cursor's agent transcripts record no time: such an edit cannot be placed before the
    commit, so the lines it added are `unknown` (rule `untimed`), never `agent`, never `human`."""
    from hansard.answers.why import explain

    clock = Clock(START)
    r = _repo(tmp_path / "repo", clock)
    ct = CursorTranscriptWriter(Path(os.environ["CURSOR_HOME"]), r.path, "c0ffee00-0000-4000-8000-0000000000bb", clock)
    ct.prompt("validate the input")
    ct.str_replace(r.path / "app.py", "def total(xs):\n",
                   "def total(xs):\n    if not isinstance(xs, list):\n        raise TypeError(\"xs must be a list\")\n")
    r.commit("Validate", clock.next_second(30))
    store = open_store()
    try:
        index(store)
        lines = explain(store, "app.py", cwd=str(r.path))["lines"]
    finally:
        store.close()
    assert [(ln["kind"], ln["rule"]) for ln in lines] == [
        ("human", "no_session"), ("unknown", "untimed"), ("unknown", "untimed"), ("human", "no_session")]
    assert all(ln["session_id"] is None for ln in lines)


def test_web_chats_stay_out_of_listings_and_search_unless_asked(tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    clock = Clock(START)
    cc = ClaudeWriter(Path(os.environ["CLAUDE_CONFIG_DIR"]), tmp_path, None, clock)
    cc.prompt("write a slugify helper for the blog")
    cc.say("Done.")
    store = open_store()
    try:
        index(store)
        summary = import_export(store, AGENT_SAMPLES / "chatgpt_conversations.json")
        assert summary.sessions == 1
        assert import_export(store, AGENT_SAMPLES / "chatgpt_conversations.json").records == 0  # same file again
        import_export(store, AGENT_SAMPLES / "claude_web_conversations.json")
        with pytest.raises(InvalidArgument):
            import_export(store, AGENT_SAMPLES / "copilot_events.jsonl")
    finally:
        store.close()
    assert {s["provider"] for s in _json(capsys, "sessions")["sessions"]} == {"claude_code"}
    assert {s["provider"] for s in _json(capsys, "sessions", "--include-web-chats")["sessions"]} == {
        "claude_code", "chatgpt", "claude_web"}
    assert {s["provider"] for s in _json(capsys, "sessions", "--provider", "chatgpt")["sessions"]} == {"chatgpt"}
    plain = _json(capsys, "history", "slugify")["results"]
    wide = _json(capsys, "history", "slugify", "--include-web-chats")["results"]
    assert {h["provider"] for h in plain} == {"claude_code"}
    assert {h["provider"] for h in wide} == {"claude_code", "chatgpt"}


def test_import_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = _json(capsys, "import", str(AGENT_SAMPLES / "claude_web_conversations.json"))
    assert out["sessions"] == 1 and out["records"] >= 1
    assert main(["import", str(tmp_path / "nothing.json")]) == 2


def test_one_line_of_a_pasted_block_is_pasted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A run is judged on the whole file: asking for one line of a pasted block (or a range
    that cuts it) gives the same answer as asking for the file."""
    from fixtures_repos.check import answer, env_for
    from fixtures_repos.scenarios import SCENARIOS
    from hansard.answers.why import explain

    scn = SCENARIOS["webchat_pasted"](tmp_path / "build")
    for var, value in env_for(scn, tmp_path / "store").items():
        monkeypatch.setenv(var, value)
    whole = answer(scn)["src/text.py"]
    store = open_store()
    try:
        for spec, first in (("src/text.py:9", 9), ("src/text.py:4-9", 4), ("src/text.py:12-13", 12)):
            got = explain(store, spec, cwd=str(scn.repo))["lines"]
            assert got == whole["lines"][first - 1:first - 1 + len(got)], spec
    finally:
        store.close()
    kinds = [ln["kind"] for ln in whole["lines"]]
    assert kinds[7:] == ["pasted"] * 6 and "pasted" not in kinds[:7]
    assert {ln.get("block") for ln in whole["lines"][7:]} == {0}
    assert next(iter(whole["sessions"].values()))["provider"] == "chatgpt"


@pytest.mark.parametrize("name", ["cursor_edit", "opencode_edit", "copilot_edit", "aider_own_commits"])
def test_why_names_session_message_and_tool_call(name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """For each new agent, every line it wrote names its session, the message holding the
    edit (the numbering `hansard show` uses) and the tool call."""
    from fixtures_repos.check import answer, env_for
    from fixtures_repos.scenarios import SCENARIOS

    scn = SCENARIOS[name](tmp_path / "build")
    for var, value in env_for(scn, tmp_path / "store").items():
        monkeypatch.setenv(var, value)
    lines = [ln for ans in answer(scn).values() for ln in ans["lines"] if ln["kind"] == "agent"]
    assert lines
    store = open_store()
    try:
        for ln in lines:
            assert ln["session_id"] and ln["tool_call_id"] and isinstance(ln["message_index"], int), ln
            row = store.sessions.find(ln["session_id"])
            [msg] = store.sessions.messages_from(row["id"], ln["message_index"], None, 1)
            assert msg["message_index"] == ln["message_index"] and msg["role"] == "assistant"
    finally:
        store.close()
