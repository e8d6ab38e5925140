"""Every session an answer names says where it was read: this machine's agent home, or
the repository's checkpoint refs (which ref, which repository, the id it claims). `why --json`
carries it for every session, the text says it, the hover and the web page say it, `sessions`
marks it, and `stats --by source` counts lines by it."""

from __future__ import annotations

import json
import os
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from fixtures_repos.entire import SessionCopy, write_checkpoint
from fixtures_repos.gitrepo import GitRepo
from fixtures_repos.writers import ClaudeWriter
from tests.helpers import cli_json, run_cli

T0 = datetime(2026, 11, 10, 9, 0, 0)
MINE = "11111111-aaaa-4aaa-8aaa-000000000001"
THEIRS = "22222222-bbbb-4bbb-8bbb-000000000002"


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> GitRepo:
    """One file: a line this machine's session wrote, and one a session kept on the repository's
    checkpoint branch wrote (recorded elsewhere: its folder is not this one)."""
    r = GitRepo.init(tmp_path / "app")
    r.write("calc.py", "def total(xs):\n    return sum(xs)\n")
    r.commit("start", T0)
    mine = ClaudeWriter(Path(os.environ["CLAUDE_CONFIG_DIR"]), r.path, MINE, T0 + timedelta(minutes=1))
    mine.prompt("add a mean")
    mine.edit(r.path / "calc.py", "    return sum(xs)\n", "    return sum(xs)\n\n\ndef mean(xs):\n"
              "    return total(xs) / max(len(xs), 1)\n")
    r.commit("mean", T0 + timedelta(minutes=2))
    elsewhere = tmp_path / "laptop" / "app"
    elsewhere.mkdir(parents=True)
    (elsewhere / "calc.py").write_text((r.path / "calc.py").read_text())
    theirs = ClaudeWriter(tmp_path / "laptop-home", elsewhere, THEIRS, T0 + timedelta(minutes=3))
    theirs.prompt("add a median")
    theirs.edit(elsewhere / "calc.py", "    return total(xs) / max(len(xs), 1)\n",
                "    return total(xs) / max(len(xs), 1)\n\n\ndef median(xs):\n    return sorted(xs)[len(xs) // 2]\n")
    (r.path / "calc.py").write_text((elsewhere / "calc.py").read_text())
    r.commit("median\n\nEntire-Checkpoint: 0123456789ab\n", T0 + timedelta(minutes=4))
    write_checkpoint(r, "0123456789ab", [SessionCopy(THEIRS, theirs.path.read_bytes(), "2026-11-10T09:04:00Z")],
                     T0 + timedelta(minutes=4))
    assert run_cli("index")[0] == 0
    monkeypatch.chdir(r.path)
    assert run_cli("index")[0] == 0  # bare, in the repository: its checkpoint branch too
    return r


def _carried(repo: GitRepo) -> str:
    return f"{THEIRS}@{repo.git('rev-list', '--max-parents=0', 'HEAD').split()[0][:12]}"


def test_why_says_where_each_session_was_read(repo: GitRepo) -> None:
    doc = cli_json("why", "calc.py")
    by_text = {ln["content"].strip(): ln for ln in doc["lines"]}
    theirs = _carried(repo)
    assert by_text["return total(xs) / max(len(xs), 1)"]["session_id"] == MINE
    assert by_text["return sorted(xs)[len(xs) // 2]"]["session_id"] == theirs
    assert set(doc["sessions"]) == {MINE, theirs}
    assert all("source" in s for s in doc["sessions"].values())
    assert doc["sessions"][MINE]["source"] == {"kind": "local"}
    assert doc["sessions"][theirs]["source"] == {
        "kind": "repository", "repository": repo.git("rev-list", "--max-parents=0", "HEAD").split()[0],
        "ref": "refs/heads/entire/checkpoints/v1", "claimed_id": THEIRS}
    n = next(ln["line"] for ln in doc["lines"] if "sorted(xs)" in ln["content"])
    rc, text, _ = run_cli("why", f"calc.py:{n}")
    assert rc == 0 and "read from    the repository's entire/checkpoints/v1 (what the repository carries, " \
                       "not this machine's record)" in text
    m = next(ln["line"] for ln in doc["lines"] if "max(len(xs), 1)" in ln["content"])
    rc, text, _ = run_cli("why", f"calc.py:{m}")
    assert rc == 0 and "read from" not in text  # this machine's own record


def test_sessions_hover_page_and_stats_say_it_too(repo: GitRepo) -> None:
    from hansard.lsp.marks import hover_markdown
    from hansard.web.html import Links
    from hansard.web.pages import conversation

    rc, text, _ = run_cli("sessions")
    line = next(x for x in text.splitlines() if THEIRS[:13] in x)
    assert rc == 0 and line.endswith("[from the repository's refs]")
    assert "[" not in next(x for x in text.splitlines() if MINE[:13] in x)
    doc = cli_json("why", "calc.py")
    ln = next(x for x in doc["lines"] if "sorted(xs)" in x["content"])
    hover = hover_markdown(doc, ln, lambda p: str(p), lambda x: "")
    assert "read from the repository" in hover
    page = str(conversation(Links("t"), "calc.py", {"line": ln, "session": {"session_id": ln["session_id"],
                                                                             **doc["sessions"][ln["session_id"]]}}))
    assert 'class="source">read from the repository' in page
    hits = cli_json("history", "median", "--mode", "keyword")["results"]
    kinds = [h["source"]["kind"] for h in hits if h["session_id"] == ln["session_id"]]
    assert kinds and set(kinds) == {"repository"}
    assert all("source" not in h for h in cli_json("history", "mean", "--mode", "keyword")["results"]
               if h["session_id"] == MINE)  # this machine's own: nothing to say
    stats = cli_json("stats", "--by", "source")
    count = {sid: sum(1 for x in doc["lines"] if x["session_id"] == sid and x["kind"] == "agent")
             for sid in doc["sessions"]}
    assert stats["by"]["source"]["repository"]["agent"] == count[ln["session_id"]] >= 2
    assert stats["by"]["source"]["local"]["agent"] == count[MINE] >= 2
    assert json.dumps(stats).count("repository_file") == 0
