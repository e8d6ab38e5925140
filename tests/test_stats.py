"""`hansard stats` and the MCP `repo_stats` tool, on real repositories built
with real transcripts (the demo, and fixtures_repos' scenarios): the counts add up exactly to
the files' lines and agree with `why --json` line for line; a new commit costs only the files it
changed (read from the store's stats cache); and the MCP tool over a real stdio client,
including the scope lock."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from hansard.answers.stats import KINDS, repo_stats
from hansard.answers.why import explain
from hansard.demo import build
from hansard.ingest.run import index
from hansard.store import open_store

WORKTREE = str(Path(__file__).resolve().parents[1])


def git(repo: Path, *args: str, data: bytes | None = None) -> str:
    return subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, input=data).stdout.decode().strip()


def line_count(data: bytes) -> int:
    return data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)


def hansard(repo: Path, *args: str) -> str:
    """``python -m hansard ARGS`` in ``repo``, importing hansard from this checkout."""
    env = {**os.environ, "PYTHONPATH": WORKTREE}
    out = subprocess.run([sys.executable, "-m", "hansard", *args], cwd=repo, env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    return out.stdout


def asked(**kw: Any) -> Any:
    """repo_stats asked through the application, as the CLI asks it: the repository registered
    and its facts kept first, the summaries it worked out kept when the request ends."""
    from hansard.app.house import Hansard

    with Hansard(sync=False).request() as rq:
        rq.fresh(kw.get("cwd"))
        return repo_stats(rq.store, **kw)


@pytest.fixture
def demo(tmp_path: Path) -> Path:
    s = build(tmp_path / "demo")  # points HANSARD_HOME and the agent homes into the folder
    store = open_store()
    try:
        index(store)
    finally:
        store.close()
    return s.repo


def check_against_why(store, repo: Path, result: dict) -> None:
    """Every file's counts are its why answer's kinds, and add up to its lines."""
    sha = result["rev"]
    tracked = [p for p in git(repo, "ls-tree", "-r", "--name-only", sha).splitlines()]
    assert sorted(result["files"]) == sorted(set(tracked) - set(result["skipped"]["paths"]))
    total = 0
    for rel, row in result["files"].items():
        doc = explain(store, rel, rev=sha, cwd=str(repo), cache=False)
        kinds = Counter(ln["kind"] for ln in doc["lines"])
        assert {k: row[k] for k in KINDS if row[k]} == dict(kinds), rel
        n = line_count(subprocess.run(["git", "show", f"{sha}:{rel}"], cwd=repo, capture_output=True).stdout)
        assert row["lines"] == sum(row[k] for k in KINDS) == n, rel
        total += n
    assert result["lines"] == result["counted_lines"] == sum(result["kinds"].values()) == total
    assert result["folders"][""]["lines"] == total
    for name, rows in result.get("by", {}).items():
        assert sum(r["lines"] for r in rows.values()) == total, name
    months = sum(m["agents"] + m["people"] + m["unknown"] for m in result["months"].values())
    assert months == total - result["kinds"]["uncommitted"]
    assert sum(result["alive_by_age"].values()) == result["alive_agent_lines"]


def test_demo_adds_up_and_matches_why_json_line_for_line(demo: Path) -> None:
    out = json.loads(hansard(demo, "stats", "--json", "--by", "agent", "--by", "model", "--by", "session",
                             "--by", "member"))
    store = open_store()
    try:
        check_against_why(store, demo, out)
    finally:
        store.close()
    # the CLI's own `why --json`, line for line: the agent/human split is the same
    for rel, row in out["files"].items():
        doc = json.loads(hansard(demo, "why", rel, "--json", "--rev", out["rev"]))
        assert Counter(ln["kind"] for ln in doc["lines"]) == Counter({k: row[k] for k in KINDS if row[k]})
    assert out["kinds"]["agent"] == 14 and out["kinds"]["agent_modified"] == 1 and out["kinds"]["human"] == 12
    assert set(out["by"]["agent"]) == {"claude_code", "codex", "(no session)"}
    assert out["by"]["model"]["gpt-5.4"]["agent"] == 12
    assert out["by"]["member"]["(me)"]["lines"] == 15
    assert out["folders"]["tests"]["agent"] == 12 and out["folders"]["app"]["lines"] == 12
    dur = out["durability"]
    assert sum(dur["lines_added_by_age"].values()) == out["funnel"]["lines_added"]
    assert dur["7d"] == {"alive": 0, "added": 0, "alive_per_added_line": None}  # all of it is days old
    f = out["funnel"]
    assert f["sessions"] == 2 and f["lines_alive"] == 15 and f["lines_added"] >= f["lines_alive"] and f["commits"] >= 2
    text = hansard(demo, "stats", "--by", "dir", "--by", "month")
    assert "agents wrote 55.6%" in text and "tests/" in text and "funnel" in text


def test_files_answered_by_worker_processes_count_and_keep_what_one_process_does(
        demo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """On more than one CPU the files are answered by forked workers, each reading the store
    itself: the counts, and the summaries and commit diffs the request keeps, are those of the
    files answered one at a time here."""
    import shutil

    from hansard import config
    from hansard.app import workers

    store_dir = Path(config.store_path_str()).parent
    shutil.copytree(store_dir, tmp_path / "serial")

    def kept_rows() -> tuple[list, list]:
        s = open_store()
        try:
            return (sorted(tuple(r) for r in s.db.execute("SELECT key, path FROM stats_cache")),
                    sorted(tuple(r) for r in s.db.execute("SELECT sha, path FROM commit_diffs")))
        finally:
            s.close()

    forked = []
    real_jobs = workers.jobs_for
    monkeypatch.setattr(workers, "jobs_for", lambda store, n: forked.append(real_jobs(store, n)) or max(2, forked[-1]))
    parallel = asked(cwd=str(demo), by=("agent", "session", "dir"), ask=workers.answers)
    parallel_rows = kept_rows()
    assert forked and parallel["cache"]["answered"] >= 2
    monkeypatch.setattr(workers, "jobs_for", lambda store, n: 0)
    monkeypatch.setenv("HANSARD_HOME", str(tmp_path / "serial"))
    serial = asked(cwd=str(demo), by=("agent", "session", "dir"), ask=workers.answers)
    assert {k: v for k, v in parallel.items() if k != "seconds"} == {k: v for k, v in serial.items() if k != "seconds"}
    assert parallel_rows == kept_rows() and parallel_rows[0] and parallel_rows[1]


def test_files_at_head_read_the_kept_commit_facts(demo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Stats asks each file at HEAD's commit id: the ties of its commits are the repository's
    kept facts, as for `why` without a revision, not joined again from every shell call per
    file."""
    from hansard.link.commits import ties as commit_ties

    first = asked(cwd=str(demo))

    def joined_again(*a: Any, **kw: Any) -> Any:
        raise AssertionError("the ties were joined again for a file at HEAD")

    monkeypatch.setattr(commit_ties, "prints_of", joined_again)
    again = asked(cwd=str(demo), cache=False)
    assert {k: v for k, v in again.items() if k not in ("seconds", "cache")} == \
        {k: v for k, v in first.items() if k not in ("seconds", "cache")}


