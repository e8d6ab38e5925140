"""The CLI under hostile arguments (issue 17, item 7): every one is a typed error with its
exit code, never a traceback or a hang. Real FIFOs and symlinks, real processes."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.hostile import git, make_world


@pytest.fixture
def world(tmp_path: Path) -> dict[str, Any]:
    return make_world(tmp_path)


def hansard(cwd: Path, *args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "hansard", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=timeout, stdin=subprocess.DEVNULL)


def test_why_contents_missing_or_a_folder(world: dict[str, Any], tmp_path: Path) -> None:
    a = world["a"]
    for contents in (str(tmp_path / "missing.py"), str(tmp_path)):
        r = hansard(a, "why", "app.py:1", "--contents", contents)
        assert r.returncode == 7 and "Traceback" not in r.stderr, r


def test_huge_integers_are_argument_errors(world: dict[str, Any]) -> None:
    a = world["a"]
    for args in (("show", "aaaaaaaa", "--around", str(10**20)), ("sessions", "--limit", str(10**20)),
                 ("audit", "--limit", str(10**20)), ("log", "app.py", "--budget", str(-(10**30)))):
        r = hansard(a, *args)
        assert r.returncode == 2 and "Traceback" not in r.stderr and "out of range" in r.stderr, (args, r)


def test_why_on_a_fifo_does_not_hang(world: dict[str, Any]) -> None:
    a = world["a"]
    os.mkfifo(a / "pipe.py")
    r = hansard(a, "why", "pipe.py:1", timeout=30)
    assert r.returncode == 7 and "Traceback" not in r.stderr, r
    r = hansard(a, "why", "app.py:1", "--contents", str(a / "pipe.py"), timeout=30)
    assert r.returncode == 7, r


def test_since_garbage_is_refused_everywhere(world: dict[str, Any]) -> None:
    a = world["a"]
    for args in (("sessions", "--since", "garbage"), ("history", "x", "--since", "garbage")):
        r = hansard(a, *args)
        assert r.returncode in (2, 21) and "Traceback" not in r.stderr, (args, r)


def test_index_of_a_missing_path_fails(world: dict[str, Any], tmp_path: Path) -> None:
    r = hansard(world["a"], "index", str(tmp_path / "nonexistent"))
    assert r.returncode == 10 and "Indexed 0" not in r.stdout and "nonexistent" in r.stderr, r


def test_why_past_the_end_of_a_committed_symlink(world: dict[str, Any], tmp_path: Path) -> None:
    a = world["a"]
    target = tmp_path / "elsewhere.txt"
    target.write_text("".join(f"line {i}\n" for i in range(20)))
    (a / "link.txt").symlink_to(target)
    git(a, "add", "link.txt")
    git(a, "commit", "-q", "-m", "a symlink")
    r = hansard(a, "why", "link.txt:5")
    assert r.returncode == 4 and "Traceback" not in r.stderr, r
    r = hansard(a, "why", "link.txt:1")
    assert r.returncode == 0, r
