"""git blame's porcelain output as hansard reads it: each line's commit and its path there."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from fixtures_repos.gitrepo import GitRepo
from hansard.git.blame import blame

BUILD = "name: build\njobs:\n  test:\n    runs-on: ubuntu-latest\n    steps:\n      - run: cargo test --workspace\n" \
        "  lint:\n    runs-on: ubuntu-latest\n    steps:\n      - run: cargo clippy --all-targets -- -D warnings\n"


def test_a_commit_keeps_its_own_path_across_its_groups(tmp_path: Path) -> None:
    """git names a commit's file at the commit's first group only: a later group of that commit,
    after another commit's group from another file (a block moved in by -C), is still the
    commit's own file."""
    r = GitRepo.init(tmp_path / "repo")
    r.write("build.yml", BUILD)
    first = r.commit("build", datetime(2026, 3, 1, 9, tzinfo=UTC))
    head, lint = BUILD.split("  lint:\n")
    r.write("build.yml", head)
    r.write("lint.yml", "name: lint\non: [push]\njobs:\n  lint:\n" + lint
            + "  audit:\n    runs-on: ubuntu-latest\n    steps:\n      - run: cargo audit\n")
    second = r.commit("lint apart", datetime(2026, 3, 1, 10, tzinfo=UTC))
    bl = blame(str(r.path), "lint.yml")
    got = [(b.sha, b.orig_path) for b in bl.lines]
    assert got[:3] == [(second, "lint.yml")] * 3
    assert got[4:7] == [(first, "build.yml")] * 3  # moved from build.yml (blame -C)
    assert got[-4:] == [(second, "lint.yml")] * 4  # the commit's own lines again, after the move
