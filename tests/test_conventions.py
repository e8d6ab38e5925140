"""What people expect of a command-line tool: `-V`, shell completion
generated from the argparse tree, and a licence file that says what pyproject says."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import run_cli

ROOT = Path(__file__).resolve().parents[1]


def test_dash_v_is_version() -> None:
    from hansard import __version__

    for flag in ("-V", "--version"):
        r = subprocess.run([sys.executable, "-m", "hansard", flag], capture_output=True, text=True, cwd=ROOT)
        assert r.returncode == 0 and r.stdout.strip() == f"hansard {__version__}", r


def test_licence_is_mit_as_pyproject_says() -> None:
    text = (ROOT / "LICENSE").read_text()
    assert text.startswith("MIT License") and "hansard contributors" in text
    assert 'license = "MIT"' in (ROOT / "pyproject.toml").read_text()


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_completion_scripts_name_every_command(shell: str) -> None:
    code, out, err = run_cli("completion", shell)
    assert code == 0, err
    for command in ("why", "log", "context", "history", "mcp", "completion", "team"):
        assert command in out, (shell, command)


def _complete(script: Path, cwd: Path, *words: str) -> list[str]:
    """What bash offers for the last of ``words`` after sourcing ``script``."""
    line = " ".join(("hansard", *words))
    prog = (f"source {script}\n"
            f"COMP_WORDS=(hansard {' '.join(repr(w) for w in words)}); COMP_CWORD={len(words)}\n"
            f"COMP_LINE={line!r}; COMP_POINT={len(line)}\n"
            f"_shtab_hansard hansard {words[-1]!r} {('hansard', *words)[-2]!r}\n"
            'printf "%s\\n" "${COMPREPLY[@]}"\n')
    r = subprocess.run(["bash", "--norc", "--noprofile", "-c", prog], capture_output=True, text=True, cwd=cwd,
                       env={**os.environ, "LC_ALL": "C"})
    assert r.returncode == 0, r.stderr
    return r.stdout.split()


@pytest.mark.skipif(shutil.which("bash") is None, reason="bash is not installed")
def test_bash_completion_sources_and_completes(tmp_path: Path) -> None:
    """The generated script sources in a real bash, registers itself for `hansard`, and offers
    subcommands, their options and, for a path, file names."""
    code, out, _ = run_cli("completion", "bash")
    assert code == 0
    script = tmp_path / "hansard.bash"
    script.write_text(out)
    r = subprocess.run(["bash", "--norc", "--noprofile", "-c", f"source {script} && complete -p hansard"],
                       capture_output=True, text=True)
    assert r.returncode == 0 and "-F _shtab_hansard hansard" in r.stdout, r
    (tmp_path / "stock.py").write_text("x = 1\n")
    assert _complete(script, tmp_path, "wh") == ["why"]
    assert set(_complete(script, tmp_path, "mcp", "")) == {"serve", "install"}
    assert _complete(script, tmp_path, "why", "--r") == ["--rev"]
    assert _complete(script, tmp_path, "why", "sto") == ["stock.py"]


def test_completion_costs_nothing_at_start_up() -> None:
    """shtab is imported by the completion command only."""
    r = subprocess.run([sys.executable, "-X", "importtime", "-m", "hansard", "-V"], capture_output=True, text=True,
                       cwd=ROOT)
    assert r.returncode == 0 and "shtab" not in r.stderr
