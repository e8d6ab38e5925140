"""The VS Code extension (editors/vscode): its TypeScript compiles with tsc, node's test runner
passes on its glue, and `vsce package` makes a .vsix that holds the compiled extension and the
language client it loads at run time."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import zipfile
from pathlib import Path

import pytest

EXT = Path(__file__).resolve().parents[1] / "editors" / "vscode"

pytestmark = pytest.mark.slow


def _npm() -> str:
    npm = shutil.which("npm")
    if npm is None or shutil.which("node") is None:
        if os.environ.get("CI"):
            pytest.fail("node/npm are missing in CI (.ci/run installs them)")
        pytest.skip("node and npm are not installed")
    if not (EXT / "node_modules" / ".bin" / "tsc").exists():
        subprocess.run([npm, "ci", "--no-audit", "--no-fund"], cwd=EXT, check=True, capture_output=True, timeout=600)
    return npm


def test_extension_compiles_and_its_glue_tests_pass() -> None:
    npm = _npm()
    out = subprocess.run([npm, "test"], cwd=EXT, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "# fail 0" in out.stdout and "# pass 9" in out.stdout


def test_vsix_holds_the_extension_and_the_language_client(tmp_path: Path) -> None:
    npm = _npm()
    subprocess.run([npm, "run", "compile"], cwd=EXT, check=True, capture_output=True, timeout=300)
    vsix = tmp_path / "hansard.vsix"
    vsce = EXT / "node_modules" / ".bin" / "vsce"
    out = subprocess.run([str(vsce), "package", "-o", str(vsix)], cwd=EXT, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr
    with zipfile.ZipFile(vsix) as z:
        names = set(z.namelist())
        manifest = json.loads(z.read("extension/package.json"))
    assert "extension/" + manifest["main"].removeprefix("./") in names
    assert "extension/node_modules/vscode-languageclient/package.json" in names
    assert not any(n.startswith("extension/src/") or n.startswith("extension/out/test/") for n in names)
    assert {c["command"] for c in manifest["contributes"]["commands"]} == {
        "hansard.explainLine", "hansard.openConversation", "hansard.restart"}
