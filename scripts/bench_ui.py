"""Bench `hansard ui`'s two big pages against a baseline run side by side (a 5,000-line
file and a 50 MB session page to first paint in <= 1 s).

Builds, in a temporary folder (every agent home and the store inside it), a repository with a
5,000-line Python file that a Claude Code session wrote (and a person then changed in places) and
a Claude Code session of about 50 MB (bash calls with long output), indexes it, starts
`hansard ui` and measures, for each page:

- time to the first byte and to the whole HTML over HTTP, the first request (nothing cached)
  and the next (the why-result cache warm);
- first contentful paint in headless Chromium (chromedriver, when installed), from the
  browser's own Performance API;
- the baseline: `git blame --porcelain` of the file (what `why` runs first), and reading the
  50 MB transcript file from disk.

Printed as a table with the ratio to the baseline; never asserted.

    python scripts/bench_ui.py [--lines 5000] [--session-mb 50] [--rounds 5]
"""

from __future__ import annotations

import argparse
import http.client
import os
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

BIG_SESSION = "b16b16b1-0000-4000-8000-000000000050"


def build(base: Path, n_lines: int, session_mb: int) -> tuple[Path, dict[str, str], Path]:
    from fixtures_repos.writers import ClaudeWriter
    from tests.ui_server import _git, _wrapper_env

    env = {k: v for k, v in os.environ.items() if not k.startswith("HANSARD_")}
    env.update(PYTHONPATH=str(ROOT), HOME=str(base / "outside"), TZ="UTC")
    subprocess.run([sys.executable, "-m", "hansard", "demo", str(base / "demo")], cwd=base, env=env, check=True,
                   capture_output=True)
    demo = base / "demo"
    repo = demo / "upload-service"
    claude = demo / "home" / "claude_config_dir"
    body = []
    for i in range(n_lines // 5):
        body += [f"def handler_{i}(request, retries={i % 7}):", f'    """Handle request kind {i}."""',
                 f"    value = request.get('k{i}', {i})", "    return value * retries", ""]
    big = repo / "app" / "big.py"
    w = ClaudeWriter(claude, repo, "b16b16b1-0000-4000-8000-000000005000", datetime(2026, 11, 25, 9, 0, 0))
    w.prompt("write the request handlers")
    w.write(big, "\n".join(body[:n_lines]) + "\n")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "handlers", date="2026-11-25T10:00:00+00:00")
    text = big.read_text().replace("retries=3", "retries=4")  # a person's change, here and there
    big.write_text(text)
    _git(repo, "commit", "-qam", "tune retries", date="2026-11-26T10:00:00+00:00")
    # ~50 MB: bash calls with 25 kB of output each
    w2 = ClaudeWriter(claude, repo, BIG_SESSION, datetime(2026, 11, 27, 9, 0, 0))
    w2.prompt("run the long job and watch its output")
    chunk = ("log line with some words in it 0123456789 " * 600)[:25_000]
    n = 0
    while w2.path.stat().st_size < session_mb * 1_000_000:
        w2.bash(f"./job --step {n}", stdout=chunk)
        n += 1
    env.update(_wrapper_env(demo))
    subprocess.run([sys.executable, "-m", "hansard", "index", "--quiet"], cwd=repo, env=env, check=True,
                   capture_output=True)
    return repo, env, w2.path


def fetch(base: str, path: str) -> tuple[float, float, int]:
    """(seconds to the first byte, seconds to the whole body, bytes) of one GET."""
    host, port = base.removeprefix("http://").split(":")
    t0 = time.perf_counter()
    c = http.client.HTTPConnection(host, int(port), timeout=300)
    c.request("GET", path)
    r = c.getresponse()
    first = r.read(1)
    t1 = time.perf_counter()
    rest = r.read()
    t2 = time.perf_counter()
    c.close()
    assert r.status == 200, (r.status, path)
    return t1 - t0, t2 - t0, len(first) + len(rest)


def paint(browser: object, url: str) -> float:
    b = browser
    b.get("about:blank")  # type: ignore[attr-defined]
    b.get(url)  # type: ignore[attr-defined]
    got = b.wait(lambda: b.js("var p = performance.getEntriesByName('first-contentful-paint'); "  # type: ignore
                              "return p.length ? p[0].startTime + 1 : null"), "the first paint", 60)
    return (float(got) - 1) / 1000


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--lines", type=int, default=5000)
    ap.add_argument("--session-mb", type=int, default=50)
    ap.add_argument("--rounds", type=int, default=5)
    a = ap.parse_args()
    from tests import ui_server

    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        repo, env, transcript = build(Path(tmp), a.lines, a.session_mb)
        print(f"built and indexed in {time.perf_counter() - t0:.1f} s: app/big.py {a.lines:,} lines, "
              f"session {transcript.stat().st_size / 1e6:.1f} MB")
        s = ui_server.start(repo, env)
        try:
            rows = []
            file_path = f"/file/app/big.py?token={s.token}"
            cold = fetch(s.base, file_path)
            warm = [fetch(s.base, file_path) for _ in range(a.rounds)]
            blame = []
            for _ in range(a.rounds):
                t = time.perf_counter()
                subprocess.run(["git", "blame", "--porcelain", "app/big.py"], cwd=repo, check=True, capture_output=True)
                blame.append(time.perf_counter() - t)
            base_blame = statistics.median(blame)
            rows.append(("file page, first request (first byte)", cold[0], base_blame))
            rows.append(("file page, first request (whole HTML)", cold[1], base_blame))
            rows.append(("file page, cached (first byte)", statistics.median(x[0] for x in warm), base_blame))
            rows.append(("file page, cached (whole HTML)", statistics.median(x[1] for x in warm), base_blame))
            sess_path = f"/session/{BIG_SESSION}?token={s.token}"
            sess = [fetch(s.base, sess_path) for _ in range(a.rounds)]
            mid = [fetch(s.base, f"/session/{BIG_SESSION}?around=1000&token={s.token}") for _ in range(a.rounds)]
            reads = []
            for _ in range(a.rounds):
                t = time.perf_counter()
                transcript.read_bytes()
                reads.append(time.perf_counter() - t)
            base_read = statistics.median(reads)
            rows.append(("session page 1 (whole HTML)", statistics.median(x[1] for x in sess), base_read))
            rows.append(("session page at message 1000 (whole HTML)", statistics.median(x[1] for x in mid), base_read))
            try:
                from tests.webdriver import Browser

                b = Browser()
            except BaseException as exc:  # pytest.skip when chromium is missing
                print(f"(no browser: {exc})")
                b = None
            if b is not None:
                try:
                    fp = [paint(b, s.base + file_path) for _ in range(a.rounds)]
                    sp = [paint(b, s.base + sess_path) for _ in range(a.rounds)]
                finally:
                    b.quit()
                rows.append(("file page, first contentful paint (Chromium)", statistics.median(fp), base_blame))
                rows.append(("session page, first contentful paint (Chromium)", statistics.median(sp), base_read))
            print(f"{'measure':<50} {'hansard ui':>11} {'baseline':>9} {'ratio':>6}")
            for name, v, basev in rows:
                print(f"{name:<50} {v * 1000:>9.0f}ms {basev * 1000:>7.0f}ms {v / basev:>6.1f}")
            print(f"baselines: `git blame --porcelain app/big.py` ({a.lines:,} lines); reading the "
                  f"{transcript.stat().st_size / 1e6:.0f} MB transcript file. Page sizes: file {cold[2] / 1e6:.1f} MB, "
                  f"session page {sess[0][2] / 1e3:.0f} kB")
        finally:
            ui_server.stop(s)


if __name__ == "__main__":
    main()
