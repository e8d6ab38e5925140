"""git-ai authorship notes (refs/notes/ai, Git AI Standard authorship/3.0.0) are recorded
evidence in `why`: shown beside hansard's own answer, a disagreement said and the confidence
lowered, never picked in silence."""

from __future__ import annotations

import hashlib
import json
import os
from datetime import datetime
from pathlib import Path

import pytest

from fixtures_repos.gitrepo import GitRepo
from hansard.recorders.git_ai.notes import parse_note
from tests.helpers import AGENT_LINE, HUMAN_LINE, git_dir_files, retry_repo, run_cli, why_lines

T0 = datetime(2026, 11, 10, 9, 0, 0)
SID = "4a1f6c2e-7b3d-4e8a-9c0f-1d2e3f4a5b6c"


def _hash(tool: str, conv: str) -> str:
    return hashlib.sha256(f"{tool}:{conv}".encode()).hexdigest()[:16]


def _note(files: dict[str, list[tuple[str, str]]], prompts: dict[str, dict]) -> str:
    head = "".join(f"{path}\n" + "".join(f"  {h} {ranges}\n" for h, ranges in entries) for path, entries in files.items())
    meta = {"schema_version": "authorship/3.0.0", "git_ai_version": "1.0.23", "base_commit_sha": "0" * 40,
            "prompts": {h: {"agent_id": p, "human_author": "Dana <dana@example.com>", "messages": [],
                            "total_additions": 1, "total_deletions": 0, "accepted_lines": 1, "overriden_lines": 0}
                        for h, p in prompts.items()}}
    return head + "---\n" + json.dumps(meta, indent=2)


@pytest.fixture
def repo(tmp_path: Path) -> GitRepo:
    r = retry_repo(tmp_path, T0, SID, "Cap the backoff and log retries")
    assert run_cli("index")[0] == 0
    return r


def _add_note(repo: GitRepo, text: str) -> None:
    note = repo.path.parent / "note.txt"
    note.write_text(text)
    repo.git("notes", "--ref=ai", "add", "-f", "-F", str(note), "HEAD")


def _lines(repo: GitRepo, monkeypatch: pytest.MonkeyPatch) -> dict[str, dict]:
    monkeypatch.chdir(repo.path)
    return why_lines()


