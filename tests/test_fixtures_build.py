"""The scenario fixtures themselves: each builds, its repositories are sound, its transcripts
are well-formed JSON in the agents' own layouts, and its expectations cover every line and
agree with git blame and with the ledger of edits (see fixtures_repos.check.self_check). And
the data `hansard demo` ships is what the writers generate now."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from fixtures_repos import demo
from fixtures_repos.check import git, self_check
from fixtures_repos.gitrepo import git_env
from fixtures_repos.scenarios import KINDS, SCENARIOS, split_lines


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_scenario_builds_soundly(name: str, tmp_path: Path) -> None:
    scn = SCENARIOS[name](tmp_path)
    assert scn.name == name
    for repo in scn.repos:
        out = subprocess.run(["git", "fsck", "--strict", "--no-progress"], cwd=repo, env=git_env(),
                             capture_output=True, text=True)
        assert out.returncode == 0, f"git fsck failed in {repo}:\n{out.stdout}{out.stderr}"

    assert scn.transcripts or scn.imports, "a scenario without transcripts tests nothing"
    for path in [*scn.transcripts, *scn.imports]:  # imports: web-chat exports, read by `hansard import`
        assert path in scn.imports or any(path.is_relative_to(home) for home in scn.homes.values()), path
        assert path.stat().st_size > 0, path
        if path.suffix == ".json":
            doc = json.loads(path.read_text(encoding="utf-8"))
            if path.name.startswith("session-"):  # Gemini's legacy chat file: one JSON document, rewritten whole
                assert {"sessionId", "projectHash", "messages"} <= set(doc)
        elif path.suffix == ".jsonl":
            for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                assert isinstance(json.loads(line), dict), f"{path}:{n}"
        # Other formats (Aider's Markdown log, Cursor's state.vscdb) are checked by their scenario's answers.

    for meta in (p for home in scn.homes.values() for p in home.rglob("*.meta.json")):
        assert isinstance(json.loads(meta.read_text(encoding="utf-8")), dict), meta  # subagent sidecars

    for rel, expects in scn.files.items():
        data = git(scn.repo, "show", f"{scn.rev}:{rel}") if scn.rev else (scn.repo / rel).read_bytes().decode()
        assert [e.line for e in expects] == list(range(1, len(split_lines(data)) + 1)), rel
        assert all(e.kind in KINDS for e in expects)
        assert all((e.commit is None) == (e.kind == "uncommitted") for e in expects), rel
    assert self_check(scn) == []


@pytest.mark.slow
def test_scenarios_are_deterministic(tmp_path: Path) -> None:
    """Built twice, in different folders, a scenario has the same commits and ids."""
    for name in ("rewrite_rebase_reorder_squash_fixup", "agents_subagent_edit", "gemini_relative_path"):
        a, b = SCENARIOS[name](tmp_path / "a" / name), SCENARIOS[name](tmp_path / "b" / name)
        assert a.files == b.files, name


def test_shipped_demo_data_is_what_the_writer_generates() -> None:
    """hansard/demo/data is checked in so that the wheel needs no fixtures; regenerate it with
    `python -m fixtures_repos.demo hansard/demo/data` when the story or the writers change."""
    shipped = Path(__file__).resolve().parents[1] / "hansard" / "demo" / "data"
    on_disk = {p.relative_to(shipped).as_posix(): p.read_text() for p in sorted(shipped.rglob("*")) if p.is_file()}
    assert on_disk == demo.generate()


def test_demo_builds_the_story_from_the_shipped_data(tmp_path: Path) -> None:
    """The repository `hansard demo` builds from the data has the writer's commits, and the
    transcripts land where each agent keeps them, naming the new repository's path."""
    from hansard.demo import build

    d = build(tmp_path / "demo")
    log = git(d.repo, "log", "--reverse", "--format=%an <%ae>|%aI|%s").splitlines()
    commits = [(c["author"], c["date"], c["message"]) for c in d.story["commits"]]
    assert [tuple(line.split("|")) for line in log] == commits
    assert git(d.repo, "status", "--porcelain") == ""
    transcripts = sorted((tmp_path / "demo" / "home").rglob("*.jsonl"))
    assert len(transcripts) == len(d.story["transcripts"]) == 2
    for path in transcripts:
        text = path.read_text()
        assert demo.PLACEHOLDER not in text and f'"cwd": "{d.repo}"' in text
