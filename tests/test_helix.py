"""The Helix set-up (editors/helix/) without Helix: the language server command and arguments
that ``languages.toml`` configures are started over stdio by pytest-lsp's client, which
introduces itself as Helix does (Helix's initialize: hover in Markdown, inlay hints without
refresh, no code lens, no ``window/showDocument``, position encodings UTF-8 first), sends the
``config`` table as ``initializationOptions`` and again as ``workspace/didChangeConfiguration``
(as Helix does after ``initialized``), then asks for the inlay hints of a file an agent edited
and for hovers. The capabilities follow helix-lsp/src/client.rs (``Client::initialize``).

Helix itself is not installed here (no Debian 12 package), so this is the closest check of
the set-up: the exact command line the snippet configures, and the requests Helix makes."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib
from datetime import datetime
from pathlib import Path

import pytest
from lsprotocol import types as T
from pytest_lsp import ClientServerConfig

from fixtures_repos.writers import ClaudeWriter
from tests.helpers import run_cli

pytestmark = pytest.mark.anyio

ROOT = Path(__file__).resolve().parents[1]
HELIX = ROOT / "editors" / "helix"
SID = "9e1c2b7a-3d4f-4e5a-8b6c-7d8e9f0a1b2c"
HUMAN_DATE = "2026-11-20T08:00:00+00:00"
AGENT_COMMIT_DATE = "2026-11-20T10:00:00+00:00"
AGENT_LINE = '    message = f"Bonjour {name} — ça va ✓"'


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def languages() -> dict:
    return tomllib.loads((HELIX / "languages.toml").read_text())


def server_entry() -> dict:
    return languages()["language-server"]["hansard"]


def helix_capabilities() -> T.ClientCapabilities:
    """What Helix declares in its initialize request (the parts a server can act on)."""
    return T.ClientCapabilities(
        workspace=T.WorkspaceClientCapabilities(
            configuration=True,
            did_change_configuration=T.DidChangeConfigurationClientCapabilities(dynamic_registration=False),
            workspace_folders=True,
            apply_edit=True,
            execute_command=T.ExecuteCommandClientCapabilities(dynamic_registration=False),
            inlay_hint=T.InlayHintWorkspaceClientCapabilities(refresh_support=False),
            did_change_watched_files=T.DidChangeWatchedFilesClientCapabilities(
                dynamic_registration=True, relative_pattern_support=False),
        ),
        text_document=T.TextDocumentClientCapabilities(
            hover=T.HoverClientCapabilities(content_format=[T.MarkupKind.Markdown]),
            inlay_hint=T.InlayHintClientCapabilities(dynamic_registration=False),
            publish_diagnostics=T.PublishDiagnosticsClientCapabilities(version_support=True),
        ),
        window=T.WindowClientCapabilities(work_done_progress=True),
        general=T.GeneralClientCapabilities(position_encodings=[
            T.PositionEncodingKind.Utf8, T.PositionEncodingKind.Utf32, T.PositionEncodingKind.Utf16]),
    )


def git(repo: Path, *args: str, date: str = HUMAN_DATE) -> None:
    env = dict(os.environ, GIT_AUTHOR_DATE=date, GIT_COMMITTER_DATE=date)
    subprocess.run(["git", *args], cwd=repo, env=env, check=True, capture_output=True)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A person's greet() whose body a Claude Code session rewrote (a line with non-ASCII
    text: Helix counts positions in UTF-8), committed and indexed."""
    r = tmp_path / "repo"
    (r / "app").mkdir(parents=True)
    git(r, "init", "-q", "-b", "main")
    (r / "app" / "greet.py").write_text("def greet(name):\n    return name\n")
    git(r, "add", "-A")
    git(r, "commit", "-qm", "greet")
    w = ClaudeWriter(Path(os.environ["CLAUDE_CONFIG_DIR"]), r.resolve(), SID, datetime(2026, 11, 20, 9, 0, 0))
    w.prompt("greet in French, with a check mark")
    w.edit(r.resolve() / "app" / "greet.py", "    return name\n", f"{AGENT_LINE}\n    return message\n")
    w.say("done")
    git(r, "commit", "-qam", "French greeting", date=AGENT_COMMIT_DATE)
    rc, _, err = run_cli("index")
    assert rc == 0, err
    return r