def test_without_notes_nothing_is_recorded(repo: GitRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    lines = _lines(repo, monkeypatch)
    assert all("recorded" not in ln and "disagrees_with" not in ln for ln in lines.values())
    assert lines[AGENT_LINE]["kind"] == "agent"


def test_a_note_that_agrees_is_shown_beside_the_answer(repo: GitRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    h = _hash("claude-code", SID)
    _add_note(repo, _note({"retry.py": [(h, "3")]}, {h: {"tool": "claude", "id": SID, "model": "claude-opus-4-7"}}))
    before = git_dir_files(repo.path / ".git")
    lines = _lines(repo, monkeypatch)
    agent, human = lines[AGENT_LINE], lines[HUMAN_LINE]
    assert agent["kind"] == "agent" and agent["session_id"] == SID
    assert agent["recorded"] == {"by": "git-ai", "commit": repo.head(), "kind": "agent", "agent": "claude",
                                 "session_id": SID, "model": "claude-opus-4-7"}
    assert "disagrees_with" not in agent and agent["confidence"] >= 0.9
    assert human["kind"] == "human" and human["recorded"] == {"by": "git-ai", "commit": repo.head(), "kind": "human"}
    assert "disagrees_with" not in human
    assert "recorded" not in lines["def retry(call, base, cap):\n"]  # its commit has no note
    assert git_dir_files(repo.path / ".git") == before  # reading notes writes nothing


def test_a_planted_disagreement_is_said_and_lowers_confidence(repo: GitRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    first = _lines(repo, monkeypatch)  # cached: a new note must not be answered from the cache
    other = "019a0000-1111-7222-8333-444455556666"
    h = _hash("cursor", other)
    # The note says Cursor wrote the person's line, and names no session for the agent's line.
    _add_note(repo, _note({"retry.py": [(h, "4")]}, {h: {"tool": "cursor", "id": other, "model": "gpt-5"}}))
    lines = _lines(repo, monkeypatch)
    human, agent = lines[HUMAN_LINE], lines[AGENT_LINE]
    assert human["kind"] == "human" and human["disagrees_with"] == ["git-ai"]
    assert human["recorded"]["session_id"] == other and human["recorded"]["agent"] == "cursor"
    assert human["confidence"] == pytest.approx(first[HUMAN_LINE]["confidence"] / 2, abs=0.01)
    assert agent["kind"] == "agent" and agent["disagrees_with"] == ["git-ai"]
    assert agent["recorded"]["kind"] == "human"
    assert agent["confidence"] == pytest.approx(first[AGENT_LINE]["confidence"] / 2, abs=0.01)


def test_another_session_named_by_the_note_disagrees(repo: GitRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    other = "5b5b5b5b-0000-4000-8000-000000000000"
    h = _hash("claude-code", other)
    _add_note(repo, _note({"retry.py": [(h, "3")]}, {h: {"tool": "claude", "id": other, "model": "m"}}))
    agent = _lines(repo, monkeypatch)[AGENT_LINE]
    assert agent["session_id"] == SID and agent["recorded"]["session_id"] == other
    assert agent["disagrees_with"] == ["git-ai"]


def test_parse_note_takes_what_it_can() -> None:
    note = parse_note(b'src/a.py\n  abcdef1 1-3,7\n"my file.py"\n  0123456789abcdef 2\n  junk\n---\n{"prompts": 3}')
    assert note is not None and note.who("src/a.py", 2) == "abcdef1" and note.who("src/a.py", 5) is None
    assert note.who("my file.py", 2) == "0123456789abcdef" and note.prompts == {}
    assert parse_note(b"no divider at all") is None
    for raw in (b"", b"---\n", b"\xff\xfe---\n{", b"a\n  zz 1\n---\nnull", b"a\n  abcdef1 9-\n---\n[]"):
        parse_note(raw)  # never raises


def test_fuzz_parse_note() -> None:
    """Mutated authorship logs (bytes flipped, cut anywhere, lines shuffled, odd ranges and JSON
    of any type) never raise, and what a note names is always a range it wrote."""
    import random

    rnd = random.Random(24)
    h = _hash("claude-code", SID)
    base = _note({"src/a.py": [(h, "1-3,7,9-12")], '"my file.py"': [(h, "2")]},
                 {h: {"tool": "claude", "id": SID, "model": "m"}}).encode()
    pieces = [b"\n", b"  ", b"---\n", b"-", b",", b"0", b"99999999999999999999", b"\xff", b'"', b"{", b"null", h.encode()]
    for _ in range(int(os.environ.get("HANSARD_AGENT_FUZZ", "3000"))):
        data = bytearray(base)
        for _ in range(rnd.randint(1, 6)):
            r = rnd.random()
            if r < 0.3 and data:
                at = rnd.randrange(len(data))
                del data[at:at + rnd.randint(1, 50)]
            elif r < 0.6:
                at = rnd.randrange(len(data) + 1)
                data[at:at] = rnd.choice(pieces)
            elif r < 0.8 and data:
                data[rnd.randrange(len(data))] = rnd.randrange(256)
            else:
                lines = bytes(data).split(b"\n")
                rnd.shuffle(lines)
                data = bytearray(b"\n".join(lines))
        note = parse_note(bytes(data))
        if note is not None:
            for path, entries in note.files.items():
                for hh, ranges in entries:
                    assert all(a >= 0 and b >= 0 for a, b in ranges)
                    assert note.who(path, ranges[0][0]) is not None if ranges and ranges[0][0] <= ranges[0][1] else True
                    assert isinstance(hh, str)
