"""Memories: discovery, versions, search_memories, get_memory and `hansard memory`."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from fixtures_repos.writers import Transcript
from hansard import agents
from hansard.answers.memories import get_memory, search_memories
from hansard.errors import NotFound
from hansard.ingest.memory_files import scan_memories
from hansard.ingest.run import index
from hansard.store import open_store
from tests.helpers import cli_json, run_cli


def _home(agent: str) -> Path:
    return Path(agents.by_name(agent).home())


def _git_repo(path: Path) -> Path:
    path.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(path)], check=True)
    return path


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    ch, cx, gh = _home("claude_code"), _home("codex"), _home("gemini")
    for d in (ch / "rules", cx, gh, ch / "projects" / "-work-lost" / "memory"):
        d.mkdir(parents=True, exist_ok=True)
    (ch / "CLAUDE.md").write_text("# My global rules\n\nAlways run the formatter before committing.\n")
    (ch / "rules" / "style.md").write_text("# Style\nPrefer small functions.\n")
    (cx / "AGENTS.md").write_text("# Codex defaults\nUse ripgrep, never grep -r.\n")
    (gh / "GEMINI.md").write_text("Gemini: answer tersely.\n")
    (ch / "projects" / "-work-lost" / "memory" / "MEMORY.md").write_text(
        "# Auto memory\nThe staging database is slow on Mondays.\n")
    app = _git_repo(tmp_path / "app")
    (app / "CLAUDE.md").write_text("# App guidance\n\nline 3\nThe release checklist lives in docs/RELEASE.md.\nline 5\n")
    (app / ".gitignore").write_text("CLAUDE.local.md\nbuild/\n")
    (app / "CLAUDE.local.md").write_text("My sandbox uses port 8433 for the staging proxy.\n")
    (app / ".claude" / "rules").mkdir(parents=True)
    (app / ".claude" / "rules" / "tests.md").write_text("# Tests\nRun pytest with -x before pushing.\n")
    (app / ".claude" / "skills" / "deploy").mkdir(parents=True)
    (app / ".claude" / "skills" / "deploy" / "SKILL.md").write_text("# Deploy skill\nrelease checklist steps\n")
    (app / "services" / "api").mkdir(parents=True)
    (app / "services" / "api" / "AGENTS.md").write_text("# API service\nThe api release checklist differs: tag first.\n")
    (app / "build").mkdir()
    (app / "build" / "AGENTS.md").write_text("ignored build output release checklist\n")
    (app / "GEMINI.md").write_text("# Gemini project notes\nUse the release checklist.\n")
    other = _git_repo(tmp_path / "other")
    (other / "AGENTS.md").write_text("# Other project\nThe release checklist is in the wiki.\n")
    monkeypatch.chdir(app)
    return {"app": app, "other": other, "claude": ch}


def _by_path(db) -> dict[str, dict]:
    return {r["path"]: dict(r) for r in db.db.execute("SELECT * FROM memories")}


def test_discovery_kinds_sources_scopes(world) -> None:
    db = open_store()
    scan_memories(db, cwd=str(world["app"]))
    found = _by_path(db)
    app, ch = world["app"], world["claude"]
    want = {
        str(ch / "CLAUDE.md"): ("claude_md", "claude_code", "global"),
        str(ch / "rules" / "style.md"): ("claude_rules", "claude_code", "global"),
        str(_home("codex") / "AGENTS.md"): ("agents_md", "codex", "global"),
        str(_home("gemini") / "GEMINI.md"): ("gemini_md", "gemini", "global"),
        str(ch / "projects" / "-work-lost" / "memory" / "MEMORY.md"): ("claude_auto_memory", "claude_code", "unkeyed"),
        str(app / "CLAUDE.md"): ("claude_md", "claude_code", "project"),
        str(app / "CLAUDE.local.md"): ("claude_local", "claude_code", "project"),
        str(app / ".claude" / "rules" / "tests.md"): ("claude_rules", "claude_code", "project"),
        str(app / "services" / "api" / "AGENTS.md"): ("agents_md", "codex", "project"),
        str(app / "GEMINI.md"): ("gemini_md", "gemini", "project"),
    }
    assert {p: (r["kind"], r["source"], r["scope"]) for p, r in found.items()} == want  # no skill, no build/
    assert found[str(app / "CLAUDE.md")]["title"] == "App guidance"


def test_search_hits_and_repo_ranking(world, tmp_path: Path) -> None:
    db = open_store()
    # the other repository is known from an indexed session
    t = Transcript("in-other", cwd=str(world["other"]))
    t.user("hello")
    t.write(tmp_path / "tr")
    index(db, [tmp_path / "tr"])
    scan_memories(db, cwd=str(world["app"]), force=True)
    ans = search_memories(db, "release checklist")
    paths = {h["path"] for h in ans["results"]}
    assert str(world["other"] / "AGENTS.md") in paths and str(world["app"] / "CLAUDE.md") in paths
    hit = next(h for h in ans["results"] if h["path"] == str(world["app"] / "CLAUDE.md"))
    assert {"memory_id", "kind", "source", "scope", "title", "lineStart", "lineEnd"} <= set(hit)
    assert (hit["lineStart"], hit["lineEnd"]) == (4, 4) and "«release» «checklist»" in hit["excerpt"]
    assert "matched_text" not in hit and "line_start" not in hit
    assert all(v not in (None, "", []) for h in ans["results"] for v in h.values())  # empty fields omitted
    scoped = search_memories(db, "release checklist", repo=str(world["app"]))
    sp = {h["path"] for h in scoped["results"]}
    assert str(world["other"] / "AGENTS.md") not in sp and str(world["app"] / "CLAUDE.md") in sp
    assert all(h["scope"] in ("project", "global", "unkeyed") for h in scoped["results"])
    glob = search_memories(db, "formatter", repo=str(world["app"]))
    assert [h["scope"] for h in glob["results"]] == ["global"]
    assert {h["source"] for h in search_memories(db, "release checklist", provider="codex")["results"]} == {"codex"}
    auto = search_memories(db, "staging", source="auto_memory")["results"]
    assert [h["kind"] for h in auto] == ["claude_auto_memory"]


def test_a_hit_names_the_matching_lines_not_the_section(world) -> None:
    db = open_store()
    body = "\n".join(f"- rule {i}: keep the release notes short" for i in range(200))
    (world["app"] / "AGENTS.md").write_text("# Long section\n" + body + "\nThe zeppelin deploy needs a pilot.\n")
    scan_memories(db, cwd=str(world["app"]), force=True)
    hit = next(h for h in search_memories(db, "zeppelin pilot")["results"] if h["path"].endswith("app/AGENTS.md"))
    assert (hit["lineStart"], hit["lineEnd"]) == (202, 202)
    shown = get_memory(db, hit["memory_id"], line=hit["lineStart"])
    assert shown["contentLineStart"] <= hit["lineStart"] <= shown["contentLineEnd"]
    # a match over adjacent lines spans them, and never more than a few lines
    wide = next(h for h in search_memories(db, "release notes rule")["results"] if h["path"].endswith("app/AGENTS.md"))
    assert 1 <= wide["lineEnd"] - wide["lineStart"] + 1 <= 8


def test_versions_are_kept(world) -> None:
    db = open_store()
    scan_memories(db, cwd=str(world["app"]))
    f = world["app"] / "CLAUDE.md"
    mid = next(h["memory_id"] for h in search_memories(db, "release checklist")["results"] if h["path"] == str(f))
    f.write_text("# App guidance\nThe changelog is generated; never edit it by hand.\n")
    os.utime(f, ns=(1, 1))
    scan_memories(db, cwd=str(world["app"]))
    assert not [h for h in search_memories(db, "release checklist")["results"] if h["path"] == str(f)]
    now = get_memory(db, mid)
    assert "changelog is generated" in now["content"] and now["version"] == 2 and len(now["versions"]) == 2
    old = get_memory(db, mid + "@1")
    assert "release checklist" in old["content"]
    f.unlink()
    scan_memories(db, cwd=str(world["app"]))
    assert get_memory(db, mid)["missing"] is True
    with pytest.raises(NotFound):
        get_memory(db, "mem_nope")


def test_get_memory_windows_page_without_loss(world) -> None:
    f = world["app"] / "AGENTS.md"
    lines = [f"rule {i}: " + "x" * (i % 50) for i in range(1, 800)]
    text = "\n".join(lines) + "\n"
    f.write_text(text)
    db = open_store()
    scan_memories(db, cwd=str(world["app"]), force=True)
    mid = db.db.execute("SELECT memory_id FROM memories WHERE path=?", (str(f),)).fetchone()[0]
    parts, off, starts = [], 0, []
    while True:
        w = get_memory(db, mid, offset=off)
        parts.append(w["content"])
        starts.append(w["contentLineStart"])
        assert w["content"].startswith("rule ")  # starts at a complete line
        if "nextOffset" not in w:
            break
        off = w["nextOffset"]
    assert "".join(parts) == text and len(parts) > 2 and starts == sorted(starts)
    centred = get_memory(db, mid, line=400)
    assert centred["contentLineStart"] < 400 < centred["contentLineEnd"]
    mid_line = get_memory(db, mid, offset=text.index("rule 300:") + 3, line=5)  # offset wins, snapped to its line
    assert mid_line["contentLineStart"] == 300 and mid_line["content"].startswith("rule 300:")


def test_one_very_long_line_pages_too(world) -> None:
    f = world["app"] / "GEMINI.md"
    text = "y" * 20000
    f.write_text(text)
    db = open_store()
    scan_memories(db, cwd=str(world["app"]), force=True)
    mid = db.db.execute("SELECT memory_id FROM memories WHERE path=?", (str(f),)).fetchone()[0]
    parts, off = [], 0
    while True:
        w = get_memory(db, mid, offset=off)
        parts.append(w["content"])
        if "nextOffset" not in w:
            break
        assert w["nextOffset"] > off
        off = w["nextOffset"]
    assert "".join(parts) == text


def test_index_scans_memories_and_cli(world, tmp_path: Path) -> None:
    db = open_store()
    index(db, [tmp_path / "nothing"])
    assert db.db.execute("SELECT COUNT(*) FROM memories").fetchone()[0] >= 9
    out = cli_json("memory", "search", "release", "checklist")
    assert out["results"] and all("memory_id" in h for h in out["results"])
    full = {"memory_id", "kind", "source", "scope", "title", "path", "repo", "rel_path", "updated_at", "missing",
            "lineStart", "lineEnd", "excerpt", "score"}
    assert all(set(h) == full for h in out["results"])  # --json keeps the full record, empty fields as null
    mid = out["results"][0]["memory_id"]
    shown = cli_json("memory", "show", mid, "--line", "2")
    assert shown["memory_id"] == mid and shown["contentLineStart"] >= 1
    code, text, _ = run_cli("memory", "search", "release")
    assert code == 0 and "mem_" in text
    code, _, err = run_cli("memory", "show", "mem_missing")
    assert code == 10 and "not_found" in err
