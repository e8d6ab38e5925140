"""Sessions recorded on other machines answer `why` on Linux: for every agent reader,
a session recorded on Windows and one recorded in WSL, written by the fixtures' own writers and
turned into that machine's paths (fixtures_repos.machines). Two ways in: a repository's
checkpoint branch (Entire keeps Claude Code, Codex and Gemini sessions; placed per session, no
`config map`), and an agent home copied from that machine, mapped with `hansard config map`
(in the other machine's own form). The other path forms (either slash and any case, `\\\\?\\`,
UNC, `file:///c%3A/` URIs, macOS, a worktree) are read too."""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from fixtures_repos.entire import SessionCopy, write_checkpoint
from fixtures_repos.gitrepo import GitRepo
from fixtures_repos.machines import Machine
from fixtures_repos.writers import ClaudeWriter, Clock, CodexWriter, GeminiWriter, Update
from fixtures_repos.writers_more import AiderWriter, CopilotWriter, CursorTranscriptWriter, CursorWriter, OpenCodeWriter
from tests.helpers import cli_json, run_cli

START = datetime(2026, 3, 5, 9, 0, tzinfo=UTC)
BODY = "def mean(values):\n    return sum(values)\n"
OLD = "    return sum(values)\n"
NEW = "    return sum(values) / max(len(values), 1)\n"
LINE = "return sum(values) / max(len(values), 1)"


def _repo(path: Path, clock: Clock) -> GitRepo:
    r = GitRepo.init(path)
    r.write(".gitignore", ".aider*\n")
    r.write("src/stats.py", BODY)
    r.commit("stats", clock.next_second(10))
    return r


def _write(agent: str, homes: dict[str, Path], repo: GitRepo, clock: Clock) -> tuple[list[Path], str]:
    """One session of ``agent`` that edits src/stats.py in ``repo``: (the files it wrote, its id)."""
    target = repo.path / "src" / "stats.py"
    writers: dict[str, Callable[[], Any]] = {
        "claude_code": lambda: ClaudeWriter(homes["claude"], repo.path, "c1a0de00-0000-4000-8000-00000000000c", clock),
        "codex": lambda: CodexWriter(homes["codex"], repo.path, "0c0de000-0000-4000-8000-00000000000d", clock),
        "gemini": lambda: GeminiWriter(homes["gemini"], repo.path, "9e301000-0000-4000-8000-000000000009", clock),
        "cursor": lambda: CursorWriter(homes["cursor_config"], "c0ffee00-0000-4000-8000-000000000001", clock),
        "cursor_transcript": lambda: CursorTranscriptWriter(homes["cursor"], repo.path,
                                                            "c0ffee00-0000-4000-8000-000000000002", clock),
        "opencode": lambda: OpenCodeWriter(homes["opencode"], repo.path, clock, "elsewhere"),
        "copilot": lambda: CopilotWriter(homes["copilot"], repo.path, "5b0d8c1e-0000-4000-8000-000000000003", clock),
    }
    w = writers[agent]()
    w.prompt("divide by the count")
    if agent == "codex":
        w.apply_patch(Update(target, (OLD, NEW)))
    elif agent == "gemini":
        w.replace(str(target), OLD, NEW)
    elif agent == "cursor":
        w.search_replace(target, OLD, NEW)
    elif agent == "cursor_transcript":
        w.str_replace(target, OLD, NEW)
    else:
        w.edit(target, OLD, NEW)
    files = {"cursor": "db_path", "opencode": "storage", "cursor_transcript": "transcript", "copilot": "transcript"}
    sid = w.data["sessionId"] if agent == "gemini" else w.session_id
    return [getattr(w, files.get(agent, "path"))], sid


def _homes(tmp_path: Path, local: bool) -> dict[str, Path]:
    if local:
        return {"claude": Path(os.environ["CLAUDE_CONFIG_DIR"]), "codex": Path(os.environ["CODEX_HOME"]),
                "gemini": Path(os.environ["GEMINI_CLI_HOME"]), "cursor": Path(os.environ["CURSOR_HOME"]),
                "cursor_config": Path(os.environ["CURSOR_CONFIG_DIR"]),
                "opencode": Path(os.environ["OPENCODE_DATA_DIR"]), "copilot": Path(os.environ["COPILOT_HOME"])}
    base = tmp_path / "elsewhere-homes"
    return {k: base / k for k in ("claude", "codex", "gemini", "cursor", "cursor_config", "opencode", "copilot")}


