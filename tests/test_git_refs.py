"""HEAD read from git's own files (no process) agrees with `git rev-parse`, in a plain clone
and in a linked worktree, and the editor's HEAD token moves with every commit and checkout."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from fixtures_repos.gitrepo import GitRepo
from hansard.git.refs import git_dirs, head_commit
from hansard.lsp.repostate import head_token

T0 = datetime(2026, 11, 1, 9, 0, tzinfo=UTC)


def test_head_in_a_clone_and_a_linked_worktree(tmp_path: Path) -> None:
    main = GitRepo.init(tmp_path / "main")
    main.write("a.txt", "one\n")
    first = main.commit("one", T0)
    main.git("worktree", "add", "-b", "side", str(tmp_path / "wt"))
    wt = GitRepo(tmp_path / "wt")

    assert git_dirs(str(main.path)) == (str(main.path / ".git"), str(main.path / ".git"))
    gitdir, common = git_dirs(str(wt.path))
    assert common == str(main.path / ".git") and gitdir.startswith(common + "/worktrees/")
    assert head_commit(str(main.path)) == head_commit(str(wt.path)) == first

    before = head_token(str(wt.path))
    wt.write("b.txt", "two\n")
    wt.add("b.txt")
    second = wt.commit("two", T0.replace(hour=10))
    assert head_commit(str(wt.path)) == second == wt.head() and head_commit(str(main.path)) == first
    assert head_token(str(wt.path)) != before

    before = head_token(str(main.path))
    main.git("checkout", "--detach", first)
    assert head_token(str(main.path)) != before and head_commit(str(main.path)) == first


def test_a_dot_git_file_naming_nothing_is_not_a_repository(tmp_path: Path) -> None:
    (tmp_path / ".git").write_text("not a gitdir line\n")
    assert git_dirs(str(tmp_path)) is None
    assert head_token(str(tmp_path)) == ("no-git-dir",)
