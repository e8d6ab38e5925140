"""A first day with hansard, as a new user had it: the text output reads right and the
notices go where they belong: titles on one line, subagents without a transcript named as such,
counts that are totals ("showing N of M"), `status` saying what `index` said it skipped, and
every notice on standard error in text mode and in the JSON with --json (never in the output a
pipe reads)."""

from __future__ import annotations

import json
import os
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from fixtures_repos.gitrepo import GitRepo
from fixtures_repos.writers import ClaudeWriter
from tests.helpers import run_cli
from tests.hostile import make_world

PLAN = "Implement the following plan:\n\n# Plan: retry uploads\n\nAdd a capped backoff."


@pytest.fixture
def world(tmp_path: Path) -> dict[str, Any]:
    return make_world(tmp_path)


def test_context_titles_are_one_line_and_a_subagent_without_transcript_says_so(tmp_path: Path,
                                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    repo = GitRepo.init(tmp_path / "app")
    repo.write("README.md", "app\n")
    repo.commit("start", datetime(2026, 11, 20, 8, 0, 0))
    w = ClaudeWriter(Path(os.environ["CLAUDE_CONFIG_DIR"]), repo.path, "5e5e5e5e-0000-4000-8000-000000000001",
                     datetime(2026, 11, 20, 9, 0, 0))
    w.prompt(PLAN)
    with w.task("find the retry code", "Find where uploads are retried") as sub:
        sub.say("In app.py.")
        gone = sub.path
    gone.unlink()  # the subagent's transcript is not on this machine (a checkpoint without it)
    w.write(repo.path / "app.py", "def retry():\n    return 1\n")
    repo.commit("retry", datetime(2026, 11, 20, 9, 5, 0))
    assert run_cli("index")[0] == 0
    monkeypatch.chdir(repo.path)
    code, out, err = run_cli("context", "--no-sync")
    assert code == 0, err
    lines = out.splitlines()
    assert '"Implement the following plan: # Plan: retry uploads Add a capped back…"' in lines[0], lines
    assert lines[1] == "conversations"
    sub = next(x for x in lines if x.lstrip().startswith("subagent"))
    assert "(no transcript of it here)" in sub and '""' not in sub, sub
    status = run_cli("status")[1]  # one of each, said as one
    assert "source       claude_code: 1 file\n" in status and "(1 file, 7 records)" in status, status
    assert ", 1 repository" in status and " 1 sessions" not in status and " 1 files" not in status


def test_a_capped_list_says_of_how_many(world: dict[str, Any]) -> None:
    code, out, _ = run_cli("sessions", "--limit", "1")
    assert code == 0
    assert out.splitlines()[-1] == "(showing the 1 most recent of 2 sessions; --limit N shows more)", out
    doc = json.loads(run_cli("sessions", "--limit", "1", "--json")[1])
    assert doc["total"] == 2 and len(doc["sessions"]) == 1
    assert "showing" not in run_cli("sessions")[1]  # nothing left out, nothing said


def test_status_says_what_index_skipped(tmp_path: Path) -> None:
    folder = tmp_path / "exports"
    folder.mkdir()
    (folder / "notes.jsonl").write_text('{"hello": "not a transcript"}\n')
    code, out, err = run_cli("index", str(folder))
    assert code == 0, err
    assert "skipped 1: not_a_transcript 1" in out, out
    code, out, _ = run_cli("status")
    last = next(x for x in out.splitlines() if x.startswith("last run"))
    assert last.endswith("; skipped 1: not_a_transcript 1)"), last
    doc = json.loads(run_cli("status", "--json")[1])
    assert doc["last_run"]["skip_reasons"] == {"not_a_transcript": 1} and doc["last_run"]["skipped"] == 1


def test_notices_go_to_stderr_in_text_and_into_the_json(world: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HANSARD_EMBEDDER", "none")  # meaning search is off: it runs as keyword, and says so
    monkeypatch.chdir(world["a"])
    code, out, err = run_cli("history", "greeting", "--mode", "meaning", "--no-sync")
    assert code == 0 and "greeting" in out
    assert "note:" not in out and "meaning search" not in out, out
    assert "hansard: note: " in err and "meaning" in err, err
    doc = json.loads(run_cli("history", "greeting", "--mode", "meaning", "--no-sync", "--json")[1])
    assert "meaning" in doc["mode_notice"]

    monkeypatch.chdir(world["c"])  # a repository no session ran in
    code, out, err = run_cli("log", "c.py", "--no-sync")
    assert code == 0 and "note:" not in out and "no line can be called a person's" in err, (out, err)
    assert "notice" in json.loads(run_cli("log", "c.py", "--no-sync", "--json")[1])


def test_index_json_carries_the_notice_of_an_empty_store(tmp_path: Path) -> None:
    empty = tmp_path / "nothing"
    empty.mkdir()
    code, out, err = run_cli("index", str(empty), "--json")
    assert code == 0 and err.count("no line can be called a person's") == 0, err
    assert json.loads(out)["notice"]["code"] == "no_sessions"
    code, out, err = run_cli("index", str(empty))
    assert code == 0 and "no line can be called" not in out and "no line can be called" in err