def _gemini_as_recorded(files: list[Path], root: str) -> None:
    """Gemini keeps only a hash of the project root as it saw it: the other machine's root."""
    for f in files:
        doc = json.loads(f.read_text())
        doc["projectHash"] = hashlib.sha256(root.encode()).hexdigest()
        f.write_text(json.dumps(doc, indent=2))


def _recorded(tmp_path: Path, agent: str, form: str, *, local: bool
              ) -> tuple[GitRepo, Clock, list[Path], str, Machine]:
    """A repository and one session of ``agent`` in it, recorded on a machine of ``form`` (its
    files in this machine's agent homes with ``local``, else in a folder of their own)."""
    clock = Clock(START)
    repo = _repo(tmp_path / "app", clock)
    files, sid = _write(agent, _homes(tmp_path, local=local), repo, clock)
    machine = Machine(form, repo.path)
    for f in files:
        machine.rewrite(f)
    if agent == "gemini":
        _gemini_as_recorded(files, machine.root(repo.path))
    return repo, clock, files, sid, machine


def _line(repo: GitRepo, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    monkeypatch.chdir(repo.path)
    doc = cli_json("why", "src/stats.py")
    (ln,) = [x for x in doc["lines"] if x["content"].strip() == LINE]
    return {**ln, "sessions": doc["sessions"]}


@pytest.mark.parametrize("form", ["windows", "wsl"])
@pytest.mark.parametrize("agent", ["claude_code", "codex", "gemini"])
def test_a_checkpointed_session_recorded_elsewhere_answers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                           agent: str, form: str) -> None:
    """Kept on the repository's checkpoint branch, recorded on Windows or in WSL: placed per
    session, with no path map."""
    repo, clock, files, sid, _machine = _recorded(tmp_path, agent, form, local=False)
    repo.commit("divide by the count\n\nEntire-Checkpoint: a1a1a1a1a1a1\n", clock.next_second(5))
    write_checkpoint(repo, "a1a1a1a1a1a1", [SessionCopy(sid, files[0].read_bytes(), "2026-03-05T09:10:00Z")],
                     clock.next_second(5))
    assert run_cli("index", str(repo.path))[0] == 0
    ln = _line(repo, monkeypatch)
    assert (ln["kind"], ln["provider"]) == ("agent", agent)
    assert ln["sessions"][ln["session_id"]]["source"]["claimed_id"] == sid
    assert run_cli("config", "maps")[1].strip() == ""


@pytest.mark.parametrize("form", ["windows", "wsl"])
@pytest.mark.parametrize("agent", ["claude_code", "codex", "gemini", "cursor", "cursor_transcript", "opencode",
                                   "copilot"])
def test_a_home_copied_from_elsewhere_answers_through_a_map(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                            agent: str, form: str) -> None:
    """An agent home from a Windows or WSL machine, its project mapped in that machine's form."""
    repo, clock, files, sid, machine = _recorded(tmp_path, agent, form, local=True)
    repo.commit("divide by the count", clock.next_second(5))
    assert run_cli("config", "map", machine.root(repo.path), str(repo.path))[0] == 0
    assert run_cli("index")[0] == 0
    ln = _line(repo, monkeypatch)
    if agent == "cursor_transcript":  # no time recorded: placed in the file, never `agent`
        assert (ln["kind"], ln["rule"]) == ("unknown", "untimed")
        return
    assert (ln["kind"], ln["provider"], ln["session_id"]) == ("agent", agent.split("_transcript")[0], sid)
    assert ln["sessions"][sid]["source"] == {"kind": "local"}


@pytest.mark.parametrize("form", ["windows", "wsl"])
def test_an_aider_history_recorded_elsewhere_answers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                     form: str) -> None:
    """Aider keeps its history in the repository, paths relative to it: Windows' in backslashes."""
    clock = Clock(START)
    repo = _repo(tmp_path / "app", clock)
    ai = AiderWriter(repo.path, clock)
    ai.prompt("divide by the count")
    ai.reply("Here it is.", (repo.path / "src" / "stats.py", OLD, NEW))
    if form == "windows":
        text = ai.transcript.read_text()
        ai.transcript.write_text(text.replace("src/stats.py", "src\\stats.py"))
    repo.commit("divide by the count", clock.next_second(5))
    assert run_cli("index", str(repo.path))[0] == 0
    ln = _line(repo, monkeypatch)
    assert (ln["kind"], ln["provider"]) == ("agent", "aider")


