"""Benchmark reading agent trailers and qwen-code notes on a repository with 10,000 commits,
each with agent trailers and a qwen-code attribution note (``refs/notes/ai-attribution``).

    python scripts/bench_recorded.py [--commits 10000] [--files 50] [--runs 5] [--dir DIR]

Builds (git fast-import, fixed dates) a history of ``--commits`` commits, each adding one line
to one of ``--files`` files, with ``Co-authored-by:`` / ``Claude-Session:`` trailers (agents in
turn, every fifth commit a person's co-author only) and one qwen-code note per commit. In
alternation, ``--runs`` times each:

  * the link step's one `git log` of the whole history, without the trailer placeholder (the
    format before issue 24) and with it (``hansard.git.history.commit_log``, parsed);
  * `git blame -w -M -C --porcelain FILE` (the blame `why` runs);
  * `hansard why FILE --json --no-cache` with the notes, and with ``refs/notes/ai-attribution``
    moved away (what reading the notes adds; the trailers come from the file's own log).

Also times one `hansard index REPO` (fresh store) and a second one (nothing new). Prints
medians and ratios. Never run in CI; never asserts a time.
"""

from __future__ import annotations

import argparse
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
TRAILERS = ["Co-Authored-By: Claude Opus 4.8 <noreply@anthropic.com>\nClaude-Session: https://claude.ai/code/session_01{:022d}",
            "Co-authored-by: Cursor Agent <cursoragent@cursor.com>",
            "Co-authored-by: Codex <noreply@openai.com>",
            "Co-authored-by: Qwen-Coder <qwen-coder@alibabacloud.com>",
            "Co-authored-by: Dana Smith <dana@example.com>"]


def _env() -> dict[str, str]:
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    from fixtures_repos.gitrepo import git_env

    return git_env()


def build(root: Path, commits: int, files: int) -> Path:
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
        msg = f"step {i}\n\nWhy this step.\n\n{TRAILERS[i % len(TRAILERS)].format(i)}\n".encode()
        parts.append(b"commit refs/heads/main\nmark :%d\ncommitter Dana <dana@example.com> %d +0000\ndata %d\n%s\n"
                     % (mark, EPOCH + 60 * i, len(msg), msg))
        parts.append(b"M 100644 inline src/file_%02d.py\ndata %d\n%s\n\n" % (f, len(data), data))
        line = len(contents[f][-1]) + 1
        note = {"version": 1, "generator": "Qwen-Coder",
                "files": {f"src/file_{f:02d}.py": {"aiChars": line if i % 3 else 0, "humanChars": 0 if i % 3 else line,
                                                    "percent": 100 if i % 3 else 0, "surface": "cli"}},
                "summary": {"aiPercent": 100 if i % 3 else 0, "aiChars": line, "humanChars": 0, "totalFilesTouched": 1,
                            "surfaces": ["cli"]},
                "surfaceBreakdown": {"cli": {"aiChars": line, "percent": 100}}, "excludedGenerated": [], "promptCount": 1}
        notes.append((mark, json.dumps(note).encode()))
    msg = b"Notes added by 'git notes add'"
    parts.append(b"commit refs/notes/ai-attribution\ncommitter Dana <dana@example.com> %d +0000\ndata %d\n%s\n"
                 % (EPOCH + 60 * commits, len(msg), msg))
    for mark, note in notes:
        parts.append(b"N inline :%d\ndata %d\n%s\n" % (mark, len(note), note))
    parts.append(b"\ndone\n")
    subprocess.run(["git", "fast-import", "--quiet"], cwd=repo, env=_env(), input=b"".join(parts), check=True)
    subprocess.run(["git", "checkout", "-q", "main"], cwd=repo, env=_env(), check=True)
    (repo / ".git" / "bench-done").write_text("ok\n")
    return repo


