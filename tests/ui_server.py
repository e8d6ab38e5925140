"""A `hansard ui` server over a real repository and store, for the HTTP and browser tests.

`hansard demo` builds the repository (two sessions, four commits) and its own store; a Claude Code
session then adds a file whose prompt, code and commit message hold HTML and a secret, a session
runs in a second repository (never to be named), the served repository gets a symlink pointing
out of it, and the store is indexed again. The server runs as `hansard ui --port 0` in a process
of its own, with the demo's environment, and is stopped at the end of the module.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
XSS_PROMPT = '<script>alert("prompt")</script> add the <b>banner</b>'
XSS_CODE = 'BANNER = "<img src=x onerror=alert(1)>"'
SECRET = "AKIA" + "Q7ZP3MW9XK2T5RVB"
OTHER_PROMPT = "OTHER-REPOSITORY-PROMPT never shown by this server"
XSS_SESSION = "5a5a5a5a-1111-4222-8333-444455556666"
OTHER_SESSION = "0bbbbbbb-1111-4222-8333-444455556666"
ELSEWHERE_CODE = "def shared():\n    return 'written from another repository'\n"


@dataclass
class Served:
    base: str
    token: str
    repo: Path
    env: dict[str, str]
    proc: subprocess.Popen[str]

    def url(self, path: str, token: bool = True) -> str:
        """``path`` on this server, with the token added unless ``token`` is False (then a
        path that already carries it, as the page's own links do, is taken as it is)."""
        sep = "&" if "?" in path else "?"
        return self.base + path + (f"{sep}token={self.token}" if token else "")

    def get(self, path: str, *, token: bool = True, headers: dict[str, str] | None = None,
            method: str = "GET") -> tuple[int, dict[str, str], str]:
        req = urllib.request.Request(self.url(path, token), headers=headers or {}, method=method)
        try:
            with urllib.request.urlopen(req, timeout=60) as r:
                return r.status, {k.lower(): v for k, v in r.headers.items()}, r.read().decode()
        except urllib.error.HTTPError as e:
            return e.code, {k.lower(): v for k, v in e.headers.items()}, e.read().decode()


def _git(repo: Path, *args: str, date: str = "2026-11-20T10:00:00+00:00") -> None:
    env = dict(os.environ, GIT_CONFIG_GLOBAL=os.devnull, GIT_CONFIG_NOSYSTEM="1", GIT_AUTHOR_NAME="Bob Example",
               GIT_AUTHOR_EMAIL="bob@example.com", GIT_COMMITTER_NAME="Bob Example",
               GIT_COMMITTER_EMAIL="bob@example.com", GIT_AUTHOR_DATE=date, GIT_COMMITTER_DATE=date)
    subprocess.run(["git", *args], cwd=repo, env=env, check=True, capture_output=True)


def build(root: Path) -> tuple[Path, dict[str, str]]:
    """The demo under ``root`` with the extra sessions; returns the repository and the
    environment its `hansard` wrapper runs with (plus PYTHONPATH to this checkout)."""
    from fixtures_repos.writers import ClaudeWriter

    env = {k: v for k, v in os.environ.items() if not k.startswith("HANSARD_")}
    env.update(PYTHONPATH=str(ROOT), HOME=str(root / "outside"), TZ="UTC")
    r = subprocess.run([sys.executable, "-m", "hansard", "demo", str(root / "demo")], cwd=root, env=env,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    demo = root / "demo"
    repo = demo / "upload-service"
    claude = demo / "home" / "claude_config_dir"
    w = ClaudeWriter(claude, repo, XSS_SESSION, datetime(2026, 11, 20, 9, 0, 0))
    w.prompt(XSS_PROMPT)
    w.write(repo / "app" / "banner.py", f"{XSS_CODE}\nKEY = \"{SECRET}\"\n\n\ndef show():\n    return BANNER\n")
    w.bash("./long-job", stdout="".join(f"output line {i}\n" for i in range(1500)))  # cut on the page
    for i in range(60):  # a session longer than a page
        w.say(f"progress note {i}")
    w.say("Added the banner.")
    odd = repo / "we<ird>"  # a folder and a file whose names are HTML
    odd.mkdir()
    (odd / "a&b<i>.py").write_text("y = '<i>'\n")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "add <b>banner</b> & <script>x</script>")
    other = demo / "other-repo"
    other.mkdir()
    _git(other, "init", "-q", "-b", "main")
    (other / "x.py").write_text("x = 1\n")
    w2 = ClaudeWriter(claude, other, OTHER_SESSION, datetime(2026, 11, 21, 9, 0, 0))
    w2.prompt(OTHER_PROMPT)
    w2.edit(other / "x.py", "x = 1", "x = 2")
    _git(other, "add", "-A")
    _git(other, "commit", "-q", "-m", "other")
    # ... and from there writes a file of the served repository: its lines are "another
    # repository's session", never an id, prompt or title of it.
    w2.write(repo / "app" / "shared.py", ELSEWHERE_CODE)
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "add shared.py", date="2026-11-21T10:00:00+00:00")
    (repo / "escape").symlink_to("/etc/passwd")
    for k, v in _wrapper_env(demo).items():
        env[k] = v
    r = subprocess.run([sys.executable, "-m", "hansard", "index"], cwd=repo, env=env, capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0, r.stderr
    return repo, env


def _wrapper_env(demo: Path) -> dict[str, str]:
    """The variables the demo's `hansard` wrapper exports (its store and agent homes)."""
    return dict(re.findall(r"^export (\w+)=(.*)$", (demo / "hansard").read_text(), re.M))


def start(repo: Path, env: dict[str, str], *args: str) -> Served:
    proc = subprocess.Popen([sys.executable, "-m", "hansard", "ui", "--port", "0", *args], cwd=repo, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    assert proc.stdout is not None
    url = ""
    for _ in range(5):
        line = proc.stdout.readline()
        if line.strip().startswith("http://"):
            url = line.strip()
            break
    assert url, proc.stderr.read() if proc.stderr else "no URL printed"
    m = re.match(r"(http://127\.0\.0\.1:\d+)/.*[?&]token=([\w-]+)", url)
    assert m, url
    return Served(m.group(1), m.group(2), repo, env, proc)


def stop(s: Served) -> None:
    s.proc.send_signal(signal.SIGINT)
    try:
        s.proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        s.proc.kill()
        s.proc.wait()


@contextlib.contextmanager
def serving(root: Path) -> Iterator[Served]:
    """The server over the repository ``build`` makes under ``root``, stopped on leaving."""
    repo, env = build(root)
    s = start(repo, env)
    try:
        yield s
    finally:
        stop(s)
