"""One line, one answer, on real history (tests/moved_lines_samples/PROVENANCE.md): a real
Claude Code session wrote lines into entireio/cli's `strategy/clean.go`, and a commit moved them
into a new file, `strategy/cleanup.go`. Every line of it answers alike alone, in ranges, in the
whole file, from the cache, with an editor's bytes and through `log`
(hansard.answers.why.agreement); `log FILE` and `log --symbol` list the session with the lines
`why` gives it."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import pytest

from fixtures_repos.gitrepo import GitRepo
from tests.helpers import run_cli

SAMPLES = Path(__file__).parent / "moved_lines_samples"
SID = "0bb9a2d9-a51e-4d5a-8275-566c766a0ff2"
ROOT = "/Users/soph/Work/entire/devenv/cli"  # where the session ran
STRATEGY = "cmd/entire/cli/strategy/"
CLEANUP = STRATEGY + "cleanup.go"


def _moved(tmp_path: Path) -> GitRepo:
    """The two commits (UTC dates), the session in Claude Code's home, its folder mapped here."""
    import os

    repo = GitRepo.init(tmp_path / "cli")
    repo.write(STRATEGY + "clean.go", (SAMPLES / "e72157d0" / STRATEGY / "clean.go").read_text())
    repo.commit("Initial commit in the new open source repo", datetime(2026, 1, 3, 17, 7, 37))
    (repo.path / STRATEGY / "clean.go").unlink()
    repo.write(CLEANUP, (SAMPLES / "1489a88e" / CLEANUP).read_text())
    repo.commit("cleanup more, make it owned by strategy", datetime(2026, 1, 5, 13, 48, 47))
    projects = Path(os.environ["CLAUDE_CONFIG_DIR"]) / "projects" / "-Users-soph-Work-entire-devenv-cli"
    projects.mkdir(parents=True)
    (projects / f"{SID}.jsonl").write_bytes((SAMPLES / f"{SID}.jsonl").read_bytes())
    assert run_cli("config", "map", ROOT, str(repo.path))[0] == 0
    assert run_cli("index")[0] == 0
    return repo


@pytest.fixture
def moved(tmp_path: Path):
    from hansard.store import open_store

    repo = _moved(tmp_path)
    store = open_store()
    yield repo, store
    store.close()


def test_every_line_of_a_moved_file_answers_alike_however_asked(moved) -> None:
    from hansard.answers.why.agreement import check_file

    repo, store = moved
    n = len((repo.path / CLEANUP).read_text().splitlines())
    lines = [142, 215, 251, 330, *range(1, n + 1, 9)]
    ranges = [(132, 152), (128, 138), (140, 160), (210, 260), (n - 5, n)]
    report = check_file(store, str(repo.path), CLEANUP, lines, ranges, ["ListOrphanedSessionStates"])
    assert not report.differences, report.differences[:3]
    assert report.lines["alone"] == len(set(lines)) and report.asked["log FILE:N"] == len(set(lines))
    assert report.asked["range"] == len(ranges) and report.asked["log --symbol"] == 1


def test_the_move_is_the_truth_for_a_line_asked_alone(moved, monkeypatch: pytest.MonkeyPatch) -> None:
    """Line 142, a comment above ``ListOrphanedSessionStates``: the session's Write of clean.go
    added it, and the commit that created cleanup.go moved it there; the whole file's blame
    names clean.go as other lines' origin, and says which edits count. Alone it was ``unknown:
    other_path``."""
    import json

    repo, _store = moved
    monkeypatch.chdir(repo.path)
    rc, out, err = run_cli("why", f"{CLEANUP}:142", "--json", "--no-sync")
    assert rc == 0, err
    (line,) = json.loads(out)["lines"]
    assert (line["content"], line["kind"], line["session_id"], line["rule"]) == \
        ("// This is strategy-agnostic as session states are shared by all strategies.", "agent", SID, "wrote")


def test_log_lists_the_session_whose_lines_blame_gives_with_their_count(moved) -> None:
    from hansard.answers.code_history import code_history
    from hansard.answers.why import explain
    from hansard.render.trees import code_history_tree

    repo, store = moved
    why = explain(store, CLEANUP, cwd=str(repo.path))
    mine = sum(1 for ln in why["lines"] if ln["session_id"] == SID)
    assert mine > 0
    got = code_history(store, CLEANUP, cwd=str(repo.path), render=code_history_tree, token_budget=20000)
    (entry,) = [e for e in got["entries"] if e.get("session_id") == SID]
    assert entry["lines"] == mine
    assert {e["path"] for e in entry["edits"]} == {STRATEGY + "clean.go"}  # what the session edited
    assert f"{mine} lines here now" in got["tree"]


def test_a_cut_answer_is_the_document_of_its_lines(moved) -> None:
    """A range cut from the file's answer names exactly the sessions, requests and commits that
    the document of those lines' answers would (``render_contract``)."""
    from hansard.answers.why import explain
    from hansard.answers.why.contract import render_contract, slice_contract
    from hansard.answers.why.line import LineAnswer
    from hansard.answers.why.target import resolve_target
    from hansard.git.blame import blame

    repo, store = moved
    top = str(repo.path)
    whole = explain(store, CLEANUP, cwd=top, cache=False)
    bl = blame(top, CLEANUP)
    t = resolve_target(CLEANUP, None, None, cwd=top)
    n = len(whole["lines"])
    cuts = [(1, 20), (130, 160), (140, 142), (200, 260), (n - 30, n), (1, n)]
    assert any(slice_contract(whole, a, b)["sessions"] for a, b in cuts)
    for a, b in cuts:
        answers = [LineAnswer(**{k: v for k, v in ln.items() if k in LineAnswer.__slots__})
                   for ln in whole["lines"] if a <= ln["line"] <= b]
        fresh = render_contract(store, t, None, bl, answers)
        cut = slice_contract(whole, a, b)
        assert cut["sessions"] == fresh["sessions"], (a, b)
        assert cut["commits"] == {sha: c for sha, c in fresh["commits"].items() if sha in
                                  {ln["commit"] for ln in cut["lines"]}}, (a, b)