def command_line() -> list[str]:
    """languages.toml's command and args; the command is looked up on PATH as Helix does, with
    this interpreter's scripts folder first (where `pip install` put `hansard`)."""
    entry = server_entry()
    path = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
    exe = shutil.which(entry["command"], path=path)
    if exe is None:
        reason = f"{entry['command']!r} (languages.toml's command) is not installed beside {sys.executable}"
        if os.environ.get("CI"):
            pytest.fail(reason, pytrace=False)
        pytest.skip(reason)
    return [exe, *entry["args"]]


def test_languages_toml_adds_hansard_last_to_each_language() -> None:
    conf = languages()
    entry = server_entry()
    assert (entry["command"], entry["args"]) == ("hansard", ["lsp"])
    # Helix shows no code lens: the marks must go to inlay hints.
    assert entry["config"]["marks"] == "inlay" and float(entry["config"]["pollSeconds"]) > 0
    assert conf["language"], "no [[language]] entries"
    for lang in conf["language"]:
        servers = lang["language-servers"]
        assert servers[-1] == "hansard" and servers.count("hansard") == 1, lang


def test_config_snippet_turns_inlay_hints_on_and_the_readme_says_the_same() -> None:
    conf = tomllib.loads((HELIX / "config.toml").read_text())
    assert conf["editor"]["lsp"]["display-inlay-hints"] is True
    readme = (ROOT / "README.md").read_text()
    helix = readme[readme.index("**Helix**"):]
    helix = helix[:helix.index("\n## ")]
    assert "editors/helix/languages.toml" in helix
    assert "[editor.lsp]\ndisplay-inlay-hints = true" in helix


async def test_helix_gets_inlay_hints_and_hovers(repo: Path) -> None:
    argv = command_line()
    config = server_entry()["config"]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    client = await ClientServerConfig(server_command=argv, server_env=env).start()
    refreshes: list[str] = []

    @client.feature(T.WORKSPACE_INLAY_HINT_REFRESH)
    def _refresh(params: None) -> None:
        refreshes.append("inlay")

    try:
        result = await client.initialize_session(T.InitializeParams(
            capabilities=helix_capabilities(), process_id=os.getpid(), root_uri=repo.as_uri(),
            root_path=str(repo), workspace_folders=[T.WorkspaceFolder(uri=repo.as_uri(), name="repo")],
            initialization_options=config, client_info=T.ClientInfo(name="helix", version="25.07.1")))
        caps = result.capabilities
        assert caps.hover_provider and caps.inlay_hint_provider
        assert caps.position_encoding == T.PositionEncodingKind.Utf8  # Helix's first choice
        client.workspace_did_change_configuration(T.DidChangeConfigurationParams(settings=config))

        path = repo / "app" / "greet.py"
        text = path.read_text()
        lines = text.splitlines()
        assert lines[1] == AGENT_LINE
        uri = path.as_uri()
        client.text_document_did_open(T.DidOpenTextDocumentParams(T.TextDocumentItem(
            uri=uri, language_id="python", version=0, text=text)))

        # Helix asks for the hints of the lines in view.
        got = await client.text_document_inlay_hint_async(T.InlayHintParams(
            T.TextDocumentIdentifier(uri), T.Range(T.Position(0, 0), T.Position(len(lines), 0))))
        assert [(h.position.line, h.label) for h in got] == [
            (1, f'Claude Code · {SID[:8]} · "greet in French, with a check mark"')]
        # At the end of the line, counted in the negotiated encoding (UTF-8 bytes).
        assert got[0].position.character == len(AGENT_LINE.encode("utf-8"))

        agent = await client.text_document_hover_async(T.HoverParams(T.TextDocumentIdentifier(uri), T.Position(1, 4)))
        assert agent is not None and agent.contents.kind == T.MarkupKind.Markdown
        for part in (f"**Claude Code** · `agent` · session `{SID[:13]}`", "> greet in French, with a check mark",
                     "Edit · tool call `"):
            assert part in agent.contents.value, (part, agent.contents.value)
        human = await client.text_document_hover_async(T.HoverParams(T.TextDocumentIdentifier(uri), T.Position(0, 0)))
        assert human is not None and human.contents.value.startswith("**human**")
        assert refreshes == []  # Helix declares no refresh support
    finally:
        await client.shutdown_session()
        await client.stop()
