"""`hansard why` at the command line: the demo end to end, errors and their exit codes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import run_cli


def _git(repo: Path, *args: str) -> None:
    env = dict(os.environ, GIT_AUTHOR_DATE="2026-03-01T10:00:00+00:00", GIT_COMMITTER_DATE="2026-03-01T10:00:00+00:00")
    subprocess.run(["git", *args], cwd=repo, env=env, check=True, capture_output=True)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    r = tmp_path / "repo"
    r.mkdir()
    _git(r, "init", "-q", "-b", "main")
    (r / "a.py").write_text("x = 1\ny = 2\n")
    (r / "bin.dat").write_bytes(b"\x00\x01\x02binary")
    (r / "sub").mkdir()
    (r / "sub" / "b.py").write_text("z = 3\n")
    _git(r, "add", ".")
    _git(r, "commit", "-q", "-m", "init")
    (r / "untracked.py").write_text("nope = 1\n")
    # a session that ran here and wrote nothing: the repository has evidence, so a line no
    # session wrote is a person's (with none at all it would be unknown, rule no_sessions)
    from datetime import UTC, datetime

    from fixtures_repos.writers import ClaudeWriter, Clock

    w = ClaudeWriter(Path(os.environ["CLAUDE_CONFIG_DIR"]), r, "7e1d0c2b-3a4f-4b5c-8d6e-9f0a1b2c3d4e",
                     Clock(datetime(2026, 3, 1, 9, 0, tzinfo=UTC)))
    w.prompt("what does a.py hold?")
    w.read(r / "a.py")
    from hansard.ingest.run import index
    from hansard.store import open_store

    store = open_store()
    try:
        index(store)
    finally:
        store.close()
    return r


def test_demo_runs_end_to_end(tmp_path: Path) -> None:
    # the demo keeps its folder (./hansard-demo by default): build it in one of the test's own
    out = subprocess.run([sys.executable, "-m", "hansard", "demo"], capture_output=True, text=True, timeout=120,
                         cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert "written by   Claude Code session 4f0f2c6e" in out.stdout
    assert 'asked        "uploads fail on the first 502' in out.stdout
    assert "agent_modified" in out.stdout


@pytest.mark.parametrize(
    "target, code, err",
    [
        ("a.py:0", 3, "bad_line_range"),
        ("a.py:3", 4, "line_out_of_range"),
        ("a.py:2-1", 3, "bad_line_range"),
        ("sub", 7, "not_a_file"),
        ("untracked.py", 8, "not_tracked"),
        ("bin.dat", 9, "binary_file"),
        ("missing.py", 7, "not_a_file"),
    ],
)
def test_errors_have_their_own_codes(repo: Path, target: str, code: int, err: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(repo)
    rc, out, stderr = run_cli("why", target, "--no-sync", "--json")
    assert rc == code, (rc, out, stderr)
    assert json.loads(out)["error"]["code"] == err


def test_outside_repository(repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    outside = tmp_path / "plain"
    outside.mkdir()
    (outside / "f.py").write_text("a = 1\n")
    monkeypatch.chdir(outside)
    rc, _, stderr = run_cli("why", "f.py:1", "--no-sync")
    assert rc == 5 and "not_a_repository" in stderr
    monkeypatch.chdir(repo)
    rc, _, stderr = run_cli("why", str(outside / "f.py"), "--no-sync")
    assert rc in (5, 6)


def test_human_lines_and_contents_buffer(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(repo)
    rc, out, _ = run_cli("why", "a.py", "--no-sync", "--json")
    assert rc == 0
    ans = json.loads(out)
    assert [ln["kind"] for ln in ans["lines"]] == ["human", "human"]
    rc, out, _ = run_cli("why", "a.py", "--no-sync", "--json", "--contents", "-", stdin=b"x = 1\nnew = 5\ny = 2\n")
    kinds = [ln["kind"] for ln in json.loads(out)["lines"]]
    assert kinds == ["human", "uncommitted", "human"]


def test_sessions_from_another_machine_are_linked_by_a_path_map(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A transcript recorded at /Users/alice/src/upload-service explains lines of the checkout
    here once `hansard config map` names the new place; before that, its lines are unknown."""
    from hansard.demo import build

    s = build(tmp_path / "demo")
    claude = Path(os.environ["CLAUDE_CONFIG_DIR"])
    old = "/Users/alice/src/upload-service"
    for f in claude.rglob("*.jsonl"):
        f.write_text(f.read_text().replace(str(s.repo), old))
    codex = Path(os.environ["CODEX_HOME"])
    for f in codex.rglob("*.jsonl"):
        f.unlink()
    monkeypatch.chdir(s.repo)
    rc, out, _ = run_cli("why", "app/retry.py:10", "--json")
    before = json.loads(out)["lines"][0]
    # Fail closed: a session wrote this line into a retry.py somewhere unknown; not "human".
    assert rc == 0 and (before["kind"], before["rule"], before["session_id"]) == ("unknown", "unlinked_session", None)
    rc, _, _ = run_cli("config", "map", old, str(s.repo))
    assert rc == 0
    run_cli("index")
    rc, out, _ = run_cli("why", "app/retry.py:10", "--json")
    line = json.loads(out)["lines"][0]
    assert line["kind"] == "agent" and line["session_id"] == "4f0f2c6e-9d1b-4c7a-a35e-0c8f5b2d7e11"


