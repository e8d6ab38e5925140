"""Sessions that hold copies of the same edit call (a resumed or forked conversation) are one
conversation: the call is kept once, and the session holding the copy names the other."""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime
from pathlib import Path

import pytest

from fixtures_repos.gitrepo import GitRepo
from fixtures_repos.writers import ClaudeWriter, Clock
from hansard.ingest.run import index
from hansard.store import open_store
from tests.helpers import run_cli

ORIGINAL = "0a1b2c3d-0000-4000-8000-00000000000a"
FORK = "0a1b2c3d-0000-4000-8000-00000000000f"


def _forked(tmp_path: Path) -> GitRepo:
    """A repository whose one edit was made in ORIGINAL, and FORK: a copy of that conversation
    (`claude --resume` writes one) under its own session id and new message ids."""
    r = GitRepo.init(tmp_path / "repo")
    r.write("app.py", "PORT = 8000\n")
    r.commit("app", datetime(2026, 3, 2, 9, tzinfo=UTC))
    home = Path(os.environ["CLAUDE_CONFIG_DIR"])
    cc = ClaudeWriter(home, r.path, ORIGINAL, Clock(datetime(2026, 3, 2, 10, tzinfo=UTC)))
    cc.prompt("Read the port from the environment")
    cc.edit(r.path / "app.py", "PORT = 8000\n", 'PORT = int(os.environ.get("PORT", "8000"))\n')
    # the fork: every record copied under the fork's id and new uuids; the API's tool ids stay
    copied = []
    for line in cc.path.read_text().splitlines():
        rec = json.loads(line)
        if "sessionId" in rec:
            rec["sessionId"] = FORK
        for key in ("uuid", "parentUuid", "messageId", "sourceToolAssistantUUID"):
            if isinstance(rec.get(key), str):
                rec[key] = rec[key][:-4] + "f0f0"
        copied.append(json.dumps(rec))
    (cc.path.parent / f"{FORK}.jsonl").write_text("\n".join(copied) + "\n")
    return r


def test_a_fork_under_new_message_ids_names_the_conversation_it_copied(tmp_path: Path) -> None:
    _forked(tmp_path)
    store = open_store()
    try:
        index(store)
        assert store.evidence.session(FORK)["resumed_from"] == ORIGINAL
        assert store.evidence.session(ORIGINAL)["resumed_from"] is None
        assert [(e["session_id"], e["kind"]) for e in store.evidence.applied_edits(1, ["app.py"])] == [
            (ORIGINAL, "update")]
    finally:
        store.close()


def test_why_names_both_sessions_of_a_resumed_conversation(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The call is kept under the session read first; the answer names the copy beside it, so a
    record that names the copy (a checkpoint written at the resumed session's commit) and the
    answer agree that one conversation wrote the line, asked alone or in the whole file."""
    r = _forked(tmp_path)
    r.commit("port from the environment", datetime(2026, 3, 2, 11, tzinfo=UTC))
    monkeypatch.chdir(r.path)
    assert run_cli("index")[0] == 0
    whole = json.loads(run_cli("why", "app.py", "--json")[1])
    one = json.loads(run_cli("why", "app.py:1", "--json", "--no-cache")[1])
    for doc in (whole, one):
        (line,) = doc["lines"]
        assert (line["kind"], line["session_id"]) == ("agent", ORIGINAL)
        assert doc["sessions"][ORIGINAL]["resumed_in"] == [FORK]
        assert "resumed_from" not in doc["sessions"][ORIGINAL]
    rc, text, _ = run_cli("why", "app.py:1")
    assert rc == 0 and f"resumed in   {FORK}" in text
