"""The precision rules of `why` on busy repositories: the fields the scenarios'
exact expectations do not cover (rule, restored commits, alternatives), and the commit-level
pass on its own."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from fixtures_repos.check import answer, compare, env_for
from fixtures_repos.scenarios import SCENARIOS


def run(name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    scn = SCENARIOS[name](tmp_path / "build")
    for var, value in env_for(scn, tmp_path / "store").items():
        monkeypatch.setenv(var, value)
    answers = answer(scn)
    assert not compare(scn, answers)
    return scn, answers


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, text=True).stdout.strip()


def test_restored_lines_name_the_original_and_the_restoring_commit(tmp_path, monkeypatch):
    scn, answers = run("precision_restored_line", tmp_path, monkeypatch)
    lines = answers["api/handler.go"]["lines"]
    first, removed, restoring = git(scn.repo, "log", "--format=%H", "-3").split()[::-1]
    restored = [ln for ln in lines if ln["kind"] == "agent"]
    assert len(restored) == 4
    for ln in restored:
        assert ln["rule"] == "restored"
        assert (ln["original_commit"], ln["restoring_commit"], ln["commit"]) == (first, restoring, restoring)
        assert ln["confidence"] <= 0.6
    assert all("original_commit" not in ln for ln in lines if ln["kind"] == "human")


def test_revert_of_a_revert_is_restored(tmp_path, monkeypatch):
    scn, answers = run("rewrite_revert_and_revert_of_revert", tmp_path, monkeypatch)
    c1 = git(scn.repo, "rev-parse", "HEAD~2")
    agent = [ln for ln in answers["src/flags.py"]["lines"] if ln["kind"] == "agent"]
    assert agent and all(ln["rule"] == "restored" and ln["original_commit"] == c1 for ln in agent)


def test_a_line_written_once_is_not_restored(tmp_path, monkeypatch):
    _, answers = run("precision_common_lines", tmp_path, monkeypatch)
    assert not any(ln["rule"] == "restored" or "alternatives" in ln for ln in answers["store/store.go"]["lines"])


def test_commit_output_decides_between_identical_edits(tmp_path, monkeypatch):
    _, answers = run("precision_commit_output", tmp_path, monkeypatch)
    lines = answers["retry/retry.go"]["lines"]
    assert all(ln["kind"] == "agent" and ln["provider"] == "claude_code" for ln in lines)
    assert not any("alternatives" in ln for ln in lines)


def test_identical_edits_with_nothing_to_separate_them_list_alternatives(tmp_path, monkeypatch):
    """The same two identical edits, with the commit made by a person: the newest edit is
    named, the other session is listed, and the confidence says so."""
    from hansard.answers.why import explain
    from hansard.store import open_store

    scn, _ = run("precision_commit_output", tmp_path, monkeypatch)
    repo = scn.repo
    (repo / "retry" / "retry.go").write_text((repo / "retry" / "retry.go").read_text())
    # the same text again, in a new commit nobody's output names: amend away the printed id
    subprocess.run(["git", "-c", "user.name=P", "-c", "user.email=p@example.com", "commit", "-q", "--amend",
                    "-m", "Backoff helper (reworded)"], cwd=repo, check=True,
                   env={"GIT_COMMITTER_DATE": git(repo, "log", "-1", "--format=%cI"), "PATH": "/usr/bin:/bin"})
    store = open_store()
    try:
        lines = explain(store, "retry/retry.go", cwd=str(repo))["lines"]
    finally:
        store.close()
    named = [ln for ln in lines if ln["rule"] == "wrote"]
    assert named and all(ln["provider"] == "codex" and len(ln["alternatives"]) == 1 and ln["confidence"] <= 0.5
                         for ln in named)


def test_scenarios_of_each_class_are_registered():
    for name in ("precision_common_lines", "precision_modified_other_session", "precision_restored_line",
                 "precision_rebase_same_lines_elsewhere", "precision_fixup_squashed", "precision_commit_output"):
        assert name in SCENARIOS
