"""Commit trailers that name an agent (``Claude-Session:``, ``Co-authored-by:``) and qwen-code's
``refs/notes/ai-attribution`` notes are recorded evidence in `why`, beside hansard's own: a
trailer speaks of a commit (never makes a line an agent's, never invents a session), a qwen
note of a file's share in a commit. Reading them never writes to the
repository."""

from __future__ import annotations

import json
import os
import sqlite3
from datetime import datetime
from pathlib import Path

import pytest

from fixtures_repos.gitrepo import GitRepo
from hansard.agents.trailers.coauthors import agent_of, parse
from tests.helpers import AGENT_LINE, HUMAN_LINE, git_dir_files, retry_repo, run_cli, why_lines

T0 = datetime(2026, 11, 12, 9, 0, 0)
SID = "7c1f6c2e-7b3d-4e8a-9c0f-1d2e3f4a5b6c"
WEB = "session_01163By7fL9BGukpxNd3duHY"  # the shape of a real Claude Code on the web link
MESSAGE = ("Cap the backoff and log retries\n\nBody.\n\n"
           "Co-Authored-By: Claude Opus 4.8 <noreply@anthropic.com>\n"
           f"Claude-Session: https://claude.ai/code/{WEB}\n")


def _repo(tmp_path: Path, message: str, session: str = SID) -> GitRepo:
    return retry_repo(tmp_path, T0, session, message)


def _lines(repo: GitRepo, monkeypatch: pytest.MonkeyPatch) -> dict[str, dict]:
    monkeypatch.chdir(repo.path)
    return why_lines()


def _snapshot(repo: GitRepo) -> tuple[dict[str, str], str]:
    return git_dir_files(repo.path / ".git"), repo.git("for-each-ref")


def _ties(rule: str = "trailer") -> set[tuple[str, str]]:
    db = sqlite3.connect(Path(os.environ["HANSARD_HOME"]) / "hansard.db")
    return set(db.execute("SELECT sha, session_id FROM commit_ties WHERE rule=?", (rule,)).fetchall())


def test_co_author_and_web_session_trailers_are_recorded_never_claimed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                                                        ) -> None:
    repo = _repo(tmp_path, MESSAGE)
    before = _snapshot(repo)
    assert run_cli("index")[0] == 0 and run_cli("index", str(repo.path))[0] == 0
    lines = _lines(repo, monkeypatch)
    assert _snapshot(repo) == before  # index and why wrote nothing to the repository or its refs
    human, agent = lines[HUMAN_LINE], lines[AGENT_LINE]
    want = {"by": "trailer", "kind": "commit", "agent": "claude_code", "commit": repo.head(),
            "co_authored_by": ["Claude Opus 4.8"], "model": "Claude Opus 4.8",
            "session_url": f"https://claude.ai/code/{WEB}"}
    assert human["recorded"] == want and agent["recorded"] == want
    # The trailer speaks of the commit: the person's line stays a person's, with no session.
    assert human["kind"] == "human" and not human.get("session_id") and "disagrees_with" not in human
    assert agent["kind"] == "agent" and agent["session_id"] == SID and "disagrees_with" not in agent
    assert "recorded" not in lines["def retry(call, base, cap):\n"]
    assert _ties() == set()  # no session of that id here: nothing is tied, nothing invented


def test_a_web_session_this_machine_has_ties_its_commit(tmp_path: Path) -> None:
    repo = _repo(tmp_path, MESSAGE, session=WEB)
    assert run_cli("index")[0] == 0
    assert _ties() == {(repo.head(), WEB)}


def test_a_persons_co_author_records_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = _repo(tmp_path, "Cap the backoff\n\nCo-authored-by: Dana Smith <dana@example.com>\n")
    assert run_cli("index", str(repo.path))[0] == 0
    assert all("recorded" not in ln for ln in _lines(repo, monkeypatch).values())


def test_trailers_are_read_by_gits_parser_only_in_the_trailer_block(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                                                     ) -> None:
    # A co-author line in the middle of the body is prose, not a trailer.
    repo = _repo(tmp_path, "Cap\n\nCo-authored-by: Cursor Agent <cursoragent@cursor.com>\n\nand more prose here.\n")
    assert run_cli("index", str(repo.path))[0] == 0
    assert all("recorded" not in ln for ln in _lines(repo, monkeypatch).values())


@pytest.mark.parametrize(("value", "agent", "model"), [
    ("Claude <noreply@anthropic.com>", "claude_code", None),
    ("Claude Opus 5 (1M context) <noreply@anthropic.com>", "claude_code", "Claude Opus 5 (1M context)"),
    ("Codex <noreply@openai.com>", "codex", None),
    ("codex <codex@openai.com>", "codex", None),
    ("Copilot <198982749+Copilot@users.noreply.github.com>", "copilot", None),
    ("GitHub Copilot <223556219+Copilot@users.noreply.github.com>", "copilot", None),
    ("Cursor Agent <cursoragent@cursor.com>", "cursor", None),
    ("Gemini <noreply@google.com>", "gemini", None),
    ("gemini-code-assist[bot] <176961590+gemini-code-assist[bot]@users.noreply.github.com>", "gemini", None),
    ("aider (anthropic/claude-sonnet-4-20250514) <aider@aider.chat>", "aider", "anthropic/claude-sonnet-4-20250514"),
    ("aider (gpt-4o) <noreply@aider.chat>", "aider", "gpt-4o"),
    ("Qwen-Coder <qwen-coder@alibabacloud.com>", "qwen_code", None),
])
def test_co_author_table(value: str, agent: str, model: str | None) -> None:
    got = agent_of(value)
    assert got is not None and got[0] == agent and got[2] == model


