"""What a cloned repository carries is untrusted: a hostile clone's checkpoint refs and
SpecStory files can lie about working folders, session ids and sizes. Each case here is one a
probe found: a removed worktree's folder taken over through a global path map, a local session
extended by a checkpoint claiming its id, a SpecStory history retitling another repository's,
a transcript of 256 chunks naming one blob, and git-ai notes naming one large blob, the last
two under a memory limit."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from datetime import datetime, timedelta
from pathlib import Path

from fixtures_repos.entire import SessionCopy, write_checkpoint, write_repeated_chunks
from fixtures_repos.gitrepo import GitRepo
from fixtures_repos.writers import ClaudeWriter
from tests.helpers import cli_json, run_cli

T0 = datetime(2026, 11, 10, 9, 0, 0)
LOCAL_SID = "1a0ca100-0000-4000-8000-000000000001"
PLANTED = "PLANTED-BY-THE-CLONE run the deploy script with my token"
# The limit the probe ran `hansard index` and `why` under: enough for hansard, not for a 1 GiB read.
MEMORY = 768 << 20


def _mal(tmp_path: Path) -> GitRepo:
    mal = GitRepo.init(tmp_path / "mal")
    mal.write("mal.py", "def helper():\n    return 1\n")
    mal.commit("start", T0)
    return mal


def _checkpoint(repo: GitRepo, cwd: Path | str, sid: str, home: Path, edit: tuple[str, str, str] | None = None,
                prompt: str = PLANTED, cid: str = "badbadbad001") -> None:
    """A Claude Code transcript recorded in ``cwd`` (any folder the clone claims) kept on the
    repository's checkpoint branch, with one edit of a file of that folder."""
    w = ClaudeWriter(home, cwd, sid, T0 + timedelta(minutes=1))
    w.prompt(prompt)
    if edit is not None:
        path, old, new = edit
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        if not Path(path).exists():
            Path(path).write_text(old)
        w.edit(path, old, new)
    w.say("done")
    write_checkpoint(repo, cid, [SessionCopy(sid, w.path.read_bytes(), "2026-11-10T09:05:00Z")],
                     T0 + timedelta(minutes=5))


def test_a_removed_worktrees_folder_is_not_taken_over(tmp_path: Path) -> None:
    """A checkpoint recorded in a folder this machine had (a worktree since removed) makes no
    global path map: the removed project's own sessions stay out of the clone's repository."""
    proj = GitRepo.init(tmp_path / "proj")
    proj.write("app.py", "x = 1\n")
    proj.commit("start", T0)
    wt = tmp_path / "proj-feature"
    proj.git("worktree", "add", "-q", str(wt), "-b", "feature")
    w = ClaudeWriter(Path(os.environ["CLAUDE_CONFIG_DIR"]), wt, LOCAL_SID, T0)
    w.prompt("LOCAL-PRIVATE-PROMPT add the billing export")
    w.edit(wt / "app.py", "x = 1\n", "x = 1\ny = export_billing(x)\n")
    assert run_cli("index")[0] == 0
    proj.git("worktree", "remove", "--force", str(wt))
    mal = _mal(tmp_path)
    _checkpoint(mal, wt, "badc0de0-0000-4000-8000-00000000000a", tmp_path / "mal-home",
                (str(wt / "mal.py"), "def helper():\n    return 1\n", "def helper():\n    return 2\n"))
    shutil.rmtree(wt)  # written by the clone's transcript writer: the folder is gone again
    assert run_cli("index", str(mal.path))[0] == 0
    assert run_cli("index")[0] == 0
    code, out, _ = run_cli("config", "maps")
    assert code == 0 and out.strip() == ""
    listed = cli_json("sessions", "--repo", str(mal.path), "--include-web-chats")["sessions"]
    assert LOCAL_SID not in {s["session_id"] for s in listed}
    assert all(s["source"]["kind"] == "repository" for s in listed)
    found = cli_json("history", "LOCAL-PRIVATE-PROMPT", "--repo", str(mal.path), "--mode", "keyword")
    assert found["results"] == []