@pytest.mark.parametrize("form", ["windows_slash", "long", "unc", "uri", "mac"])
def test_every_path_form_of_a_checkpointed_session_is_placed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                             form: str) -> None:
    """Either slash and another case, `\\\\?\\`, a share, a file URI, macOS: placed the same."""
    clock = Clock(START)
    repo = _repo(tmp_path / "app", clock)
    files, sid = _write("claude_code", _homes(tmp_path, local=False), repo, clock)
    Machine(form, repo.path).rewrite(files[0])
    repo.commit("divide\n\nEntire-Checkpoint: b2b2b2b2b2b2\n", clock.next_second(5))
    write_checkpoint(repo, "b2b2b2b2b2b2", [SessionCopy(sid, files[0].read_bytes(), "2026-03-05T09:10:00Z")],
                     clock.next_second(5))
    assert run_cli("index", str(repo.path))[0] == 0
    assert _line(repo, monkeypatch)["kind"] == "agent"


def test_a_worktree_recorded_on_windows_is_the_same_repository(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                                               ) -> None:
    """The session ran in a worktree of the repository on Windows (Claude Code's
    ``.claude\\worktrees\\<name>``): its edits land on the repository's paths."""
    clock = Clock(START)
    repo = _repo(tmp_path / "app", clock)
    wt = repo.path / ".claude" / "worktrees" / "brave-otter"
    repo.git("worktree", "add", "-q", str(wt), "-b", "otter")
    w = ClaudeWriter(tmp_path / "h", wt, "c1a0de00-0000-4000-8000-0000000000aa", clock)
    w.prompt("divide by the count")
    w.edit(wt / "src" / "stats.py", OLD, NEW)
    Machine("windows", wt, names={wt: "app/.claude/worktrees/brave-otter"}).rewrite(w.path)
    data = w.path.read_text()
    assert "C:\\\\Users\\\\dana\\\\app\\\\.claude\\\\worktrees\\\\brave-otter\\\\src" in data
    (repo.path / "src" / "stats.py").write_text((wt / "src" / "stats.py").read_text())
    repo.git("worktree", "remove", "--force", str(wt))
    repo.commit("divide\n\nEntire-Checkpoint: c3c3c3c3c3c3\n", clock.next_second(5))
    write_checkpoint(repo, "c3c3c3c3c3c3", [SessionCopy(w.session_id, data.encode(), "2026-03-05T09:10:00Z")],
                     clock.next_second(5))
    assert run_cli("index", str(repo.path))[0] == 0
    assert _line(repo, monkeypatch)["kind"] == "agent"


def test_a_real_windows_session_answers_why(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A real checkpoint of a Claude Code session recorded on Windows (JanDeDobbeleer/oh-my-posh,
    see tests/entire_samples/PROVENANCE.md): its edit of ``D:\\oh-my-posh\\.gitignore`` is the
    repository's ``.gitignore``, with no path map."""
    from fixtures_repos.entire import write_checkpoint_folder

    sample = Path(__file__).parent / "entire_samples" / "oh-my-posh" / "52ce428f6a9c"
    repo = GitRepo.init(tmp_path / "oh-my-posh")
    repo.write(".gitignore", "# go releaser\n/src/dist\n")
    repo.commit("Initial commit", datetime(2026, 7, 13, 9, 0, 0))
    repo.write(".gitignore", "# go releaser\n/src/dist\n/src/gomodcache\n")
    repo.commit("chore: ignore the module cache\n\nEntire-Checkpoint: 52ce428f6a9c\n", datetime(2026, 7, 13, 15, 0, 0))
    write_checkpoint_folder(repo, "52ce428f6a9c", sample, datetime(2026, 7, 13, 15, 0, 0))
    assert run_cli("index", str(repo.path))[0] == 0
    monkeypatch.chdir(repo.path)
    doc = cli_json("why", ".gitignore")
    (ln,) = [x for x in doc["lines"] if x["content"] == "/src/gomodcache"]
    assert (ln["kind"], ln["provider"], ln["tool"]) == ("agent", "claude_code", "Edit")
    assert doc["sessions"][ln["session_id"]]["source"]["claimed_id"] == "32e7c00e-d1f8-463c-8090-dacd6ba51385"
    assert run_cli("config", "maps")[1].strip() == ""
