"""Entire's compact ``transcript.jsonl`` read when a checkpoint session's ``full.jsonl`` cannot
be: real checkpoints (tests/entire_samples/PROVENANCE.md) on a real git repository's checkpoint
branch, the v2 ref that keeps only the compact file, and hostile compact lines."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
from datetime import datetime
from pathlib import Path

import pytest

from fixtures_repos.entire import folder_tree, write_checkpoint_folder
from fixtures_repos.gitrepo import GitRepo, git_env
from tests.helpers import cli_json, run_cli

SAMPLES = Path(__file__).parent / "entire_samples"
OMP = SAMPLES / "oh-my-posh" / "52ce428f6a9c"
OMP_SID = "32e7c00e-d1f8-463c-8090-dacd6ba51385"
OMP_EDIT = "toolu_01EwAveWErhAXJNT8Fryq9gW"  # the Edit that applied; the one before it failed
EG = SAMPLES / "entire-graph"
EG_SID = "019f9261-846e-7fc0-b843-e0464227f290"
PATCH_CALL = "call_jXJkw9E18HvAa4CA9AZ4vll7"  # apply_patch, "Success. Updated the following files"
SCRIPT_CALLS = ("call_YpWQCBrqszdgS2c55PpuS54P", "call_KWGOZhIMjsVA6rJVX42TVSKT")  # code-mode exec calling apply_patch


def _store() -> sqlite3.Connection:
    return sqlite3.connect(Path(os.environ["HANSARD_HOME"]) / "hansard.db")


def _omp_repo(tmp_path: Path) -> GitRepo:
    """The commit the Windows session's edit made, with its trailer (no checkpoint yet)."""
    repo = GitRepo.init(tmp_path / "oh-my-posh")
    repo.write(".gitignore", "# go releaser\n/src/dist\n")
    repo.commit("Initial commit", datetime(2026, 7, 13, 9, 0, 0))
    repo.write(".gitignore", "# go releaser\n/src/dist\n/src/gomodcache\n")
    repo.commit("chore: ignore the module cache\n\nEntire-Checkpoint: 52ce428f6a9c\n", datetime(2026, 7, 13, 15, 0, 0))
    return repo


def _sample_copy(tmp_path: Path, full: str) -> Path:
    """The real checkpoint folder with its ``full.jsonl`` kept ("kept"), left out of the tree
    ("none") or named in the tree by a blob the repository lacks ("absent": a snapshot
    without blobs of 4 MiB and more)."""
    folder = tmp_path / "cp"
    shutil.copytree(OMP, folder)
    if full != "kept":
        (folder / "0" / "full.jsonl").unlink()
    return folder


def _index(repo: GitRepo) -> str:
    rc, out, err = run_cli("index", str(repo.path))
    assert rc == 0, (out, err)
    return out + err


def _omp_line(repo: GitRepo, monkeypatch: pytest.MonkeyPatch) -> tuple[dict, dict]:
    monkeypatch.chdir(repo.path)
    doc = cli_json("why", ".gitignore")
    (ln,) = [x for x in doc["lines"] if x["content"] == "/src/gomodcache"]
    return ln, doc


def _add_absent_full(repo: GitRepo, cid: str, data: bytes) -> None:
    """Name a ``full.jsonl`` blob of ``data`` that the repository does not have in the session
    folder of checkpoint ``cid`` on the branch (as the oh-my-posh snapshot does for 233 of them)."""
    branch = "refs/heads/entire/checkpoints/v1"
    ghost = subprocess.run(["git", "hash-object", "--stdin"], cwd=repo.path, input=data,
                           capture_output=True, check=True).stdout.decode().strip()

    def mktree(lines: str) -> str:
        return subprocess.run(["git", "mktree", "--missing"], cwd=repo.path, input=lines.encode(), env=git_env(),
                              capture_output=True, check=True).stdout.decode().strip()

    def entries(tree: str) -> list[str]:
        return repo.git("ls-tree", tree).splitlines()

    def put(tree: str, name: str, line: str) -> str:
        kept = [e for e in entries(tree) if e.split("\t", 1)[1] != name]
        return mktree("\n".join([*kept, line]) + "\n")

    root = repo.git("rev-parse", f"{branch}^{{tree}}").strip()
    shard = repo.git("rev-parse", f"{branch}:{cid[:2]}").strip()
    folder = repo.git("rev-parse", f"{branch}:{cid[:2]}/{cid[2:]}").strip()
    session = repo.git("rev-parse", f"{branch}:{cid[:2]}/{cid[2:]}/0").strip()
    session = put(session, "full.jsonl", f"100644 blob {ghost}\tfull.jsonl")
    folder = put(folder, "0", f"040000 tree {session}\t0")
    shard = put(shard, cid[2:], f"040000 tree {folder}\t{cid[2:]}")
    root = put(root, cid[:2], f"040000 tree {shard}\t{cid[:2]}")
    parent = repo.git("rev-parse", branch).strip()
    commit = repo.git("commit-tree", root, "-p", parent, "-m", f"Checkpoint: {cid}",
                      when=datetime(2026, 7, 13, 15, 1, 0)).strip()
    repo.git("update-ref", branch, commit)


