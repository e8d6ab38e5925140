"""Reading what other tools keep in git (git-ai's and qwen-code's notes, agent trailers,
SpecStory histories; Entire's checkpoints have their own test) never writes to the repository
or its refs and never fetches: `hansard index` (bare and given the work
tree), `why` and `sessions` run through a `git` on PATH that logs every call, and the
repository's refs, object count and every file under .git (bytes and mtime) are the same
before and after."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from fixtures_repos.gitrepo import GitRepo
from fixtures_repos.writers import ClaudeWriter
from tests.helpers import git_subcommand, logging_git, run_cli

T0 = datetime(2026, 11, 12, 9, 0, 0)
SID = "7c1f6c2e-7b3d-4e8a-9c0f-1d2e3f4a5b6c"
SAMPLE = Path(__file__).parent / "specstory_samples" / "2025-11-15_06-33Z-check-and-fix-tag-format-in-config.md"
# git subcommands that write to a repository, its refs or its config, or talk to a remote
WRITES = {"fetch", "pull", "push", "clone", "remote", "ls-remote", "notes", "update-ref", "symbolic-ref", "commit",
          "commit-tree", "tag", "branch", "checkout", "switch", "reset", "merge", "rebase", "cherry-pick", "revert",
          "gc", "repack", "prune", "maintenance", "fast-import", "update-index", "write-tree", "hash-object", "reflog",
          "submodule", "worktree", "stash", "config", "lfs", "replace", "apply", "am", "mv", "rm", "add", "init"}


def _state(repo: GitRepo) -> tuple[str, str, dict[str, tuple[int, int]]]:
    gitdir = repo.path / ".git"
    files = {str(p.relative_to(gitdir)): (p.stat().st_mtime_ns, p.stat().st_size)
             for p in sorted(gitdir.rglob("*")) if p.is_file()}
    return repo.git("for-each-ref"), repo.git("count-objects", "-v"), files


def _reads_config(line: str) -> bool:
    words = line.split()
    return git_subcommand(line) == "config" and any(w in ("--get", "--get-all", "--get-regexp", "-l", "--list")
                                                 for w in words)


def test_index_and_why_leave_the_repository_as_it_was(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    upstream = GitRepo.init(tmp_path / "upstream")
    upstream.write("retry.py", "def retry(call, base, cap):\n    attempt = 0\n    return call()\n")
    upstream.commit("retry", T0)
    repo = GitRepo.clone(upstream.path, tmp_path / "app")
    w = ClaudeWriter(Path(os.environ["CLAUDE_CONFIG_DIR"]), repo.path, SID, T0 + timedelta(minutes=1))
    w.prompt("cap the backoff")
    w.edit(repo.path / "retry.py", "    attempt = 0\n", "    attempt = 0\n    backoff = min(cap, base * 2 ** attempt)\n")
    (repo.path / ".specstory" / "history").mkdir(parents=True)
    shutil.copy(SAMPLE, repo.path / ".specstory" / "history" / SAMPLE.name)
    repo.commit("Cap the backoff\n\nCo-Authored-By: Claude <noreply@anthropic.com>\n"
                "Claude-Session: https://claude.ai/code/session_01163By7fL9BGukpxNd3duHY\n", T0 + timedelta(minutes=5))
    note = {"version": 1, "generator": "Qwen-Coder", "files": {"retry.py": {"aiChars": 40, "humanChars": 0}}}
    repo.git("notes", "--ref=refs/notes/ai-attribution", "add", "-m", json.dumps(note), "HEAD")
    repo.git("notes", "--ref=ai", "add", "-m", "retry.py\n  abcdef0123456789 3\n---\n{\"prompts\": {}}", "HEAD")
    # upstream moves on: a fetch would bring its commit and move refs/remotes/origin/main
    upstream.write("other.py", "x = 1\n")
    upstream.commit("upstream only", T0 + timedelta(hours=1))
    bindir, log = logging_git(tmp_path)
    before = _state(repo)
    monkeypatch.setenv("PATH", f"{bindir}{os.pathsep}{os.environ['PATH']}")
    assert run_cli("index")[0] == 0
    assert run_cli("index", str(repo.path))[0] == 0
    monkeypatch.chdir(repo.path)
    rc, out, err = run_cli("why", "retry.py", "--json")
    assert rc == 0, (out, err)
    lines = json.loads(out)["lines"]
    assert {ln["recorded"]["by"] for ln in lines if ln.get("recorded")} == {"git-ai"}  # read, and first
    assert run_cli("sessions", "--provider", "specstory", "--json")[0] == 0
    assert run_cli("index")[0] == 0
    calls = log.read_text().splitlines()
    assert calls, "git was never run through the logging shim"
    ran = {git_subcommand(c) for c in calls if not _reads_config(c)}
    assert ran & WRITES == set(), sorted(ran)
    monkeypatch.setenv("PATH", os.environ["PATH"].split(os.pathsep, 1)[1])
    assert _state(repo) == before
    assert repo.git("rev-parse", "refs/remotes/origin/main") == repo.git("rev-parse", "HEAD~1")
    assert subprocess.run(["git", "cat-file", "-e", upstream.head()], cwd=repo.path).returncode != 0  # never fetched