@pytest.mark.parametrize("name", ["agents_claude_and_codex_same_file", "human_modifies_line", "webchat_pasted",
                                  "precision_restored_line", "rename_mv_then_edit"])
def test_scenarios_add_up_and_match_why(name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from fixtures_repos.check import answer, env_for
    from fixtures_repos.scenarios import SCENARIOS

    scn = SCENARIOS[name](tmp_path / "build")
    for var, value in env_for(scn, tmp_path / "store").items():
        monkeypatch.setenv(var, value)
    answer(scn)  # indexes the scenario's homes (and its imports)
    store = open_store()
    try:
        result = repo_stats(store, rev=scn.rev, cwd=str(scn.repo), by=("agent", "session", "member", "model"))
        check_against_why(store, scn.repo, result)
        if name == "webchat_pasted":
            assert result["kinds"]["pasted"] > 0
        if name == "human_modifies_line":
            assert result["kinds"]["agent_modified"] > 0
    finally:
        store.close()


def test_a_new_commit_costs_only_the_file_it_changed(demo: Path) -> None:
    store = open_store()
    try:
        first = asked(cwd=str(demo))
        assert first["cache"] == {"files": 3, "remembered": 0, "answered": 3, "new": 3}
        again = asked(cwd=str(demo))
        assert again["cache"]["answered"] == 0 and again["cache"]["remembered"] == 3
        assert {k: v for k, v in again.items() if k not in ("cache", "seconds")} == \
            {k: v for k, v in first.items() if k not in ("cache", "seconds")}

        retry = demo / "app" / "retry.py"
        retry.write_text(retry.read_text() + "# tuned by hand\n")
        git(demo, "commit", "-qam", "A person's comment")
        before = set(store.stats.cached_paths())
        third = asked(cwd=str(demo))
        assert third["cache"] == {"files": 3, "remembered": 2, "answered": 1, "new": 1}
        new_blob = git(demo, "rev-parse", "HEAD:app/retry.py")
        assert set(store.stats.cached_paths()) - before == {("app/retry.py", new_blob)}
        assert third["kinds"]["human"] == first["kinds"]["human"] + 1
        # the new commit is made now, weeks after the demo's: its agent lines are that old, and so
        # are the edits that added them
        week = third["durability"]["7d"]
        assert week["alive"] == third["alive_agent_lines"] == 15
        assert week["added"] == third["funnel"]["lines_added"] and week["alive_per_added_line"] == round(15 / week["added"], 4)
        check_against_why(store, demo, third)

        # the same content under a rewritten history: the summary naming the gone commit is redone
        git(demo, "commit", "-q", "--amend", "-m", "A person's comment, reworded")
        fourth = asked(cwd=str(demo))
        assert fourth["cache"]["answered"] == 1 and fourth["rev"] != third["rev"]
        check_against_why(store, demo, fourth)
    finally:
        store.close()


def test_a_repository_without_sessions_says_so(tmp_path: Path) -> None:
    repo = tmp_path / "plain"
    repo.mkdir()
    git(repo, "init", "-q")
    (repo / "x.txt").write_text("a\nb\n")
    git(repo, "add", ".")
    git(repo, "commit", "-qm", "one")
    store = open_store()
    try:
        for _ in range(2):  # answered, then remembered
            r = asked(cwd=str(repo))
            assert r["kinds"]["unknown"] == 2 and r["notice"]["code"] == "no_sessions"
        assert r["cache"]["remembered"] == 1
    finally:
        store.close()


def test_a_summary_is_kept_per_repository(demo: Path, tmp_path: Path) -> None:
    """The same path and blob in a clone is answered for the clone (its sessions, its ties)."""
    clone = tmp_path / "clone"
    git(demo, "clone", "-q", str(demo), str(clone))
    store = open_store()
    try:
        assert asked(cwd=str(demo))["cache"]["answered"] == 3
        other = asked(cwd=str(clone))
        assert other["cache"]["answered"] == 3 and other["cache"]["remembered"] == 0
        assert asked(cwd=str(clone))["cache"]["remembered"] == 3
        assert asked(cwd=str(demo))["cache"]["remembered"] == 3
    finally:
        store.close()


def test_binary_large_and_symlinked_files_are_counted_as_skipped(demo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import hansard.answers.stats as stats

    (demo / "logo.bin").write_bytes(b"\x89PNG\0\0\x01binary")
    (demo / "big.txt").write_text("x\n" * 600)
    os.symlink("README.md", demo / "link.md")
    git(demo, "add", ".")
    git(demo, "commit", "-qm", "assets")
    monkeypatch.setattr(stats, "MAX_FILE_BYTES", 1000)
    store = open_store()
    try:
        r = asked(cwd=str(demo))
        assert r["skipped"]["reasons"] == {"binary": 1, "symlink": 1, "too_large": 1}
        assert "logo.bin" not in r["files"] and r["cache"]["files"] == 6
        check_against_why(store, demo, r)
        again = asked(cwd=str(demo))  # a binary file is remembered as one too
        assert again["cache"]["answered"] == 0 and again["skipped"] == r["skipped"]
    finally:
        store.close()


def test_paths_bounds_and_bad_arguments(demo: Path) -> None:
    from hansard.errors import InvalidArgument, PathOutsideRepository

    store = open_store()
    try:
        app = repo_stats(store, ["app"], cwd=str(demo))
        assert list(app["files"]) == ["app/retry.py"] and app["lines"] == 12
        assert app["funnel"]["lines_added"] <= repo_stats(store, cwd=str(demo))["funnel"]["lines_added"]
        later = repo_stats(store, cwd=str(demo), since="2100-01-01")
        assert later["counted_lines"] == 0 and later["lines"] == 27 and later["funnel"]["sessions"] == 0
        with pytest.raises(InvalidArgument):
            repo_stats(store, cwd=str(demo), by=("colour",))
        with pytest.raises(InvalidArgument):
            repo_stats(store, cwd=str(demo), rev="--output=/tmp/x")
        with pytest.raises(PathOutsideRepository):
            repo_stats(store, ["../.."], cwd=str(demo))
    finally:
        store.close()



@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_mcp_repo_stats_over_stdio_with_the_scope_lock(demo: Path, tmp_path: Path, anyio_backend: str) -> None:
    from mcp import Client, StdioServerParameters

    env = {k: os.environ[k] for k in ("HANSARD_HOME", "CLAUDE_CONFIG_DIR", "CODEX_HOME", "GEMINI_CLI_HOME", "HOME",
                                      "PATH") if k in os.environ}
    env["PYTHONPATH"] = WORKTREE

    def stdio(*args: str) -> Client:
        params = StdioServerParameters(command=sys.executable, args=["-m", "hansard", "mcp", "serve", *args],
                                       env=env, cwd=str(demo))
        return Client(params, mode="legacy")

    other = tmp_path / "other"
    other.mkdir()
    git(other, "init", "-q")
    async with stdio() as c:
        tools = {t.name for t in (await c.list_tools()).tools}
        assert "repo_stats" in tools
        r = await c.call_tool("repo_stats", {"by": ["agent", "model"]})
        body = r.structured_content
        assert not r.is_error and body["lines"] == 27 and body["kinds"]["agent"] == 14
        assert body["by"]["agent"]["codex"]["agent"] == 12 and "scope" not in body
        r = await c.call_tool("repo_stats", {"paths": ["x" * 5000]})
        assert r.is_error and r.structured_content["error"]["code"] == "invalid_argument"
    async with stdio("--scope", "repo") as c:
        ok = (await c.call_tool("repo_stats", {"paths": ["tests"]})).structured_content
        assert ok["lines"] == 12 and ok["scope"] == {"mode": "repo", "repo": str(demo)}
        for args in ({"repo": str(other)}, {"paths": ["../other"]}, {"paths": [str(other)]}):
            r = await c.call_tool("repo_stats", args)
            assert r.is_error and r.structured_content["refused"] is True, args
            assert r.structured_content["reason"] == "scope_not_granted"


def _nested(tmp_path: Path) -> Path:
    """A repository whose one big folder (``big/deep/``, 70 files) holds most of its lines,
    beside a small folder and files at the root (no session: every line unknown)."""
    repo = tmp_path / "nested"
    (repo / "big" / "deep").mkdir(parents=True)
    (repo / "small").mkdir()
    for k in range(70):
        (repo / "big" / "deep" / f"m{k:02d}.py").write_text("x = 1\n" * (k + 1))
    (repo / "small" / "a.py").write_text("a = 1\n")
    (repo / "small" / "b.py").write_text("b = 1\n")
    (repo / "README.md").write_text("# nested\n")
    git(repo, "init", "-q")
    git(repo, "add", ".")
    git(repo, "commit", "-qm", "one")
    return repo


def test_stats_drills_into_a_path_its_folders_and_its_files(tmp_path: Path) -> None:
    """`stats PATH` is PATH broken into its folders and files; without --depth the biggest
    folder opens first (its largest files, and one row for the rest) and a folder holding only
    a folder is one row; --depth opens every folder to that depth; the JSON carries the tree;
    every count is a total, however few rows are shown."""
    repo = _nested(tmp_path)
    text = hansard(repo, "stats", "--no-sync").splitlines()
    assert "  2,488 lines in 73 files; agents wrote 0.0%" in text
    tree_rows = text[text.index("folders") + 1:]
    assert tree_rows[0].startswith("  .  ") and "2,488 lines" in tree_rows[0]
    assert tree_rows[1].split()[:2] == ["big/deep/", "2,485"]  # big/ holds only deep/: one row
    shown = [r.split()[0] for r in tree_rows[2:] if r.startswith("      m")]
    assert "m69.py" in shown and "m00.py" not in shown and len(shown) >= 8  # the largest files first
    more = next(r for r in tree_rows if "more" in r)
    assert more.split()[:4] == ["…", f"{70 - len(shown)}", "files", "more"]
    assert f"{sum(range(1, 71 - len(shown))):,} lines" in more  # the rest, counted whole
    assert any(r.split()[:2] == ["small/", "2"] for r in tree_rows)
    assert not any(r.strip().startswith("a.py") for r in tree_rows)  # small/ stays closed
    assert any("shown closed" in r for r in tree_rows)

    sub = hansard(repo, "stats", "big/deep", "--no-sync").splitlines()
    assert "  2,485 lines in 70 files; agents wrote 0.0%" in sub
    rows = sub[sub.index("folders") + 1:]
    assert rows[0].split()[:2] == ["big/deep/", "2,485"]  # the path asked, not an ancestor's label
    assert [r.split()[0] for r in rows[1:60]] == [f"m{k:02d}.py" for k in range(11, 70)]  # the 59 largest
    assert rows[60].split()[:5] == ["…", "11", "files", "more", "66"]  # 1 + 2 + ... + 11 lines
    deep = hansard(repo, "stats", "big/deep", "--depth", "1", "--no-sync").splitlines()
    rows = deep[deep.index("folders") + 1:]
    assert [r.split()[0] for r in rows[1:71]] == [f"m{k:02d}.py" for k in range(70)] and "more" not in rows[71]

    doc = json.loads(hansard(repo, "stats", "--json", "--no-sync"))
    assert doc["file_count"] == 73 and len(doc["tree"]) == 1
    root = doc["tree"][0]
    assert (root["path"], root["type"], root["entries"], root["lines"]) == ("", "dir", 3, 2488)
    assert [(c["name"], c["type"]) for c in root["children"]] == [("big", "dir"), ("small", "dir"),
                                                                   ("README.md", "file")]
    big = root["children"][0]
    assert big["children"][0]["path"] == "big/deep" and len(big["children"][0]["children"]) == 70  # the whole tree
    one = json.loads(hansard(repo, "stats", "big", "small/a.py", "--json", "--depth", "1", "--no-sync"))
    assert [t["path"] for t in one["tree"]] == ["big", "small/a.py"] and one["file_count"] == 71
    assert one["tree"][0]["children"][0]["entries"] == 70 and "children" not in one["tree"][0]["children"][0]
    assert one["tree"][1] == {"name": "a.py", "path": "small/a.py", "type": "file", **one["files"]["small/a.py"]}
    store = open_store()
    try:
        capped = repo_stats(store, cwd=str(repo), max_files=5, depth=0)
        assert capped["file_count"] == 73 and capped["files_shown"] == {"shown": 5, "of": 73}
        assert "children" not in capped["tree"][0] and capped["tree"][0]["entries"] == 3
    finally:
        store.close()
