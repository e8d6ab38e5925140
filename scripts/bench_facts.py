"""Benchmark the per-repository commit facts (hansard.link.commits.kept): their one-time cost,
and the first `why` in a repository whose facts are not kept yet, beside `git log` of the same
history and `git blame` of the same file, in the same run.

Corpora:

  * ``--corpus synthetic`` (default): the ``gots`` corpus of scripts/bench_why.py at 5,000
    commits and 300 Claude Code sessions (built once into ``--dir``; the build takes minutes);
  * ``--corpus real:NAME``: a public repository's history and the sessions Entire kept for it
    (scripts/real_corpus.py), indexed into a fresh store.

Per corpus, after one index (which keeps the facts and fills the commit-diff cache):

  * facts (ties only), from nothing, as a question's upkeep computes them, against one `git log`
    of HEAD's history: ``refresh`` after ``forget``, median of 5;
  * facts with the diff fill, as the index computes them;
  * first `why FILE --json --no-cache --no-sync` after the facts were forgotten, then the same
    again, against `git blame -w -M -C` of the file.

Target: the first why in a repository of 5,000 commits and 300 sessions whose facts
are not computed yet <= 5 s. Printed, never asserted; never run in CI.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

FIRST_WHY_S = 5.0


def timed(fn) -> float:  # any callable
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


def in_store(env: dict[str, str], repo: Path, code: str) -> str:
    """Run ``code`` with a store opened on the corpus' HANSARD_HOME (``s``) and the repository (``top``)."""
    prog = f"from hansard.store import open_store\ns = open_store()\ntop = {str(repo)!r}\n{code}"
    return subprocess.run([sys.executable, "-c", prog], cwd=repo, env=env, check=True, capture_output=True,
                          text=True).stdout.strip()


def synthetic(directory: Path) -> tuple[Path, dict[str, str], str]:
    import bench_why

    repo, home = directory / "repo", directory / "home"
    if not repo.exists():
        print(f"building 5,000 commits and 300 sessions into {directory} (minutes)", file=sys.stderr)
        bench_why.build_gots(directory, 7, commits=5000, sessions=300)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(HANSARD_HOME=str(directory / "store"), CLAUDE_CONFIG_DIR=str(home / ".claude"),
               CODEX_HOME=str(home / ".codex"), GEMINI_CLI_HOME=str(home), PYTHONPATH=str(ROOT))
    return repo, env, "server/handlers.go"


def real(name: str, directory: Path) -> tuple[Path, dict[str, str], str]:
    import real_corpus

    corpus = real_corpus.ensure(name)
    env = real_corpus.env_for(corpus, directory / "store")
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    (directory / "store").mkdir(parents=True, exist_ok=True)
    real_corpus.configure(corpus, env)
    files = real_corpus.sample_files(corpus, 3)
    return corpus / "repo", env, files[-1]  # the largest of three spread over sizes


def measure(label: str, repo: Path, env: dict[str, str], rel: str, index_args: list[str]) -> dict:
    store = Path(env["HANSARD_HOME"])
    if not (store / "hansard.db").exists():
        t = timed(lambda: subprocess.run([sys.executable, "-m", "hansard", "index", *index_args], cwd=repo, env=env,
                                         check=True, capture_output=True))
        print(f"{label}: indexed in {t:.1f} s", file=sys.stderr)
    repo_id = in_store(env, repo, "from hansard.link.repos import repo_for\nprint(repo_for(s, top))")
    ties, with_diffs = [], []
    for _ in range(5):
        ties.append(float(in_store(env, repo, f"from hansard.link.commits.kept import refresh\n"
                                              f"s.commit_facts.forget()\nprint(refresh(s, top, {repo_id})['seconds'])")))
    for _ in range(2):
        with_diffs.append(float(in_store(env, repo, f"import time\nfrom hansard.link.commits.kept import refresh\n"
                                                    f"s.commit_facts.forget()\nt = time.perf_counter()\n"
                                                    f"refresh(s, top, {repo_id}, diffs=True)\n"
                                                    f"print(time.perf_counter() - t)")))
    log = statistics.median(timed(lambda: subprocess.run(["git", "log", "--format=%H %at %ct %s", "HEAD"], cwd=repo,
                                                         check=True, capture_output=True)) for _ in range(5))
    commits = in_store(env, repo, f"print(s.commit_facts.state({repo_id})['commits'])")
    why = [sys.executable, "-m", "hansard", "why", rel, "--json", "--no-cache", "--no-sync"]
    firsts, seconds, blames = [], [], []
    for _ in range(3):
        in_store(env, repo, "s.commit_facts.forget()")
        firsts.append(timed(lambda: subprocess.run(why, cwd=repo, env=env, check=True, capture_output=True)))
        seconds.append(timed(lambda: subprocess.run(why, cwd=repo, env=env, check=True, capture_output=True)))
        blames.append(timed(lambda: subprocess.run(["git", "blame", "-w", "-M", "-C", "--porcelain", rel], cwd=repo,
                                                   check=True, capture_output=True)))
    in_store(env, repo, f"from hansard.link.commits.kept import refresh\nrefresh(s, top, {repo_id}, diffs=True)")
    out = {"corpus": label, "commits": commits, "file": rel, "ties_s": statistics.median(ties),
           "with_diffs_s": statistics.median(with_diffs), "git_log_s": log, "first_why_s": statistics.median(firsts),
           "why_s": statistics.median(seconds), "blame_s": statistics.median(blames)}
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", default="synthetic", help="synthetic, real:NAME, or several separated by commas")
    ap.add_argument("--dir", default=os.path.expanduser("~/.cache/hansard-bench/facts"),
                    help="where corpora and stores are kept between runs")
    a = ap.parse_args()
    rows = []
    for corpus in a.corpus.split(","):
        d = Path(a.dir) / corpus.replace(":", "-")
        if corpus == "synthetic":
            repo, env, rel = synthetic(d)
            args: list[str] = []
        else:
            import real_corpus

            repo, env, rel = real(corpus.split(":", 1)[1], d)
            args = real_corpus.index_args(repo.parent)
        rows.append(measure(corpus, repo, env, rel, args))
    for r in rows:
        print(f"{r['corpus']} ({r['commits']} commits): facts {1000 * r['ties_s']:.0f} ms (git log of the history"
              f" {1000 * r['git_log_s']:.0f} ms, ratio {r['ties_s'] / r['git_log_s']:.1f}); with the diff fill (index)"
              f" {r['with_diffs_s']:.2f} s")
        ok = r["first_why_s"] <= FIRST_WHY_S
        print(f"{r['corpus']}: first why of {r['file']} (facts not kept) {r['first_why_s']:.2f} s, then"
              f" {r['why_s']:.2f} s; git blame {r['blame_s']:.2f} s; first why <= {FIRST_WHY_S:.0f} s"
              f" {'PASS' if ok else 'MISS'}")


if __name__ == "__main__":
    main()
