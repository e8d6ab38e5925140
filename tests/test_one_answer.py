"""One line, one answer, on real history (tests/moved_lines_samples/PROVENANCE.md): two real
Claude Code sessions of entireio/cli, each of whose files a commit then moved: one wrote lines
into `strategy/clean.go`, which a commit replaced by a new file, `strategy/cleanup.go`; the other
wrote `help.go` just before a commit moved it out of `commands/`. Every line of both files answers
alike alone, in ranges, in the whole file, from the cache, with an editor's bytes and through
`log` (hansard.answers.why.agreement); `log FILE` lists each session `why` names with its lines."""

from __future__ import annotations

import json
import os
from datetime import datetime
from pathlib import Path

import pytest

from fixtures_repos.gitrepo import GitRepo
from tests.helpers import run_cli

SAMPLES = Path(__file__).parent / "moved_lines_samples"
CLEANUP_SID = "0bb9a2d9-a51e-4d5a-8275-566c766a0ff2"
HELP_SID = "8b418ea5-895d-4ad5-abe8-4489d36e454f"
STRATEGY = "cmd/entire/cli/strategy/"
CLEANUP = STRATEGY + "cleanup.go"
HELP = "cmd/entire/cli/help.go"


def _session(sid: str, transcript: Path, root: str, repo: GitRepo) -> None:
    """The session in Claude Code's home (its project folder named after ``root``, where it ran),
    that folder mapped onto ``repo``."""
    projects = Path(os.environ["CLAUDE_CONFIG_DIR"]) / "projects" / root.replace("/", "-")
    projects.mkdir(parents=True)
    (projects / f"{sid}.jsonl").write_bytes(transcript.read_bytes())
    assert run_cli("config", "map", root, str(repo.path))[0] == 0


def _moved(tmp_path: Path) -> tuple[GitRepo, GitRepo]:
    """Both histories (their commits' dates in UTC) and both sessions, indexed."""
    cleanup = GitRepo.init(tmp_path / "cleanup")
    cleanup.write(STRATEGY + "clean.go", (SAMPLES / "e72157d0" / STRATEGY / "clean.go").read_text())
    cleanup.commit("Initial commit in the new open source repo", datetime(2026, 1, 3, 17, 7, 37))
    (cleanup.path / STRATEGY / "clean.go").unlink()
    cleanup.write(CLEANUP, (SAMPLES / "1489a88e" / CLEANUP).read_text())
    cleanup.commit("cleanup more, make it owned by strategy", datetime(2026, 1, 5, 13, 48, 47))
    _session(CLEANUP_SID, SAMPLES / f"{CLEANUP_SID}.jsonl", "/Users/soph/Work/entire/devenv/cli", cleanup)
    old = "cmd/entire/cli/commands/help.go"
    help_ = GitRepo.init(tmp_path / "help")
    help_.write(old, (SAMPLES / "help" / "e72157d0" / old).read_text())
    help_.commit("Initial commit in the new open source repo", datetime(2026, 1, 3, 17, 7, 37))
    (help_.path / old).unlink()
    help_.write(HELP, (SAMPLES / "help" / "fc69004a" / HELP).read_text())
    help_.commit("move help.go from commands subpackage to main cli package", datetime(2026, 1, 19, 2, 46, 22))
    help_.write(HELP, (SAMPLES / "help" / "0ab2dba4" / HELP).read_text())
    help_.commit("Give all the CLI help texts a once-over (#200)", datetime(2026, 2, 10, 3, 16, 34))
    _session(HELP_SID, SAMPLES / "help" / f"{HELP_SID}.jsonl", "/Users/alex/workspace/cli", help_)
    assert run_cli("index")[0] == 0
    return cleanup, help_


@pytest.fixture
def moved(tmp_path: Path):
    from hansard.app.house import Hansard
    from hansard.store import open_store

    cleanup, help_ = _moved(tmp_path)
    with Hansard(sync=False).request() as rq:  # the repositories registered, as `why` does first
        rq.repository(str(cleanup.path))
        rq.repository(str(help_.path))
    store = open_store()
    yield cleanup, help_, store
    store.close()


def test_every_line_of_a_moved_file_answers_alike_however_asked(moved) -> None:
    from hansard.answers.why.agreement import check_file
    from hansard.app.house import Hansard

    cleanup, help_, _store = moved
    with Hansard(sync=False).request() as rq:  # answers kept between the questions, as `why`'s are
        store = rq.store
        n = len((cleanup.path / CLEANUP).read_text().splitlines())
        lines = [18, 142, 215, 251, 330, *range(1, n + 1, 9)]
        ranges = [(132, 152), (128, 138), (140, 160), (210, 260), (n - 5, n)]
        report = check_file(store, str(cleanup.path), CLEANUP, lines, ranges, ["ListOrphanedSessionStates"], keep=rq.keep)
        assert not report.differences, report.differences[:3]
        assert report.lines["alone"] == len(set(lines)) and report.asked["log FILE:N"] == len(set(lines))
        assert report.asked["range"] == len(ranges) and report.asked["log --symbol"] == 1
        n = len((help_.path / HELP).read_text().splitlines())
        report = check_file(store, str(help_.path), HELP, range(1, n + 1), [(1, 12), (40, 60), (45, n)],
                            ["NewHelpCmd", "printNode"], keep=rq.keep)
    assert not report.differences, report.differences[:3]
    assert report.lines["alone"] == n and report.asked["log FILE"] == 1


