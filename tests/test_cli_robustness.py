"""The CLI under hostile arguments: every one is a typed error with its
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


# Every command, as a person would first type it. `demo` is left out: it
# points every location into its own folder, whatever HANSARD_HOME says.
EVERY_COMMAND = [
    ("index",), ("reindex",), ("status",), ("sessions",), ("import", "export.zip"), ("show", "aaaaaaaa"),
    ("history", "greeting"), ("memory", "search", "x"), ("memory", "show", "x"), ("memory", "scan"),
    ("embed",), ("config", "map", "/old", "/new"), ("config", "maps"), ("why", "app.py:1"), ("why", "app.py", "--json"),
    ("log", "app.py"), ("context",), ("mcp", "serve", "--status"), ("mcp", "serve"), ("mcp", "install", "codex"),
    ("audit",), ("doctor",), ("team", "status"), ("lsp",), ("completion", "bash"),
]


def _mount_read_only(path: Path) -> bool:
    path.mkdir(parents=True, exist_ok=True)
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m,ro", "tmpfs", str(path)], capture_output=True)
    return r.returncode == 0


@pytest.mark.parametrize("home_kind", ["a_file", "under_a_file", "read_only", "missing"])
def test_no_command_prints_a_traceback_in_a_hostile_home(world: dict[str, Any], tmp_path: Path, home_kind: str) -> None:
    """HANSARD_HOME is a file, lies under a file, is a read-only disk, or does not exist yet:
    every command ends with a typed error (one `hansard: ... [code]` line) or works, and no
    traceback reaches the terminal."""
    from concurrent.futures import ThreadPoolExecutor

    (tmp_path / "a_file").write_text("not a folder\n")
    home = {"a_file": tmp_path / "a_file", "under_a_file": tmp_path / "a_file" / "hansard",
            "read_only": tmp_path / "ro", "missing": tmp_path / "not" / "yet"}[home_kind]
    if home_kind == "read_only" and not _mount_read_only(home):
        pytest.skip("cannot mount a read-only tmpfs here (needs root)")
    env = {**os.environ, "HANSARD_HOME": str(home)}
    env.pop("HANSARD_DEBUG", None)

    def run(args: tuple[str, ...]) -> tuple[tuple[str, ...], subprocess.CompletedProcess[str]]:
        return args, subprocess.run([sys.executable, "-m", "hansard", *args], cwd=world["a"], capture_output=True,
                                    text=True, timeout=120, stdin=subprocess.DEVNULL, env=env)

    try:
        with ThreadPoolExecutor(4) as pool:
            results = list(pool.map(run, EVERY_COMMAND))
    finally:
        if home_kind == "read_only":
            subprocess.run(["umount", "-l", str(home)], capture_output=True)
    for args, r in results:
        assert "Traceback" not in r.stderr + r.stdout, (args, r.stderr)
        if args[0] == "doctor" and r.returncode:  # its report names what is wrong, on stdout
            assert "BAD" in r.stdout and r.returncode in (16, 23), (r.returncode, r.stdout)
        elif r.returncode not in (0, 130):
            said = [ln for ln in r.stderr.splitlines() if ln.startswith("hansard:")]
            assert said and said[-1].endswith("]") and "internal" not in said[-1], (args, r.returncode, r.stderr)
        if home_kind in ("a_file", "under_a_file") and args[0] in ("index", "status", "why", "log", "show"):
            assert r.returncode == 23 and "store_home_unusable" in r.stderr and str(tmp_path / "a_file") in r.stderr, \
                (args, r.stderr)


def test_an_unexpected_error_is_one_line_and_a_log_file(world: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    """A bug inside a command prints one line naming the command and the log file that holds the
    traceback (under $HANSARD_HOME/logs/), and exits with the internal-error code."""
    from hansard.answers import status
    from tests.helpers import run_cli

    def broken(store: Any) -> Any:
        raise ZeroDivisionError("a bug")

    monkeypatch.setattr(status, "status", broken)  # the answer `hansard status` asks
    monkeypatch.delenv("HANSARD_DEBUG", raising=False)
    code, out, err = run_cli("status")
    assert code == 1 and out == "", (code, out, err)
    assert len(err.splitlines()) == 1 and "`hansard status` failed unexpectedly (ZeroDivisionError: a bug)" in err, err
    assert err.rstrip().endswith("[internal]"), err
    logs = list((Path(os.environ["HANSARD_HOME"]) / "logs").glob("crash-*.log"))
    assert len(logs) == 1 and str(logs[0]) in err
    assert "Traceback" in logs[0].read_text() and "ZeroDivisionError: a bug" in logs[0].read_text()
    code, out, err = run_cli("status", "--json")
    assert code == 1 and '"code": "internal"' in out


def test_error_names_say_what_is_wrong(world: dict[str, Any]) -> None:
    """A target whose part after the colon is not a line is malformed (not a missing file), a
    --rev that names no commit is an unknown revision (not an untracked file), and `log` of a
    path that never existed fails."""
    a = world["a"]
    r = hansard(a, "why", "app.py:abc")
    assert r.returncode == 24 and "[malformed_target]" in r.stderr and "'abc' is not a line" in r.stderr, r
    r = hansard(a, "why", "app.py:1", "--rev", "nosuchrev")
    assert r.returncode == 25 and "[unknown_revision]" in r.stderr and "nosuchrev" in r.stderr, r
    r = hansard(a, "why", "app.py:1", "--rev", "HEAD~1")  # the file did not exist there: still not_tracked
    assert r.returncode == 8 and "[not_tracked]" in r.stderr, r
    r = hansard(a, "log", "missing.py")
    assert r.returncode == 10 and "[not_found]" in r.stderr and r.stdout == "", r
    r = hansard(a, "log", "app.py:abc")
    assert r.returncode == 24 and "[malformed_target]" in r.stderr, r
    r = hansard(a, "log", "missing.py", "--json")
    assert r.returncode == 10 and '"code": "not_found"' in r.stdout, r


def test_log_of_a_line_says_who_wrote_it(world: dict[str, Any]) -> None:
    """`log FILE:LINE` is the why answer in a few lines, not only `line N: session#i sha`."""
    from tests.hostile import A_SID

    r = hansard(world["a"], "log", "app.py:1")
    assert r.returncode == 0, r
    sha = git(world["a"], "log", "-1", "--format=%h", "--", "app.py").strip()[:7]
    lines = r.stdout.splitlines()
    assert lines[0] == "app.py:1" and lines[1] == "└─ line 1  def greet():", lines
    assert f"   agent: claude_code session {A_SID[:13]}, message 1 (Write)" in lines, lines
    assert '   asked "add the greeting"' in lines and f'   commit {sha} "app.py from a session"' in lines, lines
    assert "   rule wrote" in lines and f"   open: hansard show {A_SID[:13]} --around 1" in lines, lines
    r = hansard(world["a"], "log", "README.md:1")
    assert "   human: no archived session's edit wrote this line" in r.stdout, r


def test_mcp_refuses_what_it_cannot_answer(world: dict[str, Any]) -> None:
    """code_history of a file that never existed is not_found (not an empty history), and a
    capture with no calling session is refused with how to bind one, not stored under an
    "unbound" pseudo-session."""
    from tests.hostile import RawClient, tool_error

    with RawClient(world["a"], world["env"]) as cl:
        err = tool_error(cl.call("code_history", {"path": "missing.py"}))
        assert err["code"] == "not_found" and "missing.py" in err["message"], err
        err = tool_error(cl.call("capture_subagent_messages", {"message_type": "result", "sender": "sub",
                                                               "recipient_path": "main", "text": "done"}))
        assert err["code"] == "session_not_bound" and "--session" in err["message"] \
            and "HANSARD_SESSION_ID" in err["message"], err
    r = hansard(world["a"], "sessions")
    assert "capture" not in r.stdout and "unbound" not in r.stdout, r.stdout
