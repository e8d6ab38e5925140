"""The CI recipes of examples/ci run as written against a clone whose sessions exist only on its
Entire checkpoint branch: no agent home on the machine, as in CI. The posting step writes the
body to a file (``REVIEW_BODY``; ``gh`` is not called without ``POST_TO``), and the pre-push hook
prints the review of what a push sends."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from fixtures_repos.entire import SessionCopy, write_checkpoint
from fixtures_repos.gitrepo import GitRepo
from fixtures_repos.writers import ClaudeWriter
from hansard.render.markdown import escape

CI = Path(__file__).resolve().parents[1] / "examples" / "ci"
T0 = datetime(2026, 11, 10, 9, 0, 0)
SID = "4a1f6c2e-7b3d-4e8a-9c0f-1d2e3f4a5b6c"
PROMPT = "uploads fail on the first 502; add a capped exponential backoff"


def _clone(tmp_path: Path) -> GitRepo:
    """Alice's repository (a Claude Code session's edits in two commits, each kept in a
    checkpoint on ``entire/checkpoints/v1``) cloned by a machine without her files or homes."""
    alice = GitRepo.init(tmp_path / "alice" / "app")
    alice.write("app/retry.py", "def retry(call, attempts=3):\n    return call()\n")
    alice.commit("Add retry helper", T0)
    w = ClaudeWriter(tmp_path / "alice-home" / ".claude", alice.path, SID, T0 + timedelta(minutes=5))
    w.prompt(PROMPT)
    w.edit(alice.path / "app" / "retry.py", "    return call()\n",
           "    for attempt in range(attempts):\n        backoff = min(30, 2 ** attempt)\n    return call()\n")
    w.bash("python -m pytest -q", stdout="1 failed in 0.02s\n")
    w.say("The backoff is capped at 30 seconds.")
    alice.commit("Add capped backoff\n\nEntire-Checkpoint: a1b2c3d4e5f6\n", T0 + timedelta(minutes=10))
    write_checkpoint(alice, "a1b2c3d4e5f6", [SessionCopy(SID, w.path.read_bytes(), "2026-11-10T09:10:00Z",
                                                         files_touched=["app/retry.py"])], T0 + timedelta(minutes=10))
    alice.write("app/retry.py", alice.read("app/retry.py") + "\n\nRETRIES = 3\n")
    alice.commit("A person's constant", T0 + timedelta(minutes=20))
    bob = GitRepo.clone(alice.path, tmp_path / "bob" / "app")
    shutil.rmtree(tmp_path / "alice-home")
    return bob


def _env(tmp_path: Path) -> dict[str, str]:
    """The CI machine: hansard on PATH (this checkout's), a fresh store, and no agent home."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    shim = bin_dir / "hansard"
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m hansard "$@"\n')
    shim.chmod(0o755)
    root = str(Path(__file__).resolve().parents[1])
    return {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}", "HANSARD_NO_BACKGROUND": "1",
            "PYTHONPATH": os.pathsep.join(x for x in (root, os.environ.get("PYTHONPATH")) if x)}


def test_the_comment_recipe_reviews_a_clone_whose_sessions_are_only_on_its_checkpoint_branch(tmp_path: Path) -> None:
    bob = _clone(tmp_path)
    env = _env(tmp_path)
    assert not any(Path(env[v]).exists() for v in ("CLAUDE_CONFIG_DIR", "CODEX_HOME"))  # no agent home here
    body = tmp_path / "comment.md"
    r = subprocess.run(["sh", str(CI / "review-comment.sh")], cwd=bob.path, capture_output=True, text=True,
                       env={**env, "RANGE": "HEAD~2..HEAD", "REVIEW_BODY": str(body)}, timeout=300)
    assert r.returncode == 0, r.stderr
    md = body.read_text()
    assert r.stdout == md  # printed, as nothing was to be posted
    assert md.startswith("## hansard review of HEAD\\~2\\.\\.HEAD")  # not a plain id: escaped, not a code span
    assert escape(f"{SID}@") in md  # the session, as the repository carries it (<id>@<root commit>)
    assert PROMPT in md.replace("\\", "")
    assert "**Read from:** the repository's checkpoint refs" in md
    assert "**Could not read:** agent homes \\(none on this machine\\)" in md
    assert "its last test run after its last edit FAILED" in md
    assert "**No session explains:**" not in md or "RETRIES" not in md
    assert "a person" in md  # the constant a person added


def test_the_pre_push_hook_prints_the_review_of_what_a_push_sends(tmp_path: Path) -> None:
    bob = _clone(tmp_path)
    env = _env(tmp_path)
    hooks = bob.path / ".git" / "hooks"
    for name in ("pre-push", "review-comment.sh"):
        shutil.copy(CI / name, hooks / name)
    bare = GitRepo.init(tmp_path / "remote.git", bare=True)
    bob.git("push", "-q", str(bare.path), "HEAD~2:refs/heads/main")
    r = subprocess.run(["git", "push", str(bare.path), "HEAD:refs/heads/main"], cwd=bob.path, capture_output=True,
                       text=True, env=env, timeout=300)
    assert r.returncode == 0, r.stderr
    assert "hansard review of HEAD -> refs/heads/main" in r.stderr
    assert escape(f"{SID}@") in r.stderr and "checkpoint refs" in r.stderr


@pytest.mark.parametrize("name", ["review-comment.sh", "pre-push"])
def test_the_recipes_are_plain_sh(name: str) -> None:
    if shutil.which("dash") is None:
        pytest.skip("dash is not installed")
    assert subprocess.run(["dash", "-n", str(CI / name)]).returncode == 0
