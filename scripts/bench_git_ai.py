"""Benchmark `hansard why` on a repository with 10,000 git-ai notes against `git blame`.

    python scripts/bench_git_ai.py [--commits 10000] [--files 50] [--runs 5] [--dir DIR]

Builds (git fast-import, fixed dates) a history of ``--commits`` commits, each adding one line
to one of ``--files`` files, and one git-ai authorship note (``refs/notes/ai``,
authorship/3.0.0) per commit naming the line it added. A file's blame then spans
commits/files commits, each with a note. In alternation, ``--runs`` times each:

  * `git blame -w -M -C --porcelain FILE` (the blame `why` runs)
  * `hansard why FILE --json --no-cache` with the notes (one cat-file batch for the blamed commits' notes)
  * the same with ``refs/notes/ai`` moved away (what reading the notes adds)

Prints medians and ratios. Never run in CI; never asserts a time.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EPOCH = 1_780_000_000


def _env() -> dict[str, str]:
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    from fixtures_repos.gitrepo import git_env

    return git_env()


def build_notes_repo(root: Path, commits: int, files: int, notes_ref: str, message: Callable[[int], str],
                     note: Callable[[int, int, list[str]], bytes]) -> Path:
    """The history of the module docstring under ``root`` (reused when already built): commit i
    has ``message(i)`` and a note on ``notes_ref`` of ``note(i, file index, the file's lines)``."""
    repo = root / f"repo-{commits}-{files}"
    if (repo / ".git" / "bench-done").exists():
        return repo
    shutil.rmtree(repo, ignore_errors=True)
    repo.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=repo, env=_env(), check=True)
    contents: list[list[str]] = [[] for _ in range(files)]
    parts: list[bytes] = []
    notes: list[tuple[int, bytes]] = []
    for i in range(commits):
        f = i % files
        contents[f].append(f"value_{i} = compute_value({i}, offset={i * 7 % 1000})  # step {i}")
        data = ("\n".join(contents[f]) + "\n").encode()
        mark = i + 1
        msg = message(i).encode()
        parts.append(b"commit refs/heads/main\nmark :%d\ncommitter Dana <dana@example.com> %d +0000\ndata %d\n%s\n"
                     % (mark, EPOCH + 60 * i, len(msg), msg))
        parts.append(b"M 100644 inline src/file_%02d.py\ndata %d\n%s\n\n" % (f, len(data), data))
        notes.append((mark, note(i, f, contents[f])))
    msg = b"Notes added by 'git notes add'"
    parts.append(b"commit %s\ncommitter Dana <dana@example.com> %d +0000\ndata %d\n%s\n"
                 % (notes_ref.encode(), EPOCH + 60 * commits, len(msg), msg))
    for mark, body in notes:
        parts.append(b"N inline :%d\ndata %d\n%s\n" % (mark, len(body), body))
    parts.append(b"\ndone\n")
    subprocess.run(["git", "fast-import", "--quiet"], cwd=repo, env=_env(), input=b"".join(parts), check=True)
    subprocess.run(["git", "checkout", "-q", "main"], cwd=repo, env=_env(), check=True)
    (repo / ".git" / "bench-done").write_text("ok\n")
    return repo


def _git_ai_note(i: int, f: int, lines: list[str]) -> bytes:
    conv = f"{i:08x}-0000-4000-8000-{i:012x}"
    h = hashlib.sha256(f"claude-code:{conv}".encode()).hexdigest()[:16]
    meta = {"schema_version": "authorship/3.0.0", "base_commit_sha": "0" * 40,
            "prompts": {h: {"agent_id": {"tool": "claude", "id": conv, "model": "claude-opus-4-7"},
                            "messages": [], "total_additions": 1, "total_deletions": 0,
                            "accepted_lines": 1, "overriden_lines": 0}}}
    return f"src/file_{f:02d}.py\n  {h} {len(lines)}\n---\n{json.dumps(meta)}".encode()


def build(root: Path, commits: int, files: int) -> Path:
    return build_notes_repo(root, commits, files, "refs/notes/ai", lambda i: f"step {i}", _git_ai_note)


