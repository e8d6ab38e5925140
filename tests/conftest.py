"""Test isolation: every agent home and the store point into a temporary folder, so no test
ever reads or writes the real home folders. Git runs with fixed identities and dates.

The real transcript samples live outside the repository (``../shared/samples``, or
``$HANSARD_SAMPLES``). Without them every test that reads them is skipped with one line saying
so, unless ``HANSARD_REQUIRE_SAMPLES=1`` (CI), when it fails instead."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]
SAMPLES = Path(os.environ.get("HANSARD_SAMPLES", REPO_ROOT.parent / "shared" / "samples"))


@pytest.fixture(autouse=True)
def _isolated_env(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path_factory.mktemp("home")
    for var, sub in {
        "HOME": "",
        "HANSARD_HOME": "hansard",
        "XDG_DATA_HOME": ".local/share",
        "XDG_CONFIG_HOME": ".config",
        "CLAUDE_CONFIG_DIR": ".claude",
        "CODEX_HOME": ".codex",
        "GEMINI_CLI_HOME": ".gemini-home",
        "CURSOR_HOME": ".cursor",
        "CURSOR_CONFIG_DIR": ".config/Cursor/User",
        "OPENCODE_DATA_DIR": ".local/share/opencode",
        "COPILOT_HOME": ".copilot",
    }.items():
        monkeypatch.setenv(var, str(home / sub) if sub else str(home))
    monkeypatch.delenv("AIDER_CHAT_HISTORY_FILE", raising=False)
    for var, val in {
        "GIT_AUTHOR_NAME": "Test Author",
        "GIT_AUTHOR_EMAIL": "author@example.com",
        "GIT_COMMITTER_NAME": "Test Committer",
        "GIT_COMMITTER_EMAIL": "committer@example.com",
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_CONFIG_NOSYSTEM": "1",
        "TZ": "UTC",
    }.items():
        monkeypatch.setenv(var, val)
    return home


def require_samples() -> Path:
    """The samples folder; skips the calling test when it is absent (fails under CI's
    ``HANSARD_REQUIRE_SAMPLES=1``)."""
    if not SAMPLES.is_dir():
        reason = f"shared samples not found at {SAMPLES} (set HANSARD_SAMPLES)"
        if os.environ.get("HANSARD_REQUIRE_SAMPLES") == "1":
            pytest.fail(reason + "; HANSARD_REQUIRE_SAMPLES=1", pytrace=False)
        pytest.skip(reason)
    return SAMPLES


@pytest.fixture(scope="session")
def samples() -> Path:
    return require_samples()
