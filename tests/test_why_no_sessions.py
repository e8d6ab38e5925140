"""Fail closed on an empty store: with no archived session for the asked file's
repository, no line is called a person's. The answer says where hansard looked."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _repo(tmp: Path) -> Path:
    repo = tmp / "repo"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True)
    (repo / "app.py").write_text("def total(xs):\n    return sum(xs)\n")
    subprocess.run(["git", "add", "-A"], cwd=repo, check=True)
    subprocess.run(["git", "commit", "-qm", "init"], cwd=repo, check=True)
    return repo


def _hansard(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "hansard", *args], cwd=repo, env=env, capture_output=True, text=True,
                          timeout=120)


def test_an_empty_store_answers_unknown_with_a_notice(tmp_path):
    repo = _repo(tmp_path)
    idx = _hansard(repo, "index")
    assert idx.returncode == 0
    assert "no session at all" in idx.stderr and os.environ["CLAUDE_CONFIG_DIR"] in idx.stderr
    doc = json.loads(_hansard(repo, "why", "app.py", "--json").stdout)
    assert [(ln["kind"], ln["rule"]) for ln in doc["lines"]] == [("unknown", "no_sessions")] * 2
    notice = doc["notice"]
    assert notice["code"] == "no_sessions"
    claude = next(h for h in notice["searched"] if h["agent"] == "claude_code")
    assert claude["homes"] == [os.path.join(os.environ["CLAUDE_CONFIG_DIR"], "projects")] and claude["sessions"] == 0
    assert "CLAUDE_CONFIG_DIR" in notice["env"] and "CODEX_HOME" in notice["env"]
    text = _hansard(repo, "why", "app.py:2")
    assert text.returncode == 0 and "no archived session ran in this repository" in text.stdout
    assert text.stderr.count("no line can be called a person's") == 1 and "CLAUDE_CONFIG_DIR" in text.stderr
    assert "Traceback" not in text.stderr


def test_a_repository_with_a_session_still_has_human_lines(tmp_path):
    from datetime import UTC, datetime

    from fixtures_repos.writers import ClaudeWriter, Clock

    repo = _repo(tmp_path)
    w = ClaudeWriter(Path(os.environ["CLAUDE_CONFIG_DIR"]), repo, "0b9c2a1e-5d4f-4e3a-9b8c-7d6e5f4a3b2c",
                     Clock(datetime(2020, 1, 1, tzinfo=UTC)))
    w.prompt("read the file")
    w.read(repo / "app.py")
    assert _hansard(repo, "index").returncode == 0
    doc = json.loads(_hansard(repo, "why", "app.py", "--json").stdout)
    assert "notice" not in doc
    assert [ln["kind"] for ln in doc["lines"]] == ["human", "human"]


def test_code_history_says_the_same(tmp_path, monkeypatch):
    """`log` and MCP's code_history (one core function) carry the notice, for a file and a line."""
    from hansard.answers.code_history import code_history
    from hansard.render.trees import code_history_tree as render_tree
    from hansard.store import open_store

    repo = _repo(tmp_path)
    monkeypatch.chdir(repo)
    store = open_store()
    try:
        whole = code_history(store, "app.py", cwd=str(repo), render=render_tree)
        line = code_history(store, "app.py:1", cwd=str(repo), render=render_tree)
    finally:
        store.close()
    assert whole["notice"]["code"] == line["notice"]["code"] == "no_sessions"
    assert "note: the store holds no session at all" in render_tree(whole)


def test_the_language_servers_hover_says_the_same(tmp_path):
    """The hover of a line of such a repository carries the notice (the language server answers
    a file with the same `why` document)."""
    from hansard.answers.why import explain
    from hansard.lsp import core, marks
    from hansard.store import open_store

    repo = _repo(tmp_path)
    store = open_store()
    try:
        ans = explain(store, "app.py", cwd=str(repo))
    finally:
        store.close()
    md = marks.hover_markdown(ans, ans["lines"][0], core.provider_name, core.evidence)
    assert "no session at all" in md and "`CLAUDE_CONFIG_DIR`" in md
