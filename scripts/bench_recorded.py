"""Benchmark reading agent trailers and qwen-code notes on a repository with 10,000 commits,
each with agent trailers and a qwen-code attribution note (``refs/notes/ai-attribution``).

    python scripts/bench_recorded.py [--commits 10000] [--files 50] [--runs 5] [--dir DIR]

Builds (git fast-import, fixed dates) a history of ``--commits`` commits, each adding one line
to one of ``--files`` files, with ``Co-authored-by:`` / ``Claude-Session:`` trailers (agents in
turn, every fifth commit a person's co-author only) and one qwen-code note per commit. In
alternation, ``--runs`` times each:

  * the link step's one `git log` of the whole history, without the trailer placeholder (the
    format before the recorders were read) and with it (``hansard.git.history.commit_log``, parsed);
  * `git blame -w -M -C --porcelain FILE` (the blame `why` runs);
  * `hansard why FILE --json --no-cache` with the notes, and with ``refs/notes/ai-attribution``
    moved away (what reading the notes adds; the trailers come from the file's own log).

Also times one `hansard index REPO` (fresh store) and a second one (nothing new). Prints
medians and ratios. Never run in CI; never asserts a time.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

# The corpus builder, the agents' homes and the blame / why timings are bench_git_ai's: the same
# history, with trailers in its messages and qwen-code notes instead of git-ai ones.
if str(Path(__file__).resolve().parent) not in sys.path:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_git_ai import _env, build_notes_repo, setup, time_blame_and_why, timed

TRAILERS = ["Co-Authored-By: Claude Opus 4.8 <noreply@anthropic.com>\nClaude-Session: https://claude.ai/code/session_01{:022d}",
            "Co-authored-by: Cursor Agent <cursoragent@cursor.com>",
            "Co-authored-by: Codex <noreply@openai.com>",
            "Co-authored-by: Qwen-Coder <qwen-coder@alibabacloud.com>",
            "Co-authored-by: Dana Smith <dana@example.com>"]


def _qwen_note(i: int, f: int, lines: list[str]) -> bytes:
    line = len(lines[-1]) + 1
    note = {"version": 1, "generator": "Qwen-Coder",
            "files": {f"src/file_{f:02d}.py": {"aiChars": line if i % 3 else 0, "humanChars": 0 if i % 3 else line,
                                                "percent": 100 if i % 3 else 0, "surface": "cli"}},
            "summary": {"aiPercent": 100 if i % 3 else 0, "aiChars": line, "humanChars": 0, "totalFilesTouched": 1,
                        "surfaces": ["cli"]},
            "surfaceBreakdown": {"cli": {"aiChars": line, "percent": 100}}, "excludedGenerated": [], "promptCount": 1}
    return json.dumps(note).encode()


def build(root: Path, commits: int, files: int) -> Path:
    return build_notes_repo(root, commits, files, "refs/notes/ai-attribution",
                            lambda i: f"step {i}\n\nWhy this step.\n\n{TRAILERS[i % len(TRAILERS)].format(i)}\n",
                            _qwen_note)


def timed_call(fn: Callable[..., object], *args: object) -> float:
    t = time.perf_counter()
    fn(*args)
    return time.perf_counter() - t


def main() -> None:
    a, repo, built, env = setup(__doc__, "hansard-bench-recorded", build)
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
        time_blame_and_why(times, repo, path, env, "refs/notes/ai-attribution", tip)
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
