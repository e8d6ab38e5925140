"""Benchmark `hansard review` (issue 35) beside its baseline, measured in the same run: `git blame
-w -M -C --porcelain` of every file the change adds lines to, at the range's head, one after
another as review answers them, plus one `git diff -U0 -M` of the range. Target: review <= 2x.

Two corpora:

- ``--real REPO --range A..B``: a real repository and a copy of its store (``--store``: a
  HANSARD_HOME folder, copied to a scratch folder first so the corpus is never written). The
  issue asks for a range of at least 20 commits and 30 files; the numbers in
  docs/performance.md come from /work/corpora/cli-clone (entireio/cli with its checkpoint
  branch, indexed as a new user would) and its store.
- ``--synthetic``: a 50-file, 2,000-line change on a branch of a generated repository, written
  by Claude Code sessions (fixtures_repos' writers) with a person's lines among them; with
  ``--history N``, N earlier commits of a person's on main (blame then reads a history).

Each review is a `hansard review RANGE --json` process, as a person runs it: ``first`` answers
every file afresh (``--no-cache``), ``kept`` asks again with the why answers the first run
kept. Runs alternate with the baseline (``--rounds`` each), and the medians are printed with
their ratios. With ``--code LABEL=PYTHON`` (more than once), each build (an interpreter whose
``hansard`` is that build) is measured in turn in every round, each with its own copy of the
store, beside the same baseline runs. Review answers files one at a time, and so does the
baseline. Never run in CI.
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
sys.path.insert(0, str(ROOT))

BLAME = ["git", "blame", "-w", "-M", "-C", "--porcelain"]
TARGET = 2.0


def timed(cmd: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, bytes]:
    t = time.perf_counter()
    out = subprocess.run(cmd, cwd=cwd, env=env, check=True, capture_output=True).stdout
    return time.perf_counter() - t, out


def baseline(repo: Path, env: dict[str, str], base: str, head: str, files: list[str]) -> float:
    """One `git diff` of the range and a blame of each changed file at its head, in turn."""
    t = time.perf_counter()
    subprocess.run(["git", "diff", "-U0", "-M", base, head, "--"], cwd=repo, env=env, check=True, capture_output=True)
    for rel in files:
        subprocess.run([*BLAME, head, "--", rel], cwd=repo, env=env, check=True, capture_output=True)
    return time.perf_counter() - t


def measure(repo: Path, env: dict[str, str], spec: str, rounds: int,
            codes: dict[str, tuple[list[str], dict[str, str]]] | None = None) -> dict[str, object]:
    """Medians of ``rounds`` rounds, each running every build's reviews (``codes``: label ->
    (its `hansard` command, its environment); default: this checkout's) and the baseline once."""
    codes = codes or {"this": ([sys.executable, "-m", "hansard"], env)}
    first: dict[str, list[float]] = {k: [] for k in codes}
    kept: dict[str, list[float]] = {k: [] for k in codes}
    base_s = []
    out = b""
    for _ in range(rounds):
        for label, (hansard, cenv) in codes.items():
            s, out = timed([*hansard, "review", spec, "--json", "--no-cache"], repo, cenv)
            first[label].append(s)
            s, _ = timed([*hansard, "review", spec, "--json"], repo, cenv)  # keeps what it answered
            s, _ = timed([*hansard, "review", spec, "--json"], repo, cenv)
            kept[label].append(s)
        r = json.loads(out)
        files = [f["path"] for f in r["files"] if not f.get("skipped")]
        base_s.append(baseline(repo, env, r["range"]["base"], r["range"]["head"], files))
    r = json.loads(out)
    b = statistics.median(base_s)
    res: dict[str, object] = {
        "range": r["range"]["spec"], "commits": r["range"]["commits"], "files": r["totals"]["files"],
        "lines": r["totals"]["lines"], "by_kind": {k: v for k, v in r["totals"]["by_kind"].items() if v},
        "sessions": len(r["sessions"]), "baseline_s": round(b, 3), "rounds": rounds}
    for label in codes:
        tag = "" if len(codes) == 1 else f"{label}_"
        f, k = statistics.median(first[label]), statistics.median(kept[label])
        res.update({f"{tag}first_s": round(f, 3), f"{tag}kept_s": round(k, 3), f"{tag}first_ratio": round(f / b, 2),
                    f"{tag}kept_ratio": round(k / b, 2)})
    return res


def _codes(specs: list[str], make_env: Callable[[str], dict[str, str]]) -> dict[str, tuple[list[str], dict[str, str]]]:
    """``LABEL=PYTHON`` -> (that build's `hansard` command, an environment from ``make_env(label)``
    without this checkout on the path: the interpreter finds its own build)."""
    out = {}
    for spec in specs:
        label, _, python = spec.partition("=")
        env = make_env(label)
        env.pop("PYTHONPATH", None)
        out[label] = ([python, "-m", "hansard"], env)
    return out


