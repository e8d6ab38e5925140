"""Files someone else may have put in an agent's home or a repository: a FIFO
never hangs `hansard index` or `hansard memory search`, a transcript is read only inside the
agent homes or the paths the user named, and a memory file is opened under its own folder's
descriptor, inside its own agent's home, with no check-then-open race. Real FIFOs and symlinks;
the commands that could hang run as processes with a timeout, so a regression fails instead."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from fixtures_repos.writers import Transcript
from hansard import agents
from hansard.ingest.memory_files import scan_memories
from hansard.store import open_store
from tests.helpers import run_cli

ROOT = Path(__file__).resolve().parents[1]
SECRET = "PRIVATE-0600-FILE-CONTENT"


def _home(agent: str) -> Path:
    return Path(agents.by_name(agent).home())


def hansard(*args: str, cwd: Path, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    try:
        return subprocess.run([sys.executable, "-m", "hansard", *args], cwd=cwd, env=env, capture_output=True,
                              text=True, timeout=timeout, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        pytest.fail(f"hansard {' '.join(args)} still running after {timeout} s (blocked on a FIFO?)")


def _sessions() -> set[str]:
    db = open_store()
    return {r[0] for r in db.db.execute("SELECT session_id FROM sessions")}


def test_a_fifo_memory_file_hangs_neither_index_nor_memory_search(tmp_path: Path) -> None:
    codex = _home("codex")
    codex.mkdir(parents=True)
    os.mkfifo(codex / "AGENTS.md")
    (_home("gemini")).mkdir(parents=True)
    (_home("gemini") / "GEMINI.md").write_text("# rules\nanswer tersely\n")
    r = hansard("index", cwd=tmp_path)
    assert r.returncode == 0 and "Traceback" not in r.stderr, r
    r = hansard("memory", "search", "tersely", "--json", cwd=tmp_path)
    assert r.returncode == 0, r
    assert [h["source"] for h in json.loads(r.stdout)["results"]] == ["gemini"]


def test_a_transcript_symlink_to_a_fifo_does_not_hang_index(tmp_path: Path) -> None:
    folder = _home("claude_code") / "projects" / "-work-app"
    t = Transcript("good-session", cwd=str(tmp_path))
    t.user("hello there")
    t.write(folder)
    os.mkfifo(tmp_path / "pipe")
    (folder / "link.jsonl").symlink_to(tmp_path / "pipe")
    os.mkfifo(folder / "plain-fifo.jsonl")
    r = hansard("index", cwd=tmp_path)
    assert r.returncode == 0 and "Traceback" not in r.stderr, r
    assert _sessions() == {"good-session"}
    r = hansard("index", str(folder), cwd=tmp_path)  # a folder named by hand: the same
    assert r.returncode == 0, r


def test_a_transcript_is_read_only_inside_the_agent_homes_or_a_named_path(tmp_path: Path) -> None:
    private = tmp_path / "private"
    secret = Transcript("secret-session", cwd=str(tmp_path))
    secret.user(SECRET)
    target = secret.write(private)
    target.chmod(0o600)
    folder = _home("claude_code") / "projects" / "-work-app"
    folder.mkdir(parents=True)
    (folder / "planted.jsonl").symlink_to(target)
    inside = Transcript("inside-session", cwd=str(tmp_path))
    inside.user("a transcript kept elsewhere in the home")
    real = inside.write(_home("claude_code") / "projects" / "-elsewhere")
    (folder / "alias.jsonl").symlink_to(real)  # a link inside the home stays readable
    code, out, err = run_cli("index")
    assert code == 0, err
    assert _sessions() == {"inside-session"}
    code, out, err = run_cli("sessions", "--json")
    assert SECRET not in out and "secret-session" not in out
    # Named by the user, the same file is read.
    code, out, err = run_cli("index", str(target))
    assert code == 0, err
    assert "secret-session" in _sessions()


def _memories(db) -> dict[str, str]:
    return {r[0]: r[1] for r in db.db.execute(
        "SELECT m.path, v.text FROM memories m JOIN memory_versions v ON v.memory = m.id")}


def test_a_memory_file_cannot_be_another_agents_file(tmp_path: Path) -> None:
    claude, codex = _home("claude_code"), _home("codex")
    (claude / "rules").mkdir(parents=True)
    codex.mkdir(parents=True)
    (codex / "auth.json").write_text(json.dumps({"OPENAI_API_KEY": None, "note": SECRET}))
    (claude / "rules" / "x.md").symlink_to(codex / "auth.json")
    (claude / "rules" / "ok.md").write_text("# ok\nkeep functions small\n")
    (claude / "CLAUDE.md").symlink_to(claude / "rules" / "ok.md")  # inside its own home: read
    db = open_store()
    scan_memories(db, cwd=str(tmp_path))
    got = _memories(db)
    assert str(claude / "rules" / "x.md") not in got
    assert not any(SECRET in text for text in got.values())
    assert "keep functions small" in got[str(claude / "rules" / "ok.md")]
    assert "keep functions small" in got[str(claude / "CLAUDE.md")]


def test_a_memory_file_swapped_for_a_link_after_any_check_is_not_read(tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """The race of `memory scan` against CLAUDE.md flipping between a file and a link to a
    secret (150 scans stored /etc/passwd), made deterministic: the file turns into the link
    right after hansard resolves its path (the containment check once made before open()).
    What is read must be what was checked: the check is of the open descriptor."""
    repo = tmp_path / "repo"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    memory = repo / "CLAUDE.md"
    memory.write_text("# repo rules\nrun the tests\n")
    secret = tmp_path / "passwd"
    secret.write_text(f"root:x:0:0:{SECRET}:/root:/bin/bash\n")
    flipped = []

    def flip() -> None:
        if not flipped:
            flipped.append(True)
            memory.unlink()
            memory.symlink_to(secret)

    def hooked(fn):
        def wrapper(p, *a, **kw):
            out = fn(p, *a, **kw)
            if os.fspath(p) == str(memory) and "dir_fd" not in kw:
                flip()
            return out
        return wrapper

    monkeypatch.setattr(os.path, "realpath", hooked(os.path.realpath))
    db = open_store()
    scan_memories(db, cwd=str(repo), force=True)
    monkeypatch.undo()
    got = _memories(db)
    assert not any(SECRET in text for text in got.values()), got
