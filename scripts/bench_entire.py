"""Benchmark indexing Entire checkpoints kept in git against git reading the same refs.

    python scripts/bench_entire.py [--checkpoints 1000] [--per-session 4] [--layout branch|ref|both] [--dir DIR]

Builds (with git fast-import, fixed dates, the same bytes every run) a repository whose only
sessions are on Entire checkpoint refs: ``--checkpoints`` checkpoints, each keeping one Claude
Code session (written by fixtures_repos.writers.ClaudeWriter, the real format), every session
kept in ``--per-session`` consecutive checkpoints as Entire's newer versions keep it (the whole
transcript so far each time), and one commit on main per checkpoint with its
``Entire-Checkpoint:`` trailer. Layout ``branch``: the branch ``entire/checkpoints/v1``;
``ref``: one ``refs/entire/checkpoints/<id>`` per checkpoint.

Then, in a fresh store each:

  * first index:   `hansard index REPO` (read every checkpoint, parse, link, join trailers)
  * again:         the same, nothing changed (one `git for-each-ref` and the identity)
  * one more:      after one more checkpoint (the store's tips changed)

against the baselines, on the same refs:

  * `git log --format=%H%x00%B <refs>` (the commits alone), and
  * `git log -p --format=%H <refs>` (every transcript blob's text, as diffs),

hansard's fixed cost, `hansard index` of an empty folder in the same store, and hansard indexing
the same sessions (each one's whole transcript) as files in a Claude Code home.

Prints seconds and ratios. Never run in CI; never asserts a time.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

T0 = datetime(2026, 5, 28, 9, 0, 0)
EPOCH = 1_780_000_000


def _env() -> dict[str, str]:
    from fixtures_repos.gitrepo import git_env

    return git_env()


def build(root: Path, checkpoints: int, per_session: int, layout: str) -> Path:
    """The repository (see the module docstring); reused when already built."""
    from fixtures_repos.fastimport import FastImport
    from fixtures_repos.writers import ClaudeWriter

    repo = root / f"repo-{layout}-{checkpoints}-{per_session}"
    if (repo / ".git" / "bench-done").exists():
        return repo
    shutil.rmtree(repo, ignore_errors=True)
    repo.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=repo, env=_env(), check=True)
    scratch = Path(tempfile.mkdtemp(prefix="bench-entire-"))
    s = FastImport()
    try:
        sessions = (checkpoints + per_session - 1) // per_session
        n = 0
        for j in range(sessions):
            sid = f"{j:08x}-0000-4000-8000-{j:012x}"
            f = scratch / "work" / "src" / f"mod_{j % 50}.py"
            f.parent.mkdir(parents=True, exist_ok=True)
            if not f.exists():
                f.write_text(f"def start_{j % 50}():\n    return None\n")
            w = ClaudeWriter(repo / ".git" / "bench-home" / ".claude", scratch / "work", sid,
                             T0 + timedelta(minutes=3 * j))
            for k in range(per_session):
                if n >= checkpoints:
                    break
                w.prompt(f"step {k} of task {j}: add the computation of value {k}")
                marker = "    return None\n"
                text = f.read_text()
                anchor = marker if marker in text else text.splitlines(keepends=True)[-1]
                w.edit(f, anchor, f"    value_{j}_{k} = compute_value({j}, {k}, offset={n})\n" + anchor)
                w.say(f"Added value_{j}_{k}.")
                cid = f"{(n * 2654435761) & 0xFFFFFFFFFFFF:012x}"
                when = EPOCH + 60 * n
                copy = s.blob(w.path.read_bytes())
                meta = s.blob((f'{{"checkpoint_id": "{cid}", "session_id": "{sid}", "created_at": '
                               f'"{datetime.fromtimestamp(when, UTC):%Y-%m-%dT%H:%M:%S}Z", "agent": "Claude Code",'
                               f' "files_touched": ["src/{f.name}"]}}').encode())
                cmeta = s.blob(f'{{"checkpoint_id": "{cid}", "sessions": [{{"transcript": "/0/full.jsonl"}}]}}'.encode())
                prefix = f"{cid[:2]}/{cid[2:]}/" if layout == "branch" else ""
                ref = "refs/heads/entire/checkpoints/v1" if layout == "branch" else f"refs/entire/checkpoints/{cid}"
                s.commit(ref, [("100644", f"{prefix}0/full.jsonl", copy), ("100644", f"{prefix}0/metadata.json", meta),
                               ("100644", f"{prefix}metadata.json", cmeta)], when, f"Checkpoint: {cid}\n")
                code = s.blob(f.read_bytes())
                s.commit("refs/heads/main", [("100644", f"src/{f.name}", code)], when,
                         f"Add value_{j}_{k}\n\nEntire-Checkpoint: {cid}\n", "Dana <dana@example.com>")
                n += 1
        subprocess.run(["git", "fast-import", "--quiet"], cwd=repo, env=_env(), input=s.stream(),
                       check=True)
        subprocess.run(["git", "checkout", "-q", "main"], cwd=repo, env=_env(), check=True)
        (repo / ".git" / "bench-done").write_text("ok\n")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return repo


def add_one(repo: Path, layout: str) -> None:
    """One more checkpoint (a copy of the last session's transcript with one more line)."""
    from fixtures_repos.fastimport import FastImport

    if layout == "branch":
        ref = "refs/heads/entire/checkpoints/v1"
        tip = subprocess.run(["git", "rev-parse", ref], cwd=repo, env=_env(), capture_output=True, text=True).stdout.strip()
        path = subprocess.run(["git", "ls-tree", "-r", "--name-only", tip], cwd=repo, env=_env(), capture_output=True,
                              text=True).stdout.split()[0]
        data = subprocess.run(["git", "show", f"{tip}:{path}"], cwd=repo, env=_env(), capture_output=True).stdout
        s = FastImport()
        m = s.blob(data)
        s.commit(ref, [("100644", "ff/ffffffffff/0/full.jsonl", m)], EPOCH + 10**6, "Checkpoint: ffffffffffff\n", "E <e@x>",
                 parent=tip)
    else:
        first = subprocess.run(["git", "for-each-ref", "--format=%(refname)", "refs/entire/checkpoints/"], cwd=repo,
                               env=_env(), capture_output=True, text=True).stdout.split()[0]
        data = subprocess.run(["git", "show", f"{first}:0/full.jsonl"], cwd=repo, env=_env(), capture_output=True).stdout
        s = FastImport()
        m = s.blob(data)
        s.commit("refs/entire/checkpoints/ffffffffffff", [("100644", "0/full.jsonl", m)], EPOCH + 10**6,
                 "Checkpoint: ffffffffffff\n", "E <e@x>")
    subprocess.run(["git", "fast-import", "--quiet"], cwd=repo, env=_env(), input=s.stream(),
                   check=True)


def timed(cmd: list[str], cwd: Path, env: dict[str, str]) -> float:
    t = time.perf_counter()
    subprocess.run(cmd, cwd=cwd, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - t


def bench(repo: Path, layout: str, work: Path) -> dict[str, float]:
    env = dict(os.environ)
    home = work / f"home-{layout}"
    shutil.rmtree(home, ignore_errors=True)
    for var, sub in {"HOME": "", "HANSARD_HOME": "hansard", "XDG_DATA_HOME": ".local/share",
                     "CLAUDE_CONFIG_DIR": ".claude", "CODEX_HOME": ".codex", "GEMINI_CLI_HOME": ".gemini",
                     "CURSOR_HOME": ".cursor", "CURSOR_CONFIG_DIR": "cursor", "OPENCODE_DATA_DIR": "opencode",
                     "COPILOT_HOME": ".copilot"}.items():
        env[var] = str(home / sub) if sub else str(home)
    env["PYTHONPATH"] = str(ROOT)
    hansard = [sys.executable, "-m", "hansard"]
    pattern = "refs/heads/entire/" if layout == "branch" else "refs/entire/"
    refs = subprocess.run(["git", "for-each-ref", "--format=%(refname)", pattern], cwd=repo, env=_env(),
                          capture_output=True, text=True).stdout.split()
    out: dict[str, float] = {}
    # git reads the same refs (refs passed on stdin: a thousand of them would not fit argv on every system).
    out["git log"] = _log(repo, refs, ["--format=%H%x00%B"])
    out["git log -p"] = _log(repo, refs, ["-p", "--format=%H"])
    empty = work / "empty"
    empty.mkdir(exist_ok=True)
    out["index of nothing"] = timed([*hansard, "index", "--quiet", str(empty)], repo, env)  # the fixed cost
    # The same sessions (each one's whole transcript) as files in an agent home, in a store of their own.
    files_env = dict(env, HANSARD_HOME=str(home / "files-store"), CLAUDE_CONFIG_DIR=str(repo / ".git" / "bench-home" / ".claude"))
    out["same sessions as files"] = timed([*hansard, "index", "--quiet"], repo, files_env)
    out["first index"] = timed([*hansard, "index", "--quiet", str(repo)], repo, env)
    out["again"] = timed([*hansard, "index", "--quiet", str(repo)], repo, env)
    add_one(repo, layout)
    out["one more"] = timed([*hansard, "index", "--quiet", str(repo)], repo, env)
    import sqlite3

    db = sqlite3.connect(home / "hansard" / "hansard.db")
    out["sessions"] = db.execute("SELECT COUNT(*) FROM sessions").fetchone()[0]
    out["edits"] = db.execute("SELECT COUNT(*) FROM edits").fetchone()[0]
    out["trailer ties"] = db.execute("SELECT COUNT(*) FROM commit_ties WHERE rule='trailer'").fetchone()[0]
    out["archive MB"] = round((home / "hansard" / "hansard.db").stat().st_size / 1e6, 1)
    db.close()
    return out


def _log(repo: Path, refs: list[str], args: list[str]) -> float:
    t = time.perf_counter()
    subprocess.run(["git", "log", *args, "--stdin"], cwd=repo, env=_env(), input="\n".join(refs).encode(),
                   check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - t


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--checkpoints", type=int, default=1000)
    ap.add_argument("--per-session", type=int, default=4)
    ap.add_argument("--layout", choices=("branch", "ref", "both"), default="both")
    ap.add_argument("--dir", type=Path, default=Path(tempfile.gettempdir()) / "hansard-bench-entire")
    a = ap.parse_args()
    a.dir.mkdir(parents=True, exist_ok=True)
    for layout in ("branch", "ref") if a.layout == "both" else (a.layout,):
        t = time.perf_counter()
        repo = build(a.dir, a.checkpoints, a.per_session, layout)
        built = time.perf_counter() - t
        r = bench(repo, layout, a.dir)
        print(f"{layout}: {a.checkpoints} checkpoints, {r['sessions']} sessions, {r['edits']} edits, "
              f"{r['trailer ties']} trailer ties, store {r['archive MB']} MB (corpus built in {built:.1f} s)")
        for k in ("git log", "git log -p", "index of nothing", "same sessions as files", "first index", "again",
                  "one more"):
            print(f"  {k:24s} {r[k]:8.3f} s")
        print(f"  first index / same sessions as files = {r['first index'] / r['same sessions as files']:.2f}x;"
              f" first index / git log -p = {r['first index'] / r['git log -p']:.1f}x;"
              f" again / git log = {r['again'] / r['git log']:.1f}x;"
              f" one more / git log = {r['one more'] / r['git log']:.1f}x;"
              f" again - index of nothing = {r['again'] - r['index of nothing']:+.3f} s")
        # Reading is shared: a second bench run of this layout must start from its own copy.
        shutil.rmtree(repo, ignore_errors=True)


if __name__ == "__main__":
    main()
