"""Files hansard writes into a folder it does not own never go through a link planted there
(hansard.files.privfile): the demo's folder, an agent's config folder (`mcp install --write`), and
`trace export --out DIR` (tests/test_agent_trace.py). A link at the file's name is replaced by
the file; the link's target is left as it was."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

from hansard.files import privfile

KEEP = "the victim's own content\n"


def _victim(tmp_path: Path, name: str) -> Path:
    v = tmp_path / "elsewhere" / name
    v.parent.mkdir(exist_ok=True)
    v.write_text(KEEP)
    return v


def test_write_file_replaces_a_planted_link_and_leaves_its_target(tmp_path: Path) -> None:
    victim = _victim(tmp_path, "bashrc")
    target = tmp_path / "out.json"
    target.symlink_to(victim)
    privfile.write_file(target, b"{}\n")
    assert victim.read_text() == KEEP
    assert not target.is_symlink() and target.read_text() == "{}\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["elsewhere", "out.json"]  # no temporary left


def test_write_private_is_owner_only(tmp_path: Path) -> None:
    privfile.write_private(tmp_path / "secret", b"x")
    assert (tmp_path / "secret").stat().st_mode & 0o777 == 0o600


def test_the_demo_never_writes_through_a_planted_link(tmp_path: Path) -> None:
    from hansard.demo import build

    story = json.loads((Path(__file__).resolve().parents[1] / "hansard" / "demo" / "data" / "story.json").read_text())
    root = tmp_path / "demo"
    # Every file the demo writes outside git: plant a link at each transcript's name.
    from hansard import agents
    from hansard.demo import point_homes

    saved = dict(os.environ)
    try:
        homes = point_homes(root)
        repo = root / story["repo"]
        project = re.sub(r"[^A-Za-z0-9]", "-", str(repo))
        planted = []
        for i, t in enumerate(story["transcripts"]):
            dest = homes[agents.resolve(t["home"]) or t["home"]] / t["path"].replace("{project}", project)
            dest.parent.mkdir(parents=True, exist_ok=True)
            victim = _victim(tmp_path, f"t{i}")
            dest.symlink_to(victim)
            planted.append((dest, victim))
        build(root)
    finally:
        os.environ.clear()
        os.environ.update(saved)
    for dest, victim in planted:
        assert victim.read_text() == KEEP
        assert not dest.is_symlink() and dest.stat().st_size > 0


def test_mcp_install_never_writes_through_a_planted_link(tmp_path: Path) -> None:
    from hansard.mcp.install import config_file, install

    path = config_file("codex")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text('model = "o3"\n')
    victim = _victim(tmp_path, "codex")
    # The backup's name is the time of day: a link at every name it could take this minute.
    import time

    stamp = time.strftime("%Y%m%d%H%M")
    links = [path.with_name(f"{path.name}.hansard-backup-{stamp}{s:02d}") for s in range(60)]
    links.append(path.with_suffix(path.suffix + ".hansard-tmp"))
    for link in links:
        link.symlink_to(victim)
    out = install("codex", write=True)
    assert out["written"] and victim.read_text() == KEEP
    assert "hansard" in path.read_text() and 'model = "o3"' in path.read_text()
    assert out["backup"] and Path(out["backup"]).read_text() == 'model = "o3"\n'
