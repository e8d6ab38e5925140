"""The notice for a missing extra names a command that works for how hansard was installed:
hansard is not on PyPI, so `pip install 'hansard[semantic]'` fails for anyone who installed
from a clone."""

from __future__ import annotations

import json
import sys
from importlib import metadata
from typing import Any

import pytest

from hansard import install


class FakeDist:
    requires = ["orjson>=3.10,<4", "wordllama==0.4.0.post1; extra == 'semantic'", "numpy>=2; extra == \"semantic\"",
                "psycopg[binary]<4,>=3.2; extra == 'team'"]

    def __init__(self, direct: dict[str, Any] | None) -> None:
        self.direct = direct

    def read_text(self, name: str) -> str | None:
        return json.dumps(self.direct) if self.direct is not None and name == "direct_url.json" else None


def _as(monkeypatch: pytest.MonkeyPatch, direct: dict[str, Any] | None, prefix: str = "/venv") -> None:
    monkeypatch.setattr(metadata, "distribution", lambda name: FakeDist(direct))
    monkeypatch.setattr(sys, "prefix", prefix)


def test_editable_install_from_a_clone(monkeypatch: pytest.MonkeyPatch) -> None:
    _as(monkeypatch, {"url": "file:///home/a/src/hansard", "dir_info": {"editable": True}})
    cmd = install.install_command("semantic")
    assert cmd.endswith("-m pip install -e '/home/a/src/hansard[semantic]'") and sys.executable in cmd


def test_install_from_a_folder_or_a_wheel(monkeypatch: pytest.MonkeyPatch) -> None:
    _as(monkeypatch, {"url": "file:///home/a/src/hansard", "dir_info": {}})
    assert install.install_command("team").endswith("-m pip install '/home/a/src/hansard[team]'")
    _as(monkeypatch, {"url": "file:///tmp/dist/hansard-0.1.0-py3-none-any.whl", "archive_info": {}})
    assert install.install_command("semantic").endswith("-m pip install '/tmp/dist/hansard-0.1.0-py3-none-any.whl[semantic]'")


def test_pipx_injects_the_extras_requirements(monkeypatch: pytest.MonkeyPatch) -> None:
    _as(monkeypatch, {"url": "file:///home/a/src/hansard", "dir_info": {}}, prefix="/home/a/.local/share/pipx/venvs/hansard")
    assert install.install_command("semantic") == "pipx inject hansard wordllama==0.4.0.post1 'numpy>=2'"
    assert install.hint("team") == "install the team extra: pipx inject hansard 'psycopg[binary]<4,>=3.2'"


def test_the_embed_command_says_how_to_install_it_here(monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.helpers import run_cli

    monkeypatch.setenv("HANSARD_EMBEDDER", "wordllama")
    import hansard.answers.search.meaning as meaning

    def missing() -> Any:
        raise ImportError("no wordllama")

    monkeypatch.setattr(meaning, "WordLlamaEmbedder", missing)
    monkeypatch.setattr(meaning, "_EMBEDDER", {})
    code, _, err = run_cli("embed")
    assert code == 27 and "[not_installed]" in err and "pip install 'hansard[semantic]'" not in err, err
    assert f"install the semantic extra: {install.install_command('semantic')}" in err