def test_a_moved_line_asked_alone_is_its_files_answer_and_never_a_persons(moved, monkeypatch: pytest.MonkeyPatch
                                                                          ) -> None:
    """Line 142, a comment above ``ListOrphanedSessionStates``: the session's Write of clean.go
    added it, and the commit that created cleanup.go moved it there. Alone it was ``unknown:
    other_path`` where the whole file named the session; now it is the file's answer, and an
    agent wrote that text: never a person's."""
    line, whole = _alone_and_whole(moved, monkeypatch, 142)
    assert line["content"] == "// This is strategy-agnostic as session states are shared by all strategies."
    assert line == whole and line["kind"] != "human"


def _alone_and_whole(moved, monkeypatch: pytest.MonkeyPatch, n: int) -> tuple[dict, dict]:
    """cleanup.go's line n asked alone through the CLI, and as the whole file's answer gives it."""
    cleanup, _help, store = moved
    from hansard.answers.why import explain

    whole = {ln["line"]: ln for ln in explain(store, CLEANUP, cwd=str(cleanup.path), cache=False)["lines"]}
    monkeypatch.chdir(cleanup.path)
    rc, out, err = run_cli("why", f"{CLEANUP}:{n}", "--json", "--no-sync", "--no-cache")
    assert rc == 0, err
    (line,) = json.loads(out)["lines"]
    return line, whole[n]


def test_a_line_the_commit_moved_out_of_a_deleted_file_is_the_sessions_edit(moved, monkeypatch: pytest.MonkeyPatch
                                                                           ) -> None:
    """``type CleanupType string`` (cleanup.go:18 at that commit): the session's edit wrote it
    into strategy/clean.go; the commit that deleted clean.go (git pairs it with no new path)
    created cleanup.go with it, inside a block of that edit's lines. The answer names the
    session and the path the edit wrote, alone and in the whole file, and the text says so."""
    line, whole = _alone_and_whole(moved, monkeypatch, 18)
    assert line["content"] == "type CleanupType string"
    assert (line["kind"], line["rule"], line["session_id"]) == ("agent", "wrote", CLEANUP_SID)
    assert line["edit_path"] == STRATEGY + "clean.go" and line == whole
    rc, out, err = run_cli("why", f"{CLEANUP}:18", "--no-sync", "--no-cache")
    assert rc == 0, err
    assert f"Edit {STRATEGY}clean.go (tool call {line['tool_call_id']})" in out


def test_log_lists_the_session_whose_lines_blame_gives_with_their_count(moved) -> None:
    from hansard.answers.code_history import code_history
    from hansard.answers.why import explain
    from hansard.render.trees import code_history_tree

    _cleanup, help_, store = moved
    why = explain(store, HELP, cwd=str(help_.path))
    mine = sum(1 for ln in why["lines"] if ln["session_id"] == HELP_SID)
    assert mine > 0
    got = code_history(store, HELP, cwd=str(help_.path), render=code_history_tree, token_budget=20000)
    (entry,) = [e for e in got["entries"] if e.get("session_id") == HELP_SID]
    assert entry["lines"] == mine
    assert f"{mine} line{'' if mine == 1 else 's'} here now" in got["tree"]


def test_a_cut_answer_is_the_document_of_its_lines(moved) -> None:
    """A range cut from the file's answer names exactly the sessions, requests and commits that
    the document of those lines' answers would (``render_contract``)."""
    from hansard.answers.why import explain
    from hansard.answers.why.contract import render_contract, slice_contract
    from hansard.answers.why.line import LineAnswer
    from hansard.answers.why.target import resolve_target
    from hansard.git.blame import blame

    cleanup, help_, store = moved
    for repo, rel in ((cleanup, CLEANUP), (help_, HELP)):
        top = str(repo.path)
        whole = explain(store, rel, cwd=top, cache=False)
        bl = blame(top, rel)
        t = resolve_target(rel, None, None, cwd=top)
        n = len(whole["lines"])
        for a, b in [(1, 1), (1, 20), (130, 160), (140, 142), (200, 260), (n - 30, n), (1, n)]:
            if b > n:
                continue
            answers = [LineAnswer(**{k: v for k, v in ln.items() if k in LineAnswer._fields})
                       for ln in whole["lines"] if a <= ln["line"] <= b]
            fresh = render_contract(store, t, None, bl, answers)
            cut = slice_contract(whole, a, b)
            assert cut["sessions"] == fresh["sessions"], (rel, a, b)
            assert cut["commits"] == {sha: c for sha, c in fresh["commits"].items()
                                      if sha in {ln["commit"] for ln in cut["lines"]}}, (rel, a, b)
        if rel == HELP:
            assert slice_contract(whole, 1, 1)["sessions"]  # the session's line is in the cuts
