"""The recipes in examples/ run as written: every `hansard` command of their
shell blocks, on the demo, through the alias their README sets up. A block whose first line is
`# needs: ...` (a PostgreSQL server, Claude Code's CLI, the semantic extra) is shown, not run."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def commands(page: Path) -> list[str]:
    out = []
    for block in re.findall(r"```sh\n(.*?)```", page.read_text(), flags=re.S):
        lines = block.splitlines()
        if lines and lines[0].startswith("# needs:"):
            continue
        for line in lines:
            line = re.split(r"\s{2,}#", line, maxsplit=1)[0].strip()
            if line.startswith("hansard ") and not line.startswith("hansard demo"):
                out.append(line)
    return out


PAGES = sorted(p for p in EXAMPLES.glob("*.md") if p.name != "README.md")


def test_the_four_recipes_are_listed() -> None:
    index = (EXAMPLES / "README.md").read_text()
    names = {p.name for p in PAGES}
    assert names == {"who-wrote-this-function.md", "what-did-we-decide-about-x.md", "set-it-up-for-my-team.md",
                     "use-it-from-my-agent.md"}
    assert all(f"({n})" in index for n in names)
    assert "examples/" in (EXAMPLES.parent / "README.md").read_text()


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    where = tmp_path_factory.mktemp("examples")
    r = subprocess.run([sys.executable, "-m", "hansard", "demo"], cwd=where, capture_output=True, text=True,
                       timeout=300, env={**os.environ, "HOME": str(where)})
    assert r.returncode == 0, r.stderr
    return where / "hansard-demo" / "upload-service"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.stem)
def test_every_command_of_a_recipe_runs_on_the_demo(page: Path, demo: Path) -> None:
    cmds = commands(page)
    if page.stem != "set-it-up-for-my-team":
        assert len(cmds) >= 4, cmds
    for cmd in cmds:
        script = f'shopt -s expand_aliases\nalias hansard="$PWD/../hansard"\n{cmd}\n'
        r = subprocess.run(["bash", "-c", script], cwd=demo, capture_output=True, text=True, timeout=120)
        assert r.returncode == 0 and r.stdout.strip(), (cmd, r.returncode, r.stdout, r.stderr)
        assert "Traceback" not in r.stderr, (cmd, r.stderr)
