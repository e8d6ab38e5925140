"""Fuzzing the Entire checkpoint reader as the transcript parsers are fuzzed: a repository
holding hundreds of mangled checkpoints (odd tree shapes, modes, chunk names, metadata of any
type, transcripts mutated by tests/fuzzing.py's operators) is indexed without an error, reads
nothing the second time, leaves the repository as it was, and still answers `why`.

``HANSARD_ENTIRE_FUZZ=2000 pytest tests/test_entire_fuzz.py`` runs a longer campaign."""

from __future__ import annotations

import copy
import json
import os
import random
import sqlite3
import subprocess
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import orjson
import pytest
from fuzzing import MutationContext, mutate_stream

from fixtures_repos.fastimport import FastImport
from fixtures_repos.gitrepo import GitRepo, git_env
from fixtures_repos.writers import ClaudeWriter
from hansard.agents.entire import checkpoints as cp
from hansard.git.objects import parse_tree
from tests.helpers import git_dir_files, run_cli

N = int(os.environ.get("HANSARD_ENTIRE_FUZZ", "200"))
T0 = datetime(2026, 11, 10, 9, 0, 0)
WEIRD: list[Any] = [None, True, 0, -1, 2**63 - 1, 1.5, "", "x", "\x00", "\u202e", [], {}, [None], {"": None},
                    "2026-13-45T99:99:99Z", "1970-01-01T00:00:00Z", "../../etc/passwd", "a" * 300, "9" * 40,
                    "4a1f6c2e-7b3d-4e8a-9c0f-1d2e3f4a5b6c", "2026-01-01-4a1f6c2e-7b3d-4e8a-9c0f-1d2e3f4a5b6c"]


def _weird(rnd: random.Random) -> Any:
    return copy.deepcopy(rnd.choice(WEIRD))


def _meta(rnd: random.Random, cid: str, sid: str) -> bytes:
    meta: dict[str, Any] = {"checkpoint_id": cid, "session_id": sid, "created_at": "2026-11-10T09:10:00.123456789Z",
                            "agent": "Claude Code", "files_touched": ["app.py"]}
    r = rnd.random()
    if r < 0.1:
        return bytes(rnd.randrange(256) for _ in range(rnd.randint(0, 40)))
    if r < 0.15:
        return b"[1, 2, 3]"
    for _ in range(rnd.randint(0, 3)):
        k = rnd.choice(list(meta) + ["extra"])
        meta[k] = _weird(rnd)
    return orjson.dumps(meta)


def _fast_import(repo: GitRepo, stream: bytes) -> None:
    subprocess.run(["git", "fast-import", "--quiet", "--force"], cwd=repo.path, env=git_env(), input=stream,
                   check=True, capture_output=True)


def _transcript(tmp: Path) -> tuple[GitRepo, list[bytes], str]:
    repo = GitRepo.init(tmp / "app")
    repo.write("app.py", "x = 1\n")
    repo.commit("start", T0)
    sid = "4a1f6c2e-7b3d-4e8a-9c0f-1d2e3f4a5b6c"
    w = ClaudeWriter(tmp / "h" / ".claude", repo.path, sid, T0 + timedelta(minutes=1))
    w.prompt("add y")
    w.edit(repo.path / "app.py", "x = 1\n", "x = 1\ny = compute_the_value(x)\n")
    w.bash("git commit -am y", stdout="[main 1234567] y\n 1 file changed")
    w.prompt("add z")
    w.edit(repo.path / "app.py", "y = compute_the_value(x)\n", "y = compute_the_value(x)\nz = y + offset_of(x)\n")
    repo.commit("y and z", T0 + timedelta(minutes=5))
    return repo, [ln for ln in w.path.read_bytes().split(b"\n") if ln], sid


def _session_files(rnd: random.Random, s: FastImport, prefix: str, lines: list[bytes], ctx: MutationContext,
                   cid: str, sid: str) -> list[tuple[str, str, int | str]]:
    files: list[tuple[str, str, int | str]] = []
    data = b"\n".join(mutate_stream(lines, rnd, ctx, n_ops=rnd.randint(0, 5))) + b"\n"
    if rnd.random() < 0.05:
        data = b"{\n  \"sessionId\": \"x\",\n  \"messages\": [" + data[:200]  # a broken JSON document
    r = rnd.random()
    if r < 0.2 and len(data) > 10:  # chunks, split anywhere (Entire splits by size, mid-line too)
        cuts = sorted(rnd.sample(range(1, len(data)), min(3, len(data) - 1)))
        for n, (a, b) in enumerate(zip([0, *cuts], [*cuts, len(data)], strict=True)):
            name = "full.jsonl" if n == 0 else rnd.choice([f"full.jsonl.{n:03d}", f"full.jsonl.{n}", "full.jsonl.x"])
            files.append(("100644", f"{prefix}/{name}", s.blob(data[a:b])))
    elif r < 0.25:
        files.append(("120000", f"{prefix}/full.jsonl", s.blob(b"../../outside")))  # a symlink
    elif r < 0.28:
        files.append(("160000", f"{prefix}/full.jsonl", "1" * 40))  # a submodule entry: no object
    elif r < 0.3:
        files.append(("100644", f"{prefix}/full.jsonl/inner", s.blob(data)))  # a folder named like the file
    else:
        files.append(("100755" if rnd.random() < 0.05 else "100644", f"{prefix}/full.jsonl", s.blob(data)))
    if rnd.random() < 0.9:
        files.append(("100644", f"{prefix}/metadata.json", s.blob(_meta(rnd, cid, sid))))
    return files


