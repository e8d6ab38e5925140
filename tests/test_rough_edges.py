"""Small things a new user tripped over, each with its fix: `context` in
words rather than codes, `audit` that says when it has nothing, a progress line in units that
fit, and stdio servers that say what they are when started by hand in a terminal."""

from __future__ import annotations

import io
import os
import pty
import select
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import run_cli
from tests.hostile import make_world


@pytest.fixture
def world(tmp_path: Path) -> dict[str, Any]:
    return make_world(tmp_path)


def test_context_reads_as_words(world: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(world["a"])
    code, out, err = run_cli("context", "--no-sync")
    assert code == 0, err
    assert "(the newest session in this repository; pass a session id for another)" in out, out
    assert "newest_in_repo" not in out and "— the session asked about" not in out
    assert "— the session this context is about" in out
    assert ": its edits landed in the commit" in out and "edits_landed" not in out, out
    code, out, _ = run_cli("context", "aaaaaaaa", "--no-sync")
    assert "(the session asked for)" in out.splitlines()[0] and "(argument)" not in out
    code, out, _ = run_cli("context", "--no-sync", "--json")  # the JSON keeps its codes
    assert '"selected_by": "newest_in_repo"' in out and '"how": "edits_landed"' in out


def test_audit_says_when_it_has_no_rows_and_counts_results_in_words(world: dict[str, Any]) -> None:
    code, out, _ = run_cli("audit")
    assert code == 0 and out.startswith("no MCP calls recorded yet"), out
    from hansard.store import open_store

    store = open_store()
    store.audit.record(at="2026-12-01T10:00:00Z", tool="code_history", caller=None, outcome="answered", error_code=None,
                       duration_ms=12.0, result_count=None, query=None)
    store.audit.record(at="2026-12-01T10:00:01Z", tool="search_past_sessions", caller="s1", outcome="answered",
                       error_code=None, duration_ms=3.0, result_count=1, query=None)
    code, out, _ = run_cli("audit")
    lines = out.splitlines()
    assert len(lines) == 2 and "- results" not in out, out
    assert lines[0].endswith("search_past_sessions       answered  3 ms  1 result  caller s1"), lines
    assert lines[1].endswith("code_history               answered  12 ms"), lines


def test_progress_line_uses_a_unit_that_fits() -> None:
    from hansard.ingest.progress import Bytes

    def line(total: int, done: int) -> str:
        b = Bytes(io.StringIO())
        b.start(total, 1)
        b.done_bytes, b.t0 = done, time.monotonic() - 2
        return b.line()

    assert line(7000, 4000).startswith("4.0 of 7.0 kB ( 57%)") and "2.0 kB/s" in line(7000, 4000)
    assert line(500, 300).startswith("300 of 500 B ( 60%)")
    assert line(530_000_000, 100_000_000).startswith("100.0 of 530.0 MB ( 19%)")
    assert "0.0 of 0.0" not in line(7000, 4000)
    files = Bytes(io.StringIO(), "files")  # trace export counts the files it answered
    files.start(20, 20)
    files.done_bytes, files.t0 = 5, time.monotonic() - 2
    assert files.line().startswith("5 of 20 files ( 25%)  2.5/s")


@pytest.mark.parametrize("args,says", [(("mcp", "serve"), "hansard mcp serve: the MCP server"),
                                       (("lsp",), "hansard lsp: the language server")])
def test_stdio_servers_say_what_they_are_in_a_terminal(world: dict[str, Any], args: tuple[str, ...], says: str) -> None:
    """Started by hand (stdin a terminal), the server prints one line on stderr and keeps
    serving; started by an agent or editor (stdin a pipe), it prints nothing."""
    main, side = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "hansard", *args], cwd=world["a"], stdin=side,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    os.close(side)
    try:
        assert proc.stderr is not None
        ready, _, _ = select.select([proc.stderr], [], [], 60)
        assert ready, "nothing on stderr"
        first = proc.stderr.readline().decode()
        assert first.startswith(says) and "stdin and stdout" in first and "Ctrl-D" in first, first
        assert proc.poll() is None  # still serving
    finally:
        proc.kill()
        proc.wait(30)
        os.close(main)
    r = subprocess.run([sys.executable, "-m", "hansard", *args], cwd=world["a"], stdin=subprocess.DEVNULL,
                       capture_output=True, text=True, timeout=60)
    assert says not in r.stderr, r.stderr
