"""The scenario fixtures themselves: each builds, its repositories are sound, its transcripts
are well-formed JSON in the agents' own layouts, and its expectations cover every line and
agree with git blame and with the ledger of edits (see fixtures_repos.check.self_check)."""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path

import pytest

from fixtures_repos.check import git, self_check
from fixtures_repos.gitrepo import git_env
from fixtures_repos.scenarios import KINDS, SCENARIOS, split_lines


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_scenario_builds_soundly(name: str, tmp_path: Path) -> None:
    scn = SCENARIOS[name](tmp_path)
    assert scn.name == name
    for repo in scn.repos:
        out = subprocess.run(["git", "fsck", "--strict", "--no-progress"], cwd=repo, env=git_env(),
                             capture_output=True, text=True)
        assert out.returncode == 0, f"git fsck failed in {repo}:\n{out.stdout}{out.stderr}"

    assert scn.transcripts, "a scenario without transcripts tests nothing"
    for path in scn.transcripts:
        assert any(path.is_relative_to(home) for home in scn.homes.values()), path
        text = path.read_text(encoding="utf-8")
        if path.suffix == ".json":  # Gemini's legacy chat file: one JSON document, rewritten whole
            doc = json.loads(text)
            assert {"sessionId", "projectHash", "messages"} <= set(doc)
        else:
            for n, line in enumerate(text.splitlines(), 1):
                assert isinstance(json.loads(line), dict), f"{path}:{n}"

    for meta in (p for home in scn.homes.values() for p in home.rglob("*.meta.json")):
        assert isinstance(json.loads(meta.read_text(encoding="utf-8")), dict), meta  # subagent sidecars

    for rel, expects in scn.files.items():
        data = git(scn.repo, "show", f"{scn.rev}:{rel}") if scn.rev else (scn.repo / rel).read_bytes().decode()
        assert [e.line for e in expects] == list(range(1, len(split_lines(data)) + 1)), rel
        assert all(e.kind in KINDS for e in expects)
        assert all((e.commit is None) == (e.kind == "uncommitted") for e in expects), rel
    assert self_check(scn) == []


def test_scenarios_are_deterministic(tmp_path: Path) -> None:
    """Built twice, in different folders, a scenario has the same commits and ids."""
    for name in ("rewrite_rebase_reorder_squash_fixup", "agents_subagent_edit", "gemini_relative_path"):
        a, b = SCENARIOS[name](tmp_path / "a" / name), SCENARIOS[name](tmp_path / "b" / name)
        assert a.files == b.files, name


def test_all_scenarios_build_quickly(tmp_path: Path) -> None:
    start = time.perf_counter()
    for name, build in SCENARIOS.items():
        build(tmp_path / name)
    assert time.perf_counter() - start < 30