def timed(cmd: list[str], cwd: Path, env: dict[str, str]) -> float:
    t = time.perf_counter()
    subprocess.run(cmd, cwd=cwd, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - t


def hansard_env(home: Path) -> dict[str, str]:
    """This environment with every agent's home (and hansard's) in a fresh ``home``."""
    shutil.rmtree(home, ignore_errors=True)
    return dict(os.environ, HOME=str(home), HANSARD_HOME=str(home / "hansard"), XDG_DATA_HOME=str(home / "share"),
                CLAUDE_CONFIG_DIR=str(home / ".claude"), CODEX_HOME=str(home / ".codex"), GEMINI_CLI_HOME=str(home),
                CURSOR_HOME=str(home / ".cursor"), CURSOR_CONFIG_DIR=str(home / "cursor"),
                OPENCODE_DATA_DIR=str(home / "oc"), COPILOT_HOME=str(home / ".copilot"), PYTHONPATH=str(ROOT))


def time_blame_and_why(times: dict[str, list[float]], repo: Path, path: str, env: dict[str, str], notes_ref: str,
                       notes_tip: str) -> None:
    """One run each of git blame, `hansard why` with the notes and with ``notes_ref`` moved away
    (put back after)."""
    hansard = [sys.executable, "-m", "hansard"]
    times["git blame"].append(timed(["git", "blame", "-w", "-M", "-C", "--porcelain", path], repo, _env()))
    times["why with notes"].append(timed([*hansard, "why", path, "--json", "--no-cache"], repo, env))
    subprocess.run(["git", "update-ref", "-d", notes_ref], cwd=repo, env=_env(), check=True)
    try:
        times["why without notes"].append(timed([*hansard, "why", path, "--json", "--no-cache"], repo, env))
    finally:
        subprocess.run(["git", "update-ref", notes_ref, notes_tip], cwd=repo, env=_env(), check=True)


def setup(doc: str, name: str, build: Callable[[Path, int, int], Path]) -> tuple[argparse.Namespace, Path, float, dict[str, str]]:
    """The options (--commits, --files, --runs, --dir, by default the temporary folder's ``name``),
    the history ``build`` made there (or found), the seconds that took, and the environment to
    run hansard in (fresh agents' homes under --dir)."""
    ap = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    ap.add_argument("--commits", type=int, default=10000)
    ap.add_argument("--files", type=int, default=50)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--dir", type=Path, default=Path(tempfile.gettempdir()) / name)
    a = ap.parse_args()
    a.dir.mkdir(parents=True, exist_ok=True)
    t = time.perf_counter()
    repo = build(a.dir, a.commits, a.files)
    return a, repo, time.perf_counter() - t, hansard_env(a.dir / "home")


def main() -> None:
    a, repo, built, env = setup(__doc__, "hansard-bench-git-ai", build)
    hansard = [sys.executable, "-m", "hansard"]
    subprocess.run([*hansard, "index", "--quiet"], cwd=repo, env=env, check=True)
    path = "src/file_00.py"
    notes_tip = subprocess.run(["git", "rev-parse", "refs/notes/ai"], cwd=repo, env=_env(), capture_output=True,
                               text=True, check=True).stdout.strip()
    out = subprocess.run([*hansard, "why", path, "--json", "--no-cache"], cwd=repo, env=env, capture_output=True,
                         check=True).stdout
    doc = json.loads(out)
    recorded = sum(1 for ln in doc["lines"] if ln.get("recorded", {}).get("kind") == "agent")
    times: dict[str, list[float]] = {"git blame": [], "why with notes": [], "why without notes": []}
    for _ in range(a.runs):
        time_blame_and_why(times, repo, path, env, "refs/notes/ai", notes_tip)
    med = {k: statistics.median(v) for k, v in times.items()}
    print(f"{a.commits} commits and notes, {a.files} files; {path}: {len(doc['lines'])} lines, {recorded} with a"
          f" recorded agent (corpus built in {built:.1f} s)")
    for k, v in med.items():
        print(f"  {k:20s} {v:7.3f} s (median of {a.runs})")
    print(f"  why with notes / git blame = {med['why with notes'] / med['git blame']:.2f}x;"
          f" notes add {med['why with notes'] - med['why without notes']:+.3f} s")


if __name__ == "__main__":
    main()