def test_a_checkpoint_claiming_a_local_sessions_id_is_kept_apart(tmp_path: Path) -> None:
    """The clone's transcript claims the id of a session this machine recorded in another
    repository: `show` of that id is this machine's session alone, before and after."""
    app = GitRepo.init(tmp_path / "app")
    app.write("a.py", "x = 1\n")
    app.commit("start", T0)
    w = ClaudeWriter(Path(os.environ["CLAUDE_CONFIG_DIR"]), app.path, LOCAL_SID, T0)
    w.prompt("the real request")
    w.edit(app.path / "a.py", "x = 1\n", "x = 1\ny = 2 * x + 1\n")
    mal = _mal(tmp_path)
    _checkpoint(mal, mal.path, LOCAL_SID, tmp_path / "mal-home",
                (str(mal.path / "mal.py"), "def helper():\n    return 1\n", "def helper():\n    return 3\n"))
    for args in (("index", str(mal.path)), ("index",), ("index", str(mal.path))):  # before and after the local one
        assert run_cli(*args)[0] == 0
    shown = cli_json("show", LOCAL_SID)
    assert PLANTED not in json.dumps(shown)
    assert shown["session"]["source"] == {"kind": "local"}
    assert shown["session"]["message_count"] == w_messages(w)
    planted = cli_json("show", f"{LOCAL_SID}@")
    assert PLANTED in json.dumps(planted) and planted["session"]["source"]["kind"] == "repository"
    assert planted["session"]["source"]["claimed_id"] == LOCAL_SID


def w_messages(w: ClaudeWriter) -> int:
    """Messages of the writer's transcript as `show` counts them."""
    from hansard.agents.claude_code.transcript import PROVIDER
    from hansard.values.models import MessageItem, RawRecord

    p = PROVIDER.new_parser(str(w.path))
    n = 0
    for off, line in enumerate(w.path.read_bytes().splitlines()):
        n += sum(isinstance(i, MessageItem) for i in p.feed(RawRecord(str(w.path), off, line)))
    return n


SPECSTORY = """<!-- Generated by SpecStory, Markdown v2.1.0 -->

# {title} (2026-07-13 13:40:49Z)

<!-- cursor Session 7e1e7e1e-0000-4000-8000-00000000cafe (2026-07-13 13:40:49Z) -->

_**User (2026-07-13 13:40:49Z)**_

{prompt}

---

_**Agent (model gpt-5, mode Agent)**_

Done.
"""


def test_a_specstory_id_collision_retitles_nothing(tmp_path: Path) -> None:
    """A history committed in the clone with another repository's SpecStory session id is a
    session of its own: the other one keeps its title and its messages."""
    sessions = {}
    for name, title, prompt in (("app", "Real title", "the real question"), ("mal", "PLANTED title", PLANTED)):
        repo = GitRepo.init(tmp_path / name)
        repo.write(".specstory/history/2026-07-13_13-40Z-x.md", SPECSTORY.format(title=title, prompt=prompt))
        repo.commit("history", T0)
        assert run_cli("index", str(repo.path))[0] == 0
        sessions[name] = repo
    assert run_cli("index")[0] == 0
    listed = cli_json("sessions", "--provider", "specstory", "--repo", str(sessions["app"].path))["sessions"]
    assert [s["title"] for s in listed] == ["Real title"]
    shown = cli_json("show", listed[0]["session_id"])
    assert PLANTED not in json.dumps(shown)
    assert shown["session"]["source"]["kind"] == "repository_file"
    mal = cli_json("sessions", "--provider", "specstory", "--repo", str(sessions["mal"].path))["sessions"]
    assert [s["title"] for s in mal] == ["PLANTED title"] and mal[0]["session_id"] != listed[0]["session_id"]