def timed(cmd: list[str], cwd: Path, env: dict[str, str]) -> float:
    t = time.perf_counter()
    subprocess.run(cmd, cwd=cwd, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - t


def timed_call(fn: Callable[..., object], *args: object) -> float:
    t = time.perf_counter()
    fn(*args)
    return time.perf_counter() - t


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--commits", type=int, default=10000)
    ap.add_argument("--files", type=int, default=50)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--dir", type=Path, default=Path(tempfile.gettempdir()) / "hansard-bench-recorded")
    a = ap.parse_args()
    a.dir.mkdir(parents=True, exist_ok=True)
    t = time.perf_counter()
    repo = build(a.dir, a.commits, a.files)
    built = time.perf_counter() - t
    home = a.dir / "home"
    shutil.rmtree(home, ignore_errors=True)
    env = dict(os.environ, HOME=str(home), HANSARD_HOME=str(home / "hansard"), XDG_DATA_HOME=str(home / "share"),
               CLAUDE_CONFIG_DIR=str(home / ".claude"), CODEX_HOME=str(home / ".codex"), GEMINI_CLI_HOME=str(home),
               CURSOR_HOME=str(home / ".cursor"), CURSOR_CONFIG_DIR=str(home / "cursor"),
               OPENCODE_DATA_DIR=str(home / "oc"), COPILOT_HOME=str(home / ".copilot"), PYTHONPATH=str(ROOT))
    hansard = [sys.executable, "-m", "hansard"]
    index_first = timed([*hansard, "index", str(repo), "--quiet"], repo, env)
    index_again = timed([*hansard, "index", str(repo), "--quiet"], repo, env)
    from hansard.git.history import commit_log
    from hansard.git.run import git

    top = str(repo)
    trailers: dict[str, str] = {}
    commit_log(top, "HEAD", trailers)
    path = "src/file_00.py"
    tip = subprocess.run(["git", "rev-parse", "refs/notes/ai-attribution"], cwd=repo, env=_env(), capture_output=True,
                         text=True, check=True).stdout.strip()
    doc = json.loads(subprocess.run([*hansard, "why", path, "--json", "--no-cache"], cwd=repo, env=env,
                                    capture_output=True, check=True).stdout)
    by: dict[str, int] = {}
    for ln in doc["lines"]:
        k = (ln.get("recorded") or {}).get("by", "none")
        by[k] = by.get(k, 0) + 1
    disagree = sum(1 for ln in doc["lines"] if ln.get("disagrees_with"))
    times: dict[str, list[float]] = {"log, old format": [], "log + trailers": [], "git blame": [],
                                     "why with notes": [], "why without notes": []}
    for _ in range(a.runs):
        times["log, old format"].append(timed_call(git, ["log", "--format=%x00%H%x1f%at%x1f%ct%x1f%s%x1f%B", "HEAD", "--"],
                                                   top))
        times["log + trailers"].append(timed_call(commit_log, top, "HEAD", {}))
        times["git blame"].append(timed(["git", "blame", "-w", "-M", "-C", "--porcelain", path], repo, _env()))
        times["why with notes"].append(timed([*hansard, "why", path, "--json", "--no-cache"], repo, env))
        subprocess.run(["git", "update-ref", "-d", "refs/notes/ai-attribution"], cwd=repo, env=_env(), check=True)
        try:
            times["why without notes"].append(timed([*hansard, "why", path, "--json", "--no-cache"], repo, env))
        finally:
            subprocess.run(["git", "update-ref", "refs/notes/ai-attribution", tip], cwd=repo, env=_env(), check=True)
    med = {k: statistics.median(v) for k, v in times.items()}
    print(f"{a.commits} commits with trailers and qwen-code notes, {a.files} files (built in {built:.1f} s);"
          f" {len(trailers)} commits with trailers read")
    print(f"  {path}: {len(doc['lines'])} lines, recorded by {by}, {disagree} disagreeing")
    print(f"  hansard index REPO: {index_first:.2f} s first, {index_again:.2f} s again")
    for k, v in med.items():
        print(f"  {k:20s} {v:7.3f} s (median of {a.runs})")
    print(f"  log + trailers / old log = {med['log + trailers'] / med['log, old format']:.2f}x;"
          f" why with notes / git blame = {med['why with notes'] / med['git blame']:.2f}x;"
          f" notes add {med['why with notes'] - med['why without notes']:+.3f} s")


if __name__ == "__main__":
    main()