def test_a_second_clone_is_the_same_repository(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Identity is the root commit: sessions recorded in one clone explain lines in another."""
    from hansard.demo import build

    s = build(tmp_path / "demo")
    run_cli("index")
    clone = tmp_path / "elsewhere" / "clone"
    subprocess.run(["git", "clone", "-q", str(s.repo), str(clone)], check=True)
    monkeypatch.chdir(clone)
    rc, out, _ = run_cli("why", "app/retry.py:10", "--json")
    line = json.loads(out)["lines"][0]
    assert rc == 0 and line["kind"] == "agent" and line["tool_call_id"].startswith("toolu_")


def test_blame_ignore_revs_skips_a_reformat_commit(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A commit listed in .git-blame-ignore-revs (a mass reformat) is looked through."""
    first = subprocess.run(["git", "rev-parse", "HEAD"], cwd=repo, capture_output=True, text=True).stdout.strip()
    (repo / "a.py").write_text("x=1\ny=2\n")
    _git(repo, "commit", "-qam", "reformat")
    fmt = subprocess.run(["git", "rev-parse", "HEAD"], cwd=repo, capture_output=True, text=True).stdout.strip()
    monkeypatch.chdir(repo)
    rc, out, _ = run_cli("why", "a.py:1", "--no-sync", "--json")
    assert json.loads(out)["lines"][0]["commit"] in (first, fmt)  # -w already sees through spacing
    (repo / "a.py").write_text("x = 1  # one\ny=2\n")
    _git(repo, "commit", "-qam", "comment everything")
    third = subprocess.run(["git", "rev-parse", "HEAD"], cwd=repo, capture_output=True, text=True).stdout.strip()
    (repo / ".git-blame-ignore-revs").write_text(third + "\n")
    rc, out, _ = run_cli("why", "a.py:1", "--no-sync", "--json")
    assert rc == 0 and json.loads(out)["lines"][0]["commit"] != third


def test_a_range_prints_one_header_per_edit_block(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`why FILE:A-B` heads each run of lines one edit wrote once, then lists the run's lines."""
    from fixtures_repos.check import answer, env_for
    from fixtures_repos.scenarios import SCENARIOS

    scn = SCENARIOS["precision_commit_output"](tmp_path / "build")
    for var, value in env_for(scn, tmp_path / "store").items():
        monkeypatch.setenv(var, value)
    answer(scn)
    monkeypatch.chdir(scn.repo)
    rc, out, _ = run_cli("why", "retry/retry.go:2-6", "--no-sync")
    assert rc == 0
    assert out.count("written by") == 1 and out.count("evidence") == 1
    assert out.splitlines()[0] == "retry/retry.go:2-6"
    body = [ln for ln in out.splitlines() if ln[:3].strip().isdigit()]
    assert [int(ln.split()[0]) for ln in body] == [2, 3, 4, 5, 6]


def test_a_fifo_beside_the_file_or_in_place_of_it_never_blocks(repo: Path) -> None:
    """git reads `.mailmap` for blame, and hansard the file itself: a FIFO at either is refused
    with a typed error, never waited on (git would wait for ever)."""
    os.mkfifo(repo / ".mailmap")
    os.mkfifo(repo / "pipe.py")
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    side = subprocess.run([sys.executable, "-m", "hansard", "why", "a.py", "--json", "--no-sync"], cwd=repo, env=env,
                          capture_output=True, text=True, timeout=60)
    assert side.returncode != 0 and ".mailmap" in side.stderr and "not a regular file" in side.stderr
    os.unlink(repo / ".mailmap")
    bad = subprocess.run([sys.executable, "-m", "hansard", "why", "pipe.py", "--no-sync"], cwd=repo, env=env,
                         capture_output=True, text=True, timeout=60)
    assert bad.returncode != 0 and "not a regular file" in bad.stderr


def test_a_why_process_ends_with_its_whole_answer_and_its_exit_code(repo: Path) -> None:
    """`hansard why` ends its process once the answer is written, without the interpreter's
    teardown: every byte of a large answer reaches a pipe, the text answer too, and a failing
    question keeps its exit code."""
    (repo / "big.py").write_text("".join(f"value_{n} = {n}  # {'x' * 40}\n" for n in range(3000)))
    _git(repo, "add", "big.py")
    _git(repo, "commit", "-q", "-m", "big")
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "hansard", *args], cwd=repo, env=env, capture_output=True,
                              text=True, timeout=120)

    got = run("why", "big.py", "--json", "--no-sync", "--no-cache")
    assert got.returncode == 0, got.stderr
    doc = json.loads(got.stdout)
    assert len(got.stdout) > 256_000 and len(doc["lines"]) == 3000
    assert [ln["content"] for ln in doc["lines"]][-1].startswith("value_2999 = 2999")
    text = run("why", "big.py", "--no-sync")
    assert text.returncode == 0 and "value_2999" in text.stdout, text.stderr
    from hansard.errors import LineOutOfRange

    bad = run("why", "a.py:99", "--json", "--no-sync")
    assert bad.returncode == LineOutOfRange("").exit_code != 0
    assert json.loads(bad.stdout)["error"]["code"] == "line_out_of_range"