def real(repo: Path, store: Path, spec: str, rounds: int, codes: list[str]) -> dict[str, object]:
    scratch = Path(tempfile.mkdtemp(prefix="hansard-bench-review-"))
    try:
        def copy(label: str) -> dict[str, str]:
            shutil.copytree(store, scratch / label / "hansard", ignore=shutil.ignore_patterns("*.lock", "*-lock"))
            env = _env(scratch / label / "hansard", scratch / "homes")
            env["HANSARD_NO_BACKGROUND"] = "1"
            return env

        env = copy("this")
        return measure(repo, env, spec, rounds, _codes(codes, copy) if codes else None)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def synthetic(where: Path, rounds: int, history: int, codes: list[str]) -> dict[str, object]:
    """50 files on main with ``history`` earlier commits of a person's among them (a file's
    blame reads its history); a branch of 10 commits, each by a Claude Code session's edits
    to 5 files (36 lines each) and a person's 4 lines after them: 2,000 lines added."""
    from fixtures_repos.scenarios import Build

    b = Build("bench_review", where)
    r = b.init()
    for i in range(50):
        r.write(f"pkg/m{i:02d}.py", "".join(f"def base_{i}_{k}(x):\n    return x + {k}\n\n\n" for k in range(20)))
    b.commit(r, "Initial commit")
    for j in range(history):
        i = j % 50
        if j < 50:
            r.replace(f"pkg/m{i:02d}.py", "    return x + 0\n", "    return x + 0  # checked\n")
        else:  # the file's last revision's function, changed
            r.replace(f"pkg/m{i:02d}.py", f"    return x * {j - 50}\n", f"    return x * {j - 50} + 1\n")
        r.write(f"pkg/m{i:02d}.py", r.read(f"pkg/m{i:02d}.py") + f"\n\ndef rev_{j}(x):\n    return x * {j}\n")
        b.commit(r, f"Revision {j}", gap=5)
    r.checkout("feature", create=True)
    for c in range(10):
        cc = b.claude(r.path, branch="feature")
        cc.prompt(f"Add the step {c} helpers to five modules")
        for i in range(c * 5, c * 5 + 5):
            path = r.path / f"pkg/m{i:02d}.py"
            new = r.read(f"pkg/m{i:02d}.py") + "".join(
                f"\n\ndef step_{c}_{i}_{k}(values, limit={k}):\n    kept = [v for v in values if v < limit * {i + 1}]\n"
                f"    return sorted(kept)[: {k + 3}]\n" for k in range(7)) + "\n"
            cc.write(path, new)
            mine = f"# checked by hand {c}-{i}\nLIMIT_{i} = {c}\nCHECKED_{i} = True\n\n"
            r.write(f"pkg/m{i:02d}.py", r.read(f"pkg/m{i:02d}.py") + mine)
        b.commit(r, f"Step {c} helpers")
    env = _env(where / "store", None, homes=b.homes)
    subprocess.run([sys.executable, "-m", "hansard", "index"], cwd=r.path, env=env, check=True, capture_output=True)

    def copy(label: str) -> dict[str, str]:
        shutil.copytree(where / "store", where / f"store-{label}", ignore=shutil.ignore_patterns("*.lock", "*-lock"))
        return _env(where / f"store-{label}", None, homes=b.homes)

    return measure(r.path, env, "main..feature", rounds, _codes(codes, copy) if codes else None)


def _env(home: Path, empty_homes: Path | None, homes: dict[str, Path] | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["HANSARD_HOME"] = str(home)
    for var in ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "GEMINI_CLI_HOME", "CURSOR_HOME", "CURSOR_CONFIG_DIR",
                "OPENCODE_DATA_DIR", "COPILOT_HOME"):
        env[var] = str((homes or {}).get(var) or (empty_homes or home) / var)
    env["PYTHONPATH"] = os.pathsep.join(x for x in (str(ROOT), env.get("PYTHONPATH")) if x)
    return env


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--real", type=Path, help="a real repository")
    ap.add_argument("--store", type=Path, help="its HANSARD_HOME folder (copied, never written)")
    ap.add_argument("--range", default="HEAD~3..HEAD")
    ap.add_argument("--synthetic", action="store_true", help="the generated 50-file, 2,000-line change")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--dir", type=Path, help="build the synthetic corpus here (default: a scratch folder)")
    ap.add_argument("--history", type=int, default=0, help="a person's commits on main before the branch")
    ap.add_argument("--code", action="append", default=[], metavar="LABEL=PYTHON",
                    help="a build to measure (an interpreter whose hansard is that build); more than once to compare")
    a = ap.parse_args()
    results = []
    if a.real:
        if a.store is None:
            ap.error("--real needs --store")
        results.append(("real", real(a.real.resolve(), a.store.resolve(), a.range, a.rounds, a.code)))
    if a.synthetic:
        where = a.dir or Path(tempfile.mkdtemp(prefix="hansard-bench-review-syn-"))
        results.append(("synthetic", synthetic(where, a.rounds, a.history, a.code)))
    labels = [c.partition("=")[0] for c in a.code] if len(a.code) > 1 else [""]
    for name, r in results:
        print(f"{name}: {r['range']}: {r['commits']} commits, {r['files']} files, {r['lines']} lines added, "
              f"{r['sessions']} sessions; baseline (diff + blame of each file, one at a time) {r['baseline_s']}s")
        for label in labels:
            tag = f"{label}_" if label else ""
            verdict = "PASS" if float(r[f"{tag}first_ratio"]) <= TARGET else "MISS"  # type: ignore[arg-type]
            print(f"  {label or 'review'}: first {r[f'{tag}first_s']}s ({r[f'{tag}first_ratio']}x), kept "
                  f"{r[f'{tag}kept_s']}s ({r[f'{tag}kept_ratio']}x) [median of {r['rounds']}] {verdict}")
        print(json.dumps({name: r}))


if __name__ == "__main__":
    main()
