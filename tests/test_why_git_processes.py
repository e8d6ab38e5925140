"""How many git processes one `why` starts does not grow with the repository's history.

The repository: a session wrote 500 commits (over 25 files), one Edit and one ``git commit`` each, whose shell
output names each commit (``[main abc1234] change 7``); then all 500 were rebased onto a new
root, so every printed id names a commit that is no longer in the history (git still has the
objects). Each commit adds a distinctive line and the same common line (``if err != nil {``),
so attribution needs the commits' sessions (ties from shell output, followed by patch-id).

git runs through a counting wrapper on PATH that hands every call to the real git: the count is
of real processes of a real `why`, in a fresh process as an editor starts it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

from fixtures_repos.writers import ClaudeWriter, Clock
from tests.helpers import git_subcommand, logging_git

COMMITS = 500
FILES = 25  # each commit changes one of them: 20 commits blamed in a file
# blame, the file's log, HEAD, the revision's facts and a few batched reads; never per commit
MAX_GIT_PROCESSES = 12
SESSION = "5f0c8a52-2b1e-4c7e-9a3d-6f1b0e2d4c11"
ROOT = Path(__file__).resolve().parents[1]


def _fast_import(repo: Path, stream: bytes) -> None:
    subprocess.run(["git", "fast-import", "--quiet", "--export-marks=" + str(repo / ".git" / "marks")],
                   cwd=repo, input=stream, check=True)


def _commit(ref: str, mark: int, parent: int | None, t_author: int, t_commit: int, msg: str,
            files: dict[str, str]) -> bytes:
    head = (f"commit {ref}\nmark :{mark}\n"
            f"author Ada <ada@example.com> {t_author} +0000\ncommitter Ada <ada@example.com> {t_commit} +0000\n"
            f"data {len(msg.encode())}\n{msg}\n" + (f"from :{parent}\n" if parent is not None else ""))
    out = [head.encode()]
    for path, text in files.items():
        data = text.encode()
        out.append(f"M 100644 inline {path}\ndata {len(data)}\n".encode() + data + b"\n")
    return b"".join(out)


def build(tmp: Path) -> tuple[Path, dict[str, str]]:
    repo = tmp / "repo"
    home = tmp / "home"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True)
    clock = Clock(datetime(2026, 5, 4, 9, 0, tzinfo=UTC))
    w = ClaudeWriter(home / ".claude", repo, SESSION, clock)
    for f in range(FILES):
        (repo / f"f{f:02d}.go").write_text("package app\n\nfunc run() error {\n\treturn nil\n}\n")
    w.prompt("add the 500 checks, one commit each")
    versions: list[tuple[int, dict[str, str]]] = []
    for i in range(COMMITS):
        anchor = "\treturn nil\n}\n"
        w.edit(repo / f"f{i % FILES:02d}.go", anchor,
               f"\terr_{i} := check_value_{i}(ctx, {i * 7})\n\tif err != nil {{\n\t\treturn err_{i}\n\t}}\n{anchor}")
        versions.append((int(clock.now().timestamp()) + 2,
                         {f"f{f:02d}.go": (repo / f"f{f:02d}.go").read_text() for f in range(FILES)}))
        clock.advance(5)
    base = 1_000_000
    _fast_import(repo, b"".join(_commit("refs/heads/orig", k + 1, k if k else None, t, t, f"change {k}", files)
                                for k, (t, files) in enumerate(versions)))
    marks = dict(line.split() for line in (repo / ".git" / "marks").read_text().splitlines())
    shas = [marks[f":{k + 1}"] for k in range(COMMITS)]
    # the agent's shell printed each commit as it made it
    w2 = ClaudeWriter(home / ".claude", repo, SESSION, clock)
    for k, sha in enumerate(shas):
        w2.bash(f"git commit -am 'change {k}'", stdout=f"[main {sha[:7]}] change {k}\n 1 file changed, 4 insertions(+)\n")
    # rebased onto a new root: same changes, new ids, committer time a day later
    t_rebase = versions[-1][0] + 86_400
    stream = [_commit("refs/heads/main", base, None, t_rebase, t_rebase, "new root", {"README": "hello\n"})]
    prev = base
    for k, (t, files) in enumerate(versions):
        stream.append(_commit("refs/heads/main", base + k + 1, prev, t, t_rebase + k + 1, f"change {k}",
                              {"README": "hello\n", **files}))
        prev = base + k + 1
    _fast_import(repo, b"".join(stream))
    subprocess.run(["git", "branch", "-q", "-D", "orig"], cwd=repo, check=True)
    subprocess.run(["git", "checkout", "-q", "-f", "main"], cwd=repo, check=True)
    env = {"CLAUDE_CONFIG_DIR": str(home / ".claude")}
    return repo, env


def hansard(args: list[str], cwd: Path, env: dict[str, str]) -> str:
    proc = subprocess.run([sys.executable, "-m", "hansard", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_one_why_starts_a_bounded_number_of_git_processes(tmp_path):
    repo, agent_env = build(tmp_path)
    env = {**os.environ, **agent_env, "PYTHONPATH": str(ROOT)}
    hansard(["index"], repo, env)
    bindir, log = logging_git(tmp_path)
    env["PATH"] = f"{bindir}{os.pathsep}{env['PATH']}"
    # after the index (facts kept), then after a new commit (HEAD moved: `why` keeps them anew)
    for target in ("f07.go", "f07.go:43", "new commit", "f07.go:43"):
        if target == "new commit":
            (repo / "README").write_text("hello again\n")
            subprocess.run(["git", "commit", "-qam", "readme"], cwd=repo, check=True)
            continue
        log.unlink(missing_ok=True)
        doc = json.loads(hansard(["why", target, "--json", "--no-cache", "--no-sync"], repo, env))
        calls = [git_subcommand(c) for c in (log.read_text().splitlines() if log.exists() else [])]
        assert len(calls) <= MAX_GIT_PROCESSES, f"{target}: {len(calls)} git processes: {Counter(calls)}"
        agent = [ln for ln in doc["lines"] if ln["kind"] == "agent"]
        assert agent and all(ln["session_id"] == SESSION for ln in agent)
    # the whole file: every distinctive line the session wrote is its own
    whole = json.loads(hansard(["why", "f07.go", "--json", "--no-cache", "--no-sync"], repo, env))
    distinct = [ln for ln in whole["lines"] if "check_value_" in ln["content"]]
    assert len(distinct) == COMMITS // FILES and all(ln["kind"] == "agent" for ln in distinct)