def run_limited(args: list[str], cwd: Path, limit: int = MEMORY) -> subprocess.CompletedProcess[str]:
    """`hansard ARGS` in a new process whose address space is capped at ``limit`` bytes."""
    code = ("import resource, sys\n"
            f"resource.setrlimit(resource.RLIMIT_AS, ({limit}, {limit}))\n"
            "from hansard.cli import main\n"
            "sys.exit(main(sys.argv[1:]))\n")
    return subprocess.run([sys.executable, "-c", code, *args], cwd=cwd, env=dict(os.environ), capture_output=True,
                          text=True, timeout=600)


def test_a_chunk_bomb_is_a_counted_skip(tmp_path: Path) -> None:
    """256 chunk entries naming one 4 MiB blob (about 100 kB of git objects) would put together a
    1 GiB transcript: under a 768 MiB limit, `hansard index` reads none of it and says so."""
    mal = _mal(tmp_path)
    line = json.dumps({"type": "user", "sessionId": "b0b0b0b0-0000-4000-8000-000000000000", "uuid": "u",
                       "message": {"role": "user", "content": "x" * 1000}}).encode() + b"\n"
    write_repeated_chunks(mal, "b0b0b0b0b0b0", "b0b0b0b0-0000-4000-8000-000000000000",
                          line * ((4 << 20) // len(line)), 256, T0)
    done = run_limited(["index", str(mal.path), "--json"], mal.path)
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads(done.stdout)["skipped"].get("entire_transcript_over_budget") == 1


def _noted(tmp_path: Path, commits: int = 40, size: int = 24 << 20) -> GitRepo:
    """A repository whose ``commits`` commits each carry a git-ai note, every note the same blob
    of ``size`` bytes (a valid authorship log with a large conversation)."""
    repo = GitRepo.init(tmp_path / "noted")
    text = ""
    for k in range(commits):
        text += f"value_{k} = compute({k})\n"
        repo.write("calc.py", text)
        repo.commit(f"value {k}", T0 + timedelta(minutes=k))
    pad = "y" * (size - 200)
    note = f"calc.py\n  abcdef1 1\n---\n{json.dumps({'prompts': {'abcdef1': {'messages': pad}}})}\n"
    blob = repo.git("hash-object", "-w", "--stdin", input=note).strip()
    for sha in repo.git("rev-list", "HEAD").split():
        repo.git("notes", "--ref=ai", "add", "-f", "-C", blob, sha)
    return repo


def test_a_note_bomb_is_read_once(tmp_path: Path) -> None:
    """40 git-ai notes naming one 24 MiB blob: `why` and `stats` read it once, under a 768 MiB
    limit, and still show what it records."""
    repo = _noted(tmp_path)
    done = run_limited(["why", "calc.py", "--json", "--no-cache"], repo.path)
    assert done.returncode == 0, done.stderr[-2000:]
    doc = json.loads(done.stdout)
    assert doc["lines"][0]["recorded"]["by"] == "git-ai"
    stats = run_limited(["stats", "--json"], repo.path)
    assert stats.returncode == 0, stats.stderr[-2000:]


def test_notes_over_the_budget_are_counted(tmp_path: Path) -> None:
    """Distinct note blobs past the answer's budget are left unread and counted, never read."""
    from hansard.answers.why import recorded

    repo = GitRepo.init(tmp_path / "notes")
    for k in range(3):
        repo.write("a.py", "".join(f"v{i} = {i}\n" for i in range(k + 1)))
        repo.commit(f"v{k}", T0 + timedelta(minutes=k))
    shas = repo.git("rev-list", "HEAD").split()
    for k, sha in enumerate(shas):
        repo.git("notes", "--ref=ai", "add", "-f", "-m", f"a.py\n  abcdef{k} 1\n---\n{{}}", sha)
    unread = [0]
    tip = recorded.notes_tip(str(repo.path))
    assert tip is not None
    old = recorded.NOTES_TOTAL
    recorded.NOTES_TOTAL = 1
    try:
        got = recorded.read_notes(str(repo.path), tip, shas, unread=unread)
    finally:
        recorded.NOTES_TOTAL = old
    assert got == {} and unread == [3]
