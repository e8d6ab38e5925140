"""`hansard lsp` against hostile transcripts and a hostile client:
a session id never names a file outside the conversations folder, a FIFO in a repository never
blocks the server, a buffer past the bound gets a notice instead of an analysis, and params of
the wrong type get a JSON-RPC error without a traceback. Real processes over stdio, real FIFOs."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

import pytest
from lsprotocol import types as T
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

from tests.helpers import run_cli
from tests.test_lsp import build_demo, hover, open_doc

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def demo(tmp_path: Path) -> Any:
    s = build_demo(tmp_path / "demo")
    assert run_cli("index")[0] == 0
    return s


@contextlib.asynccontextmanager
async def lsp(root: Path, shutdown_timeout: float = 15, **options: Any) -> AsyncIterator[LanguageClient]:
    """tests.test_lsp's server, with a bounded end: a server that does not answer the shutdown
    within ``shutdown_timeout`` (a regression that blocks it) is killed, so the test fails
    instead of hanging."""
    options.setdefault("pollSeconds", 0.2)
    config = ClientServerConfig(server_command=[sys.executable, "-m", "hansard", "lsp"], server_env=dict(os.environ))
    client = await config.start()
    await client.initialize_session(T.InitializeParams(
        capabilities=client_capabilities("visual-studio-code"), root_uri=root.as_uri(), initialization_options=options))
    try:
        yield client
    finally:
        try:
            await asyncio.wait_for(client.shutdown_session(), shutdown_timeout)
        except TimeoutError:
            client._server.kill()
        await client.stop()

EVIL_SID = "../../../../escaped"


def _hostile_transcript(folder: Path, sid: str, cwd: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    recs = [{"parentUuid": None, "isSidechain": False, "userType": "external", "cwd": cwd, "sessionId": sid,
             "version": "2.1.0", "type": "user", "uuid": "u-1", "timestamp": "2026-03-01T10:00:00.000Z",
             "message": {"role": "user", "content": "write the escape"}}]
    (folder / "hostile.jsonl").write_text("".join(json.dumps(r) + "\n" for r in recs))


async def test_a_session_id_never_names_a_file_outside_the_conversations_folder(demo: Any, tmp_path: Path) -> None:
    home = Path(os.environ["HANSARD_HOME"])
    _hostile_transcript(Path(os.environ["CLAUDE_CONFIG_DIR"]) / "projects" / "-hostile", EVIL_SID, str(demo.repo))
    assert run_cli("index")[0] == 0
    folder = home / "conversations"
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me\n")
    async with lsp(demo.repo) as client:
        first = await client.workspace_execute_command_async(T.ExecuteCommandParams(
            command="hansard.showConversation", arguments=[EVIL_SID, 0]))
        assert "write the escape" in first["text"]
        shown = Path(unquote(urlparse(first["uri"]).path))
        assert shown.parent == folder and shown.read_text() == first["text"]
        assert ".." not in shown.name and "/" not in shown.name
        # Nothing was written where the id points (the old name was HANSARD_HOME/../../../../escaped-0.md).
        assert not list(tmp_path.rglob("escaped-0.md"))
        assert not (Path("/") / "escaped-0.md").exists()
        # A link planted at the file's name is replaced, never written through.
        shown.unlink()
        shown.symlink_to(victim)
        again = await client.workspace_execute_command_async(T.ExecuteCommandParams(
            command="hansard.showConversation", arguments=[EVIL_SID, 0]))
        assert again["uri"] == first["uri"]
        assert victim.read_text() == "keep me\n"
        assert not shown.is_symlink() and shown.read_text() == first["text"]
        assert oct(shown.stat().st_mode & 0o777) == "0o600"


async def test_why_of_a_fifo_does_not_block_the_server(demo: Any) -> None:
    fifo = demo.repo / "app" / "pipe.py"
    os.mkfifo(fifo)
    async with lsp(demo.repo) as client:
        res = await asyncio.wait_for(client.workspace_execute_command_async(T.ExecuteCommandParams(
            command="hansard.why", arguments=[{"uri": fifo.as_uri(), "line": 0}])), 30)
        assert res is None
        # The server still answers others.
        uri = open_doc(client, demo.repo / "app" / "retry.py")
        text = await asyncio.wait_for(hover(client, uri, 2), 60)
        assert text is not None


async def test_a_buffer_past_the_bound_gets_a_notice(demo: Any) -> None:
    path = demo.repo / "app" / "retry.py"
    async with lsp(demo.repo, maxBufferBytes=4096) as client:
        uri = open_doc(client, path, text=path.read_text() + "# padding\n" * 1000)
        h = await client.text_document_hover_async(T.HoverParams(T.TextDocumentIdentifier(uri), T.Position(2, 0)))
        assert h is not None and "larger than 4096 bytes" in h.contents.value
        assert h.contents.kind == T.MarkupKind.PlainText
        res = await client.workspace_execute_command_async(T.ExecuteCommandParams(
            command="hansard.why", arguments=[{"uri": uri, "line": 2}]))
        assert res["error"]["code"] == "input_too_large"
        assert list(await client.text_document_inlay_hint_async(T.InlayHintParams(
            T.TextDocumentIdentifier(uri), T.Range(T.Position(0, 0), T.Position(100, 0))))) == []
        small = open_doc(client, demo.repo / "tests" / "test_retry.py")
        assert await hover(client, small, 0) is not None  # under the bound: analysed as before


async def _raw(client: Any, method: str, params: Any, timeout: float = 20) -> Any:
    """Send a request whose params pygls' typed client would refuse to build; the reply."""
    proto = client.protocol
    fut = asyncio.get_running_loop().create_future()
    msg_id = "hostile-" + method

    orig = proto._handle_response

    def grab(mid: Any, result: Any = None, error: Any = None) -> None:
        if mid == msg_id:
            if not fut.done():
                fut.set_result({"result": result, "error": error})
            return
        orig(mid, result, error)

    proto._handle_response = grab
    try:
        body = json.dumps({"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params})
        proto.writer.write(f"Content-Length: {len(body.encode())}\r\n\r\n{body}".encode())
        return await asyncio.wait_for(fut, timeout)
    finally:
        proto._handle_response = orig


async def test_wrong_typed_params_get_an_error_without_a_traceback(demo: Any) -> None:
    async with lsp(demo.repo) as client:
        uri = open_doc(client, demo.repo / "app" / "retry.py")
        got = await _raw(client, "textDocument/hover", {"textDocument": {"uri": uri}, "position": "x"})
        err = got["error"]
        assert err is not None and err.code == -32602, got
        assert "Traceback" not in str(err) and err.data is None
        bad_cmd = await _raw(client, "workspace/executeCommand", {"command": "hansard.why", "arguments": [{"uri": 5}]})
        err = bad_cmd["error"]
        assert err is not None and "Traceback" not in json.dumps({"m": err.message, "d": err.data}, default=str)
        assert err.data is None and "\n" not in err.message
        # The server is still there.
        assert await hover(client, uri, 2) is not None


async def test_a_fifo_under_dot_git_does_not_block_the_message_loop(demo: Any, tmp_path: Path) -> None:
    """The server reads .git/HEAD and its ref on the message loop: a FIFO there (a hostile
    checkout) must not stall it. (git itself, run for that checkout on the worker, may still
    wait on the FIFO: the worker is stopped with the server.)"""
    odd = tmp_path / "odd"
    (odd / ".git").mkdir(parents=True)
    os.mkfifo(odd / ".git" / "HEAD")
    (odd / "x.py").write_text("x = 1\n")
    plain = tmp_path / "plain" / "y.py"
    plain.parent.mkdir()
    plain.write_text("y = 2\n")
    async with lsp(demo.repo, shutdown_timeout=5) as client:
        try:
            uri = open_doc(client, odd / "x.py")
            pending = asyncio.ensure_future(client.text_document_hover_async(
                T.HoverParams(T.TextDocumentIdentifier(uri), T.Position(0, 0))))
            # A file outside any repository is answered on the loop alone: it must come back.
            other = open_doc(client, plain)
            h = await asyncio.wait_for(client.text_document_hover_async(
                T.HoverParams(T.TextDocumentIdentifier(other), T.Position(0, 0))), 20)
            assert h is None
        finally:
            _release(odd / ".git" / "HEAD")
        assert await asyncio.wait_for(pending, 30) is None  # git, given an empty HEAD, fails: no answer


def _release(fifo: Path, seconds: float = 3.0) -> None:
    """Give every reader waiting on ``fifo`` (git, run by the server) an end of file, so no
    process is left blocked after the test."""
    import time

    end = time.monotonic() + seconds
    while time.monotonic() < end:
        try:
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        except OSError:  # ENXIO: no reader waits now
            pass
        time.sleep(0.1)