@pytest.mark.parametrize("full", ["none", "absent"])
def test_a_session_kept_only_as_its_compact_transcript_answers_why(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                   full: str) -> None:
    """The real Windows checkpoint without a readable ``full.jsonl``: its compact transcript
    is read as the Claude Code session it records, and `why` names the session and the Edit
    call that wrote the line; the Edit that failed before it is a failed edit, not evidence."""
    repo = _omp_repo(tmp_path)
    write_checkpoint_folder(repo, "52ce428f6a9c", _sample_copy(tmp_path, full), datetime(2026, 7, 13, 15, 0, 0))
    if full == "absent":
        _add_absent_full(repo, "52ce428f6a9c", (OMP / "0" / "full.jsonl").read_bytes())
    out = _index(repo)
    assert "entire_full_transcript_unreadable 1" in out
    ln, doc = _omp_line(repo, monkeypatch)
    assert (ln["kind"], ln["provider"], ln["tool"]) == ("agent", "claude_code", "Edit")
    assert ln["tool_call_id"].split("@")[0] == OMP_EDIT
    assert doc["sessions"][ln["session_id"]]["source"]["claimed_id"] == OMP_SID
    db = _store()
    assert db.execute("SELECT status, COUNT(*) FROM edits GROUP BY status ORDER BY 1").fetchall() == \
        [("applied", 1), ("failed", 1)]
    assert db.execute("SELECT COUNT(*) FROM sessions").fetchone()[0] == 1


def test_a_session_with_both_files_is_read_from_full_jsonl_only(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                                                ) -> None:
    """With ``full.jsonl`` readable beside ``transcript.jsonl``, only ``full.jsonl`` is read:
    the archive holds its lines, byte for byte, and each call once."""
    repo = _omp_repo(tmp_path)
    write_checkpoint_folder(repo, "52ce428f6a9c", _sample_copy(tmp_path, "kept"), datetime(2026, 7, 13, 15, 0, 0))
    out = _index(repo)
    assert "entire_full_transcript_unreadable" not in out
    ln, _doc = _omp_line(repo, monkeypatch)
    assert ln["tool_call_id"].split("@")[0] == OMP_EDIT
    db = _store()
    full = [x for x in (OMP / "0" / "full.jsonl").read_bytes().split(b"\n") if x.strip()]
    assert db.execute("SELECT COUNT(*) FROM raw_records").fetchone()[0] == len(full)
    assert db.execute("SELECT COUNT(*) FROM tool_calls WHERE call_id LIKE ?", (OMP_EDIT + "%",)).fetchone()[0] == 1
    assert db.execute("SELECT status, COUNT(*) FROM edits GROUP BY status ORDER BY 1").fetchall() == \
        [("applied", 1), ("failed", 1)]