@pytest.mark.slow
def test_fuzz_entire_checkpoints(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    rnd = random.Random(24)
    repo, lines, sid = _transcript(tmp_path)
    ctx = MutationContext(types=["user", "assistant", "progress", "summary"], ids=[sid, "other"], pool=lines, big=64 << 10)
    s = FastImport()
    branch: list[tuple[str, str, int | str]] = []
    when = 1_794_000_000
    for k in range(N):
        cid = f"{rnd.getrandbits(48):012x}"
        session = sid if rnd.random() < 0.6 else rnd.choice([f"{rnd.getrandbits(32):08x}-0000-4000-8000-000000000000",
                                                              str(_weird(rnd))])
        layout = rnd.random()
        if layout < 0.5:  # one ref per checkpoint, folder at the root (or sharded, or nonsense)
            prefix = rnd.choice(["", "", f"{cid[:2]}/{cid[2:]}/", "zz/", "0/0/"])
            files = []
            for n in range(rnd.randint(1, 3)):
                sub = rnd.choice([str(n), str(n), "a", "01"])
                files += _session_files(rnd, s, f"{prefix}{sub}", lines, ctx, cid, session)
            if rnd.random() < 0.8:
                files.append(("100644", f"{prefix}metadata.json", s.blob(_meta(rnd, cid, session))))
            name = cid if rnd.random() < 0.9 else rnd.choice(["not-hex", cid.upper(), cid + "0"])
            s.commit(f"refs/entire/checkpoints/{name}", files, when + k)
        else:  # the branch: each checkpoint adds its folder
            folder = f"{cid[:2]}/{cid[2:]}" if rnd.random() < 0.9 else rnd.choice([cid[:2], f"{cid[:3]}/{cid[3:]}"])
            branch += _session_files(rnd, s, f"{folder}/{rnd.choice(['0', '1', '0'])}", lines, ctx, cid, session)
            if rnd.random() < 0.1:
                branch.append(("100644", f"{cid[:2]}", s.blob(b"a file where a shard was")))
            s.commit("refs/heads/entire/checkpoints/v1", list(branch), when + k)
            branch = []  # fast-import commits on a branch build on its previous tree
    _fast_import(repo, s.stream())
    # The reader's pure parts on random bytes.
    for _ in range(N * 5):
        raw = bytes(rnd.randrange(256) for _ in range(rnd.randint(0, 80)))
        parse_tree(raw)
        cp.is_document(raw)
    cp.checkpoint_refs([(f"refs/{rnd.choice(['entire/checkpoints/', 'remotes/o/entire/checkpoints/', 'heads/'])}"
                         f"{rnd.getrandbits(48):012x}", "0" * 40) for _ in range(50)])

    before = git_dir_files(repo.path / ".git")
    rc, out, err = run_cli("index", str(repo.path))
    assert rc == 0, (out, err)
    db = sqlite3.connect(Path(os.environ["HANSARD_HOME"]) / "hansard.db")
    first = db.execute("SELECT path, generation, last_scanned FROM sources WHERE path LIKE 'git:%' ORDER BY path").fetchall()
    assert first, "no session was read at all"
    # The campaign reached both sides: transcripts read as sessions, and copies read as nothing.
    assert db.execute("SELECT COUNT(*) FROM sessions").fetchone()[0] >= 2
    assert db.execute("SELECT COUNT(*) FROM sources WHERE path LIKE 'git:%' AND provider IS NULL").fetchone()[0] >= 1
    rc, out, err = run_cli("index", str(repo.path))
    assert rc == 0, (out, err)
    again = db.execute("SELECT path, generation, last_scanned FROM sources WHERE path LIKE 'git:%' ORDER BY path").fetchall()
    assert again == first  # nothing read twice
    assert git_dir_files(repo.path / ".git") == before
    monkeypatch.chdir(repo.path)
    rc, out, err = run_cli("why", "app.py", "--json")
    assert rc == 0, (out, err)
    assert json.loads(out)["lines"]
    assert run_cli("reindex")[0] == 0