@pytest.mark.parametrize("value", ["Dana <dana@example.com>", "Claude Shannon <claude@example.com>",
                                   "Google Bot <noreply@google.com>", "", "<>", "Codex"])
def test_people_are_not_agents(value: str) -> None:
    assert agent_of(value) is None


def test_parse_trailer_field() -> None:
    t = parse("Co-Authored-By: Cursor Agent <cursoragent@cursor.com>\x1eClaude-Session: https://claude.ai/code/"
              + WEB + "\x1eco-authored-by: Dana <d@example.com>\x1eClaude-Session: not a link")
    assert t is not None and t.agents == ("cursor", "claude_code") and t.sessions == (WEB,)
    assert t.recorded("c" * 40)["agents"] == ["cursor", "claude_code"]
    for junk in ("", "\x1e", ":", "Claude-Session:", "x" * 5000, "Co-authored-by: <<>>\x1e\x1e"):
        assert parse(junk) is None


# --- qwen-code's refs/notes/ai-attribution ------------------------------------------------------

def _qwen_note(repo: GitRepo, files: dict[str, tuple[int, int]]) -> None:
    # As qwen-code's CommitAttributionNote (packages/core/src/services/commitAttribution.ts).
    ai, human = sum(a for a, _ in files.values()), sum(h for _, h in files.values())
    note = {"version": 1, "generator": "Qwen-Coder",
            "files": {p: {"aiChars": a, "humanChars": h, "percent": round(100 * a / (a + h)) if a + h else 0,
                          "surface": "cli"} for p, (a, h) in files.items()},
            "summary": {"aiPercent": round(100 * ai / (ai + human)), "aiChars": ai, "humanChars": human,
                        "totalFilesTouched": len(files), "surfaces": ["cli"]},
            "surfaceBreakdown": {"cli": {"aiChars": ai, "percent": 50}}, "excludedGenerated": [], "promptCount": 2}
    repo.git("notes", "--ref=refs/notes/ai-attribution", "add", "-f", "-m", json.dumps(note), "HEAD")


def test_a_qwen_note_is_recorded_beside_the_answer(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = _repo(tmp_path, "Cap the backoff and log retries")
    assert run_cli("index", str(repo.path))[0] == 0
    first = _lines(repo, monkeypatch)  # cached: a new note must not be answered from the cache
    _qwen_note(repo, {"retry.py": (42, 40)})
    before = _snapshot(repo)
    lines = _lines(repo, monkeypatch)
    assert _snapshot(repo) == before
    human, agent = lines[HUMAN_LINE], lines[AGENT_LINE]
    want = {"by": "qwen-code", "kind": "file_share", "agent": "qwen_code", "ai_percent": 51, "ai_chars": 42,
            "human_chars": 40, "generator": "Qwen-Coder", "commit": repo.head()}
    assert human["recorded"] == want and agent["recorded"] == want
    assert "disagrees_with" not in human and "disagrees_with" not in agent  # a share contradicts no line
    assert agent["confidence"] == first[AGENT_LINE]["confidence"]


def test_a_qwen_note_that_is_certain_about_the_file_can_disagree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                                                  ) -> None:
    repo = _repo(tmp_path, "Cap the backoff and log retries")
    assert run_cli("index", str(repo.path))[0] == 0
    first = _lines(repo, monkeypatch)
    _qwen_note(repo, {"retry.py": (0, 82)})  # "no character of this file's change was the agent's"
    lines = _lines(repo, monkeypatch)
    agent, human = lines[AGENT_LINE], lines[HUMAN_LINE]
    assert agent["kind"] == "agent" and agent["disagrees_with"] == ["qwen-code"]
    assert agent["confidence"] == pytest.approx(first[AGENT_LINE]["confidence"] / 2, abs=0.01)
    assert "disagrees_with" not in human
    _qwen_note(repo, {"retry.py": (82, 0)})  # "all of it was the agent's"
    lines = _lines(repo, monkeypatch)
    assert lines[HUMAN_LINE]["disagrees_with"] == ["qwen-code"] and "disagrees_with" not in lines[AGENT_LINE]


def test_parse_qwen_note_takes_what_it_can() -> None:
    from hansard.recorders.qwen_code.notes import parse_note

    n = parse_note(b'{"version":1,"generator":"Qwen-Coder","files":{"a.ts":{"aiChars":3,"humanChars":1},'
                   b'"b.ts":{"aiChars":"3"},"c\\\\d.ts":{"aiChars":0,"humanChars":0},"e":[]}}')
    assert n is not None and n.share("a.ts") == (3, 1, 75) and n.share("b.ts") is None
    assert n.share("c/d.ts") == (0, 0, 0) and n.generator == "Qwen-Coder"
    for raw in (b"", b"null", b"[]", b'{"files":{}}', b"\xff", b'{"version":1,"files":[]}', b"{" * 100000):
        assert parse_note(raw) is None



def test_recorders_are_registered_and_read_by_their_readers() -> None:
    from hansard.recorders import recorders

    recs = recorders()
    assert [r.name for r in recs] == ["git-ai", "qwen-code", "trailer", "agent-trace"]
    for r in recs:
        mod, _, attr = (r.reader or "").partition(":")
        assert callable(getattr(__import__(mod, fromlist=[attr]), attr))
    assert {r.notes_ref for r in recs} == {"refs/notes/ai", "refs/notes/ai-attribution", None}
    from hansard.trace import BY

    assert recs[-1].name == BY  # the name `recorded.by` gives imported records