def test_a_full_jsonl_that_arrives_later_replaces_the_compact_reading(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """Read from its compact copy while its ``full.jsonl`` blob is absent, the session is read
    again, from ``full.jsonl`` alone, once the blob arrives (as after a fetch)."""
    repo = _omp_repo(tmp_path)
    write_checkpoint_folder(repo, "52ce428f6a9c", _sample_copy(tmp_path, "none"), datetime(2026, 7, 13, 15, 0, 0))
    full = (OMP / "0" / "full.jsonl").read_bytes()
    _add_absent_full(repo, "52ce428f6a9c", full)
    assert "entire_full_transcript_unreadable 1" in _index(repo)
    subprocess.run(["git", "hash-object", "-w", "--stdin"], cwd=repo.path, input=full, capture_output=True, check=True)
    assert "entire_full_transcript_unreadable" not in _index(repo)
    db = _store()
    # The archive keeps the compact reading as an older generation; the new one is full.jsonl's lines.
    assert db.execute("SELECT COUNT(*) FROM raw_records WHERE generation=(SELECT MAX(generation) FROM raw_records)"
                      ).fetchone()[0] == len([x for x in full.split(b"\n") if x.strip()])
    assert db.execute("SELECT status, COUNT(*) FROM edits GROUP BY status ORDER BY 1").fetchall() == \
        [("applied", 1), ("failed", 1)]
    ln, _doc = _omp_line(repo, monkeypatch)
    assert ln["tool_call_id"].split("@")[0] == OMP_EDIT


@pytest.mark.parametrize("more", [False, True])
def test_an_older_full_jsonl_is_kept_unless_the_compact_copies_prove_more(tmp_path: Path, more: bool) -> None:
    """The session kept twice, the newer copy's ``full.jsonl`` absent: its older ``full.jsonl``
    is read, unless the newer compact copy holds more applied edits (here one more Edit)."""
    repo = _omp_repo(tmp_path)
    write_checkpoint_folder(repo, "52ce428f6a9c", _sample_copy(tmp_path, "kept"), datetime(2026, 7, 13, 15, 0, 0))
    newer = tmp_path / "newer"
    shutil.copytree(OMP, newer)
    meta = json.loads((newer / "0" / "metadata.json").read_text())
    (newer / "0" / "metadata.json").write_text(json.dumps({**meta, "created_at": "2026-07-13T16:00:00Z"}))
    if more:
        edit = {"v": 1, "agent": "claude-code", "cli_version": "0.8.42", "type": "assistant",
                "ts": "2026-07-13T15:30:00.000Z", "content": [{
                    "type": "tool_use", "id": "toolu_later", "name": "Edit",
                    "input": {"file_path": "D:\\oh-my-posh\\.gitignore", "old_string": "/src/gomodcache",
                              "new_string": "/src/gomodcache\n/src/tmp"},
                    "result": {"output": "The file D:\\oh-my-posh\\.gitignore has been updated successfully.",
                               "status": "success", "file": {"filePath": "D:\\oh-my-posh\\.gitignore"}}}]}
        with open(newer / "0" / "transcript.jsonl", "a") as fh:
            fh.write(json.dumps(edit) + "\n")
    write_checkpoint_folder(repo, "52ce428f6a9e", newer, datetime(2026, 7, 13, 16, 0, 0))
    _add_absent_full(repo, "52ce428f6a9e", (OMP / "0" / "full.jsonl").read_bytes() + b"{}\n")
    out = _index(repo)
    assert ("entire_full_transcript_unreadable 1" in out) == more
    calls = {c.split("@")[0] for (c,) in _store().execute("SELECT call_id FROM edits WHERE status='applied'")}
    assert calls == ({OMP_EDIT, "toolu_later"} if more else {OMP_EDIT})


def _eg_repo(tmp_path: Path) -> GitRepo:
    """entire-graph's commit "Add Entire Graph trail runners" (five runner files a Codex session
    wrote with apply_patch), on a repository whose checkpoint branch keeps that session's
    compact transcript only."""
    repo = GitRepo.init(tmp_path / "entire-graph")
    repo.write("README.md", "# entire-graph\n")
    repo.commit("Initial commit", datetime(2026, 7, 24, 4, 0, 0))
    for f in sorted((EG / "committed").iterdir()):
        repo.write(f".entire/runners/{f.name}", f.read_text())
    repo.commit("Add Entire Graph trail runners\n\nEntire-Checkpoint: bbef1c2a76a9\n", datetime(2026, 7, 24, 4, 44, 58))
    return repo


def test_a_codex_session_kept_only_compact_answers_why_with_its_apply_patch(tmp_path: Path,
                                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """A real Codex compact transcript (entire-graph): its apply_patch call is the Codex
    parser's own (a custom tool call whose output says it applied), so the line it wrote is the
    session's and names that call."""
    repo = _eg_repo(tmp_path)
    write_checkpoint_folder(repo, "bbef1c2a76a9", EG / "bbef1c2a76a9", datetime(2026, 7, 24, 4, 45, 19))
    _index(repo)
    monkeypatch.chdir(repo.path)
    doc = cli_json("why", ".entire/runners/trail-review.json")
    mine = [x for x in doc["lines"] if x["kind"] in ("agent", "agent_modified")]
    assert [(x["line"], x["provider"], x["tool"], x["tool_call_id"].split("@")[0]) for x in mine] == \
        [(21, "codex", "apply_patch", PATCH_CALL)]
    assert doc["sessions"][mine[0]["session_id"]]["source"]["claimed_id"] == EG_SID
    # The files were created by a code-mode script whose output the compact form keeps empty:
    # nothing says its patch applied, so it is a failed edit and its lines stay unknown.
    calls = {c.split("@")[0]: {s for (s,) in _store().execute("SELECT DISTINCT status FROM edits WHERE call_id=?", (c,))}
             for (c,) in _store().execute("SELECT DISTINCT call_id FROM edits")}
    assert calls == {PATCH_CALL: {"applied"}, SCRIPT_CALLS[0]: {"failed"}, SCRIPT_CALLS[1]: {"failed"}}
    assert {x["kind"] for x in doc["lines"]} == {"agent", "unknown"}


def test_the_v2_ref_keeping_only_compact_transcripts_is_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Entire's v2 layout keeps ``transcript.jsonl`` (and no ``full.jsonl``) on
    ``refs/entire/checkpoints/v2/main``, sharded like the v1 branch."""
    repo = _omp_repo(tmp_path)
    folder = folder_tree(repo, _sample_copy(tmp_path, "none"))
    shard = subprocess.run(["git", "mktree"], cwd=repo.path, input=f"040000 tree {folder}\tce428f6a9c\n".encode(),
                           capture_output=True, check=True).stdout.decode().strip()
    root = subprocess.run(["git", "mktree"], cwd=repo.path, input=f"040000 tree {shard}\t52\n".encode(),
                          capture_output=True, check=True).stdout.decode().strip()
    commit = repo.git("commit-tree", root, "-m", "Checkpoint: 52ce428f6a9c", when=datetime(2026, 7, 13, 15, 0, 0))
    repo.git("update-ref", "refs/entire/checkpoints/v2/main", commit.strip())
    _index(repo)
    ln, doc = _omp_line(repo, monkeypatch)
    assert (ln["kind"], ln["tool"]) == ("agent", "Edit")
    assert doc["sessions"][ln["session_id"]]["source"]["ref"] == "refs/entire/checkpoints/v2/main"


HOSTILE = [
    b"not json at all",
    b"[1, 2, 3]",
    b'{"v": 2, "type": "user", "content": [{"text": "from the future"}]}',
    b'{"v": true, "type": "user", "content": [{"text": "v is a boolean"}]}',
    b'{"v": 1, "content": [{"text": "no type"}]}',
    b'{"v": 1, "type": "system", "content": "a line type hansard does not read"}',
    b'{"v": 1, "type": "user", "agent": 42, "content": [{"text": "agent of the wrong type"}]}',
    b'{"v": 1, "type": "assistant", "input_tokens": "x", "content": []}',
    b'{"v": 1, "agent": "claude-code", "type": "assistant", "content": [{"type": "tool_use", "name": "Edit",'
    b' "input": {"file_path": "D:\\\\oh-my-posh\\\\.gitignore", "old_string": "a", "new_string": "b"},'
    b' "result": {"output": "ok", "status": "success", "file": {"filePath": "D:\\\\oh-my-posh\\\\.gitignore"}}}, 7]}',
]


def test_hostile_compact_lines_are_counted_skips(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Lines that are not the format, and blocks a tool call cannot be read from (no id; not an
    object), are counted skips with their reasons; the real lines around them still answer."""
    repo = _omp_repo(tmp_path)
    folder = _sample_copy(tmp_path, "none")
    real = (folder / "0" / "transcript.jsonl").read_bytes().split(b"\n")
    (folder / "0" / "transcript.jsonl").write_bytes(b"\n".join([*HOSTILE, *real]))
    write_checkpoint_folder(repo, "52ce428f6a9c", folder, datetime(2026, 7, 13, 15, 0, 0))
    out = _index(repo)
    for reason, n in (("malformed_json", 1), ("not_object", 1), ("bad_version", 2), ("no_type", 1),
                      ("unknown_type", 1), ("bad_field", 2), ("bad_block", 2)):
        assert f"entire_compact_{reason} {n}" in out, out
    ln, _doc = _omp_line(repo, monkeypatch)
    assert ln["tool_call_id"].split("@")[0] == OMP_EDIT
    assert _store().execute("SELECT COUNT(*) FROM edits WHERE status='applied'").fetchone()[0] == 1


@pytest.mark.parametrize("agents", [("claude-code", "codex"), ("cursor",)])
def test_a_compact_transcript_of_several_or_unread_agents_is_not_read(tmp_path: Path, agents: tuple[str, ...]
                                                                      ) -> None:
    """Lines claiming several agents, or an agent with no reading back here, make no session:
    one counted skip, nothing guessed."""
    repo = _omp_repo(tmp_path)
    folder = _sample_copy(tmp_path, "none")
    lines = [json.loads(x) for x in (folder / "0" / "transcript.jsonl").read_text().splitlines()]
    for i, x in enumerate(lines):
        x["agent"] = agents[i % len(agents)]
    (folder / "0" / "transcript.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    meta = json.loads((folder / "0" / "metadata.json").read_text())
    (folder / "0" / "metadata.json").write_text(json.dumps({**meta, "agent": "Cursor"}))
    write_checkpoint_folder(repo, "52ce428f6a9c", folder, datetime(2026, 7, 13, 15, 0, 0))
    out = _index(repo)
    assert "entire_compact_agent_unread 1" in out
    assert _store().execute("SELECT COUNT(*) FROM sessions").fetchone()[0] == 0


def test_compact_copies_are_bounded_by_their_sizes_before_reading(tmp_path: Path) -> None:
    """A compact copy over the budget is left out from the size git gives, never read; the
    copies are put together as full.jsonl's are (the longer whole copy wins)."""
    from hansard.agents.entire import checkpoints as cp
    from hansard.git.objects import CatFile, refs

    repo = _omp_repo(tmp_path)
    write_checkpoint_folder(repo, "52ce428f6a9c", _sample_copy(tmp_path, "none"), datetime(2026, 7, 13, 15, 0, 0))
    with CatFile(str(repo.path)) as cat:
        stores = cp.checkpoint_refs(refs(str(repo.path), ("refs/heads/entire/checkpoints/",)))
        (copy,) = cp.read_copies(cat, stores["refs/heads/entire/checkpoints/v1"])
        size = (OMP / "0" / "transcript.jsonl").stat().st_size
        lines, info = cp.assemble_compact(cat, [copy, copy], max_bytes=size - 1)
        assert (lines, info["over_budget"], info["used"]) == ([], 2, 0)
        lines, info = cp.assemble_compact(cat, [copy, copy], max_bytes=size)
        assert len(lines) == len((OMP / "0" / "transcript.jsonl").read_bytes().splitlines())
        assert (info["used"], info["over_budget"]) == (2, 0)


WEIRD = [None, True, 0, -1, 2**63 - 1, 1.5, "", "x", "\x00", [], {}, [None], {"": None}, "../../etc/passwd",
         {"type": "tool_use"}, {"type": "tool_use", "id": "c", "name": "Edit", "input": None, "result": []},
         {"filePath": 7}, {"output": None, "status": {}, "file": "D:\\x"}]


@pytest.mark.parametrize("agent", ["claude-code", "codex", "gemini"])
def test_mangled_compact_lines_never_break_the_agents_readers(agent: str) -> None:
    """Real compact lines with fields replaced by values of any type, read back for each agent:
    nothing raises, and the agent's reader meets no record it fails on."""
    import random
    from collections import Counter

    from hansard.agents import sniff
    from hansard.agents.entire import compact
    from hansard.values.models import RawRecord, Skip

    rnd = random.Random(agent)
    read = 0
    real = [json.loads(x) for x in (OMP / "0" / "transcript.jsonl").read_text().splitlines()]
    for _ in range(60):
        lines = []
        for x in real:
            x = {**x, "agent": agent}
            for _k in range(rnd.randint(0, 3)):
                if isinstance(x.get("content"), list) and x["content"] and rnd.random() < 0.6:
                    i = rnd.randrange(len(x["content"]))
                    block = x["content"][i]
                    if isinstance(block, dict) and block and rnd.random() < 0.7:
                        block = {**block, rnd.choice([*block, "result", "input"]): rnd.choice(WEIRD)}
                    else:
                        block = rnd.choice(WEIRD)
                    x["content"] = [*x["content"][:i], block, *x["content"][i + 1:]]
                else:
                    x = {**x, rnd.choice([*x, "content"]): rnd.choice(WEIRD)}
            lines.append(json.dumps(x).encode())
        skipped: Counter[str] = Counter()
        decoded = compact.decode(lines, skipped)
        name = compact.agent_of(decoded, None)
        if name is None:
            continue
        data = compact.translate(decoded, name, OMP_SID)
        provider = sniff(Path("full.jsonl"), data[:65536])
        if provider is None:
            continue  # nothing left that the agent's reader would take
        assert provider.name == name
        parser = provider.new_parser("git:x:y:entire/z")
        records = [RawRecord("p", 0, data)] if provider.whole_file else \
            [RawRecord("p", i, ln) for i, ln in enumerate(data.split(b"\n")) if ln]
        items = [it for r in records for it in parser.feed(r)] + parser.finish()
        assert not [it for it in items if isinstance(it, Skip) and it.reason == "parser_error"]
        read += 1
    assert read > 20
