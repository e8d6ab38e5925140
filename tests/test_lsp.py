"""`hansard lsp` driven over stdio by pytest-lsp's client, on the demo repository and its real-format
transcripts: hover text, inlay hints and code lenses, the conversation command, unsaved buffers,
cache invalidation after a commit and after a new transcript is indexed, and the files that get
no answer (outside any repository, binary). The server runs as `python -m hansard lsp`, the way
editors start it, with every agent home and the store in the test's temporary folder."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

import pytest
from lsprotocol import types as T
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

from tests.helpers import run_cli

pytestmark = pytest.mark.anyio

CLAUDE_SID = "4f0f2c6e-9d1b-4c7a-a35e-0c8f5b2d7e11"
CODEX_SID = "019e7a44-5b20-7c31-8d2e-3f6a9b1c0d42"
DATE = "2026-11-20T10:00:00+00:00"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def git(repo: Path, *args: str) -> str:
    env = dict(os.environ, GIT_AUTHOR_DATE=DATE, GIT_COMMITTER_DATE=DATE)
    return subprocess.run(["git", *args], cwd=repo, env=env, check=True, capture_output=True, text=True).stdout


def build_demo(root: Path) -> Any:
    """`hansard demo`'s repository and transcripts under ``root`` (agent homes and HANSARD_HOME
    point into ``root/home``). Returns a story writer for that repository: ``.repo``, and
    ``.do_claude(step)`` to add a Claude Code session later."""
    import hansard.demo as demo_mod

    if hasattr(demo_mod, "build"):  # the demo ships its data; the story writer is in fixtures_repos
        from fixtures_repos.writers import Story

        demo_mod.build(root)
        s = Story(root)
    else:
        from importlib import resources

        story = json.loads(resources.files("hansard.demo").joinpath("data/story.json").read_text())
        s = demo_mod.Story(root)
        s.run(story["steps"])
    assert (s.repo / "app" / "retry.py").is_file()
    return s


@pytest.fixture
def demo(tmp_path: Path) -> Any:
    """The demo story (a Claude Code and a Codex session, four commits), indexed."""
    s = build_demo(tmp_path / "demo")
    rc, out, err = run_cli("index")
    assert rc == 0, err
    return s


@contextlib.asynccontextmanager
async def lsp(root: Path, *, caps: str = "visual-studio-code", **options: Any) -> AsyncIterator[LanguageClient]:
    options.setdefault("pollSeconds", 0.2)
    if caps == "visual-studio-code":
        options.setdefault("commandLinks", True)  # as the extension says (editors/vscode/src/glue.ts)
    config = ClientServerConfig(server_command=[sys.executable, "-m", "hansard", "lsp"], server_env=dict(os.environ))
    client = await config.start()
    refreshes: list[str] = []
    client.refreshes = refreshes  # type: ignore[attr-defined]

    @client.feature(T.WORKSPACE_INLAY_HINT_REFRESH)
    def _inlay_refresh(params: None) -> None:
        refreshes.append("inlay")

    @client.feature(T.WORKSPACE_CODE_LENS_REFRESH)
    def _lens_refresh(params: None) -> None:
        refreshes.append("codelens")

    capabilities = client_capabilities(caps)
    # VS Code 1.65's recorded capabilities predate inlay hints; declare them as current VS Code does.
    capabilities.workspace.inlay_hint = T.InlayHintWorkspaceClientCapabilities(refresh_support=True)
    capabilities.text_document.inlay_hint = T.InlayHintClientCapabilities()
    await client.initialize_session(T.InitializeParams(
        capabilities=capabilities, root_uri=root.as_uri(), initialization_options=options))
    try:
        yield client
    finally:
        await client.shutdown_session()
        await client.stop()


def open_doc(client: LanguageClient, path: Path, text: str | None = None, version: int = 1) -> str:
    uri = path.as_uri()
    client.text_document_did_open(T.DidOpenTextDocumentParams(T.TextDocumentItem(
        uri=uri, language_id="python", version=version, text=path.read_text() if text is None else text)))
    return uri


async def hover(client: LanguageClient, uri: str, line: int) -> str | None:
    h = await client.text_document_hover_async(T.HoverParams(T.TextDocumentIdentifier(uri), T.Position(line, 0)))
    return None if h is None else h.contents.value


async def hints(client: LanguageClient, uri: str, last: int = 10_000) -> list[tuple[int, str]]:
    res = await client.text_document_inlay_hint_async(T.InlayHintParams(
        T.TextDocumentIdentifier(uri), T.Range(T.Position(0, 0), T.Position(last, 0))))
    return [(h.position.line, h.label) for h in res or []]


async def eventually(fn, check, timeout: float = 30.0) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = await fn()
        if check(value) or time.monotonic() > deadline:
            return value
        await asyncio.sleep(0.2)


def retry_lines(demo: Any) -> list[str]:
    return (demo.repo / "app" / "retry.py").read_text().splitlines()


def line_of(lines: list[str], needle: str) -> int:
    return next(i for i, ln in enumerate(lines) if needle in ln)


async def test_hover_says_who_wrote_the_line(demo: Any) -> None:
    lines = retry_lines(demo)
    async with lsp(demo.repo) as client:
        uri = open_doc(client, demo.repo / "app" / "retry.py")
        text = await hover(client, uri, line_of(lines, "backoff = min(cap"))
        assert text is not None
        head = git(demo.repo, "log", "-1", "--format=%h", "--grep=capped backoff")[:7]
        for part in ("**Claude Code** · `agent` · session `4f0f2c6e-9d1b`", "2026-11-12 13:02 UTC",
                     "> uploads fail on the first 502; add a capped exponential backoff",
                     "message 3 · Edit · tool call `toolu_014f0f2c0001Demo`",
                     f"commit `{head}` \"Add capped backoff to upload retry\" (Alice Example, 2026-11-12)",
                     "evidence: wrote: the session's edit added this exact line; it landed in",
                     "](command:hansard.showConversation?", "`hansard show 4f0f2c6e-9d1b --around 3`"):
            assert part in text, (part, text)
        link = text.split("command:hansard.showConversation?")[1].split(")")[0]
        assert json.loads(unquote(link)) == [CLAUDE_SID, 3]
        human = await hover(client, uri, 0)  # "import time", from the initial human commit
        assert human is not None and human.startswith("**human**") and "no archived session wrote this line" in human
        modified = await hover(client, uri, line_of(lines, "# jitter later"))
        assert modified is not None and "`agent_modified`" in modified and "modified: an agent's edit wrote" in modified


async def test_hints_and_lenses_mark_each_block_once(demo: Any) -> None:
    lines = retry_lines(demo)
    async with lsp(demo.repo) as client:
        uri = open_doc(client, demo.repo / "app" / "retry.py")
        got = await hints(client, uri)
        first_agent = line_of(lines, "def upload(send, payload, attempts=5, base=0.5")
        assert got, "no hints"
        assert got[0] == (first_agent, 'Claude Code · 4f0f2c6e · "uploads fail on the first 502; add a ca…"')
        marked = {ln for ln, _ in got}
        assert 0 not in marked and line_of(lines, "import time") not in marked  # human lines carry none
        assert any(label.endswith("· modified") for _, label in got)
        # One mark per block: no two consecutive marked lines carry the same label.
        assert all(not (a[0] + 1 == b[0] and a[1] == b[1]) for a, b in zip(got, got[1:], strict=False))
        lenses = await client.text_document_code_lens_async(T.CodeLensParams(T.TextDocumentIdentifier(uri)))
        # one lens per run of the session's lines: lines 10-11 (written, then modified) are one run
        assert [(c.range.start.line, c.command.title) for c in lenses] == [got[0], got[1]]
        assert got[2][0] == got[1][0] + 1 and got[2][1].endswith("· modified")
        assert lenses[0].command.command == "hansard.showConversation"
        assert list(lenses[0].command.arguments) == [CLAUDE_SID, 1]  # the first edit: the new signature
        test_uri = open_doc(client, demo.repo / "tests" / "test_retry.py")
        codex = await hints(client, test_uri)
        assert codex == [(0, 'Codex · 019e7a44 · "write a test that the backoff never exc…"')]


async def test_marks_setting_turns_hints_or_lenses_off(demo: Any) -> None:
    async with lsp(demo.repo, marks="codelens") as client:
        uri = open_doc(client, demo.repo / "app" / "retry.py")
        assert await hints(client, uri) == []
        lenses = await client.text_document_code_lens_async(T.CodeLensParams(T.TextDocumentIdentifier(uri)))
        assert lenses
    async with lsp(demo.repo, codeLens=False) as client:  # the lenses' own setting
        uri = open_doc(client, demo.repo / "app" / "retry.py")
        assert await hints(client, uri)
        assert await client.text_document_code_lens_async(T.CodeLensParams(T.TextDocumentIdentifier(uri))) in ([], ())


async def test_lenses_are_quiet_one_per_run_and_none_for_unknown_lines(demo: Any) -> None:
    """A file of runs: a session's lines with blank lines between them are one lens; a
    person's line ends a run; unknown lines (an agent's text in another file) get none."""
    target = demo.repo / "app" / "quiet.py"
    backoff = "backoff = min(cap, base * 2 ** attempt)"
    target.write_text(f"import time\n\n{backoff}\n")
    git(demo.repo, "add", "-A")
    git(demo.repo, "commit", "-qm", "copy a line")
    async with lsp(demo.repo) as client:
        uri = open_doc(client, target)
        assert await hints(client, uri) == [(2, "? unknown · other_path")]  # the mark stays
        assert await client.text_document_code_lens_async(T.CodeLensParams(T.TextDocumentIdentifier(uri))) in ([], ())


def test_a_lens_per_run_of_a_sessions_lines_over_blank_lines() -> None:
    """``lens_runs`` over an answer: blank lines join a run, a person's line ends it, unknown
    lines get no lens; marks stay one per edit."""
    from hansard.lsp import core, marks

    def ln(n: int, content: str, kind: str, sid: str | None = None, mi: int | None = None) -> dict[str, Any]:
        return {"line": n, "content": content, "kind": kind, "session_id": sid, "message_index": mi,
                "provider": {"s1": "claude_code", "s2": "codex"}.get(sid or ""),
                "tool_call_id": f"t{mi}" if sid else None, "rule": "other_path" if kind == "unknown" else None}

    prompts = {"0": "add a and b", "4": "yes", "6": "then c"}
    ans = {"lines": [ln(1, "def a():", "agent", "s1", 1), ln(2, "    return 1", "agent", "s1", 1), ln(3, "", "human"),
                     ln(4, "def b():", "agent", "s1", 5), ln(5, "    x = 2", "agent_modified", "s1", 5),
                     ln(6, "# mine", "human"), ln(7, "def c():", "agent", "s1", 7), ln(8, "d = 1", "unknown"),
                     ln(9, "def e():", "agent", "s2", 2)],
           "sessions": {"s1": {"provider": "claude_code", "prompts": prompts, "first_request": 0,
                               "asked": {"1": {"request": 0, "turn": 0}, "5": {"request": 0, "turn": 4},
                                         "7": {"request": 6, "turn": 6}}},
                        "s2": {"provider": "codex", "title": "e", "prompts": {}, "asked": {}}},
           "commits": {}}
    runs = [(b.first, b.last, b.session_id, b.label) for b in marks.lens_runs(ans, core.provider_name)]
    assert runs == [(0, 4, "s1", 'Claude Code · s1 · "add a and b"'), (6, 6, "s1", 'Claude Code · s1 · "then c"'),
                    (8, 8, "s2", 'Codex · s2 · "e"')]
    assert len(marks.blocks(ans, core.provider_name)) == 6  # a, b, b modified, c, unknown d, e


async def test_hovers_follow_what_the_client_renders(demo: Any) -> None:
    """Neovim renders a hover's Markdown its own way (no command links, `\\(` shown as it is):
    it gets plain text, without a link or an escape; VS Code (with the extension) gets Markdown
    and the link that opens the conversation; a CommonMark client that did not say it runs
    hansard's command gets Markdown without the link."""
    lines = retry_lines(demo)
    n = line_of(lines, "# jitter later")  # agent_modified: "(similarity 0.xx)" in its evidence
    async with lsp(demo.repo, caps="neovim") as client:
        uri = open_doc(client, demo.repo / "app" / "retry.py")
        h = await client.text_document_hover_async(T.HoverParams(T.TextDocumentIdentifier(uri), T.Position(n, 0)))
        assert h is not None and h.contents.kind == T.MarkupKind.PlainText
        text = h.contents.value
        assert text.startswith("Claude Code · agent_modified · session 4f0f2c6e-9d1b"), text
        assert 'asked "uploads fail on the first 502; add a capped exponential backoff"' in text
        assert "(similarity 0." in text and "\\" not in text and "command:" not in text and "**" not in text
        assert "the conversation: hansard show 4f0f2c6e-9d1b --around 3" in text
        res = await client.workspace_execute_command_async(T.ExecuteCommandParams(
            command="hansard.why", arguments=[{"uri": uri, "line": n}]))
        assert res["markdown"] == text and res["kind"] == "plaintext"
    async with lsp(demo.repo) as client:
        uri = open_doc(client, demo.repo / "app" / "retry.py")
        text = await hover(client, uri, n)
        assert text is not None and "(similarity 0\\." in text and "](command:hansard.showConversation?" in text
    async with lsp(demo.repo, commandLinks=False) as client:
        uri = open_doc(client, demo.repo / "app" / "retry.py")
        text = await hover(client, uri, n)
        assert text is not None and "command:" not in text and "`hansard show 4f0f2c6e-9d1b --around 3`" in text


async def test_unknown_lines_get_their_own_mark(demo: Any) -> None:
    """A line an agent wrote into another file is `unknown` (fail closed), marked as such."""
    target = demo.repo / "app" / "other.py"
    target.write_text("import time\n\nbackoff = min(cap, base * 2 ** attempt)\n")
    git(demo.repo, "add", "-A")
    git(demo.repo, "commit", "-qm", "copy a line")
    async with lsp(demo.repo) as client:
        uri = open_doc(client, target)
        assert await hints(client, uri) == [(2, "? unknown · other_path")]
        text = await hover(client, uri, 2)
        assert text is not None and text.startswith("**unknown**") and "into another file" in text


async def test_show_conversation_returns_the_window_and_shows_it(demo: Any) -> None:
    async with lsp(demo.repo) as client:
        res = await client.workspace_execute_command_async(T.ExecuteCommandParams(
            command="hansard.showConversation", arguments=[CLAUDE_SID, 3]))
        assert "uploads fail on the first 502" in res["text"]
        assert CLAUDE_SID in res["text"]
        assert res["uri"] and client.shown_documents and client.shown_documents[-1].uri == res["uri"]
        shown = Path(unquote(urlparse(res["uri"]).path))
        assert shown.read_text() == res["text"]
        assert oct(shown.stat().st_mode & 0o777) == "0o600"
        quiet = await client.workspace_execute_command_async(T.ExecuteCommandParams(
            command="hansard.showConversation", arguments=[CLAUDE_SID[:8], 3, {"show": False}]))
        assert quiet["uri"] is None and quiet["text"] == res["text"]
        with pytest.raises(Exception, match="no session"):
            await client.workspace_execute_command_async(T.ExecuteCommandParams(
                command="hansard.showConversation", arguments=["ffffffff-nope"]))


async def test_unsaved_buffer_keeps_marks_on_their_lines(demo: Any) -> None:
    path = demo.repo / "app" / "retry.py"
    lines = retry_lines(demo)
    async with lsp(demo.repo) as client:
        uri = open_doc(client, path)
        before = await hints(client, uri)
        inserted = ["# typed, not saved", "DEBUG = True", ""]
        client.text_document_did_change(T.DidChangeTextDocumentParams(
            T.VersionedTextDocumentIdentifier(uri=uri, version=2),
            [T.TextDocumentContentChangePartial(range=T.Range(T.Position(0, 0), T.Position(0, 0)),
                                                text="\n".join(inserted) + "\n")]))
        after = await hints(client, uri)
        assert after == [(ln + 3, label) for ln, label in before]
        typed = await hover(client, uri, 1)
        assert typed is not None and typed.startswith("**uncommitted**") and "not committed yet" in typed
        moved = await hover(client, uri, line_of(lines, "backoff = min(cap") + 3)
        assert moved is not None and "session `4f0f2c6e-9d1b`" in moved
        assert not path.read_text().startswith("# typed")  # answered from the buffer, not the disk


async def test_answers_change_after_a_commit(demo: Any) -> None:
    """A person rewrites an agent's line and commits: the hover names the new commit and a
    refresh reaches the client without any edit in the editor."""
    path = demo.repo / "app" / "retry.py"
    lines = retry_lines(demo)
    n = line_of(lines, "backoff = min(cap")
    async with lsp(demo.repo) as client:
        uri = open_doc(client, path)
        assert "`agent`" in (await hover(client, uri, n) or "")
        lines[n] = lines[n].replace("backoff = min(cap, base * 2 ** attempt)", "backoff = 0.1  # constant now, see #12")
        path.write_text("\n".join(lines) + "\n")
        client.text_document_did_change(T.DidChangeTextDocumentParams(
            T.VersionedTextDocumentIdentifier(uri=uri, version=2),
            [T.TextDocumentContentChangeWholeDocument(text=path.read_text())]))
        assert (await hover(client, uri, n) or "").startswith("**uncommitted**")
        git(demo.repo, "commit", "-qam", "Constant backoff for now")
        text = await eventually(lambda: hover(client, uri, n), lambda t: t is not None and "Constant backoff" in t)
        assert text.startswith("**human**") and "Constant backoff for now" in text
        await eventually(lambda: asyncio.sleep(0, client.refreshes), lambda r: "inlay" in r)
        assert "inlay" in client.refreshes and "codelens" in client.refreshes
        git(demo.repo, "checkout", "-q", "HEAD~1")  # a checkout: the old answer comes back
        path_text = path.read_text()
        client.text_document_did_change(T.DidChangeTextDocumentParams(
            T.VersionedTextDocumentIdentifier(uri=uri, version=3), [T.TextDocumentContentChangeWholeDocument(text=path_text)]))
        assert "`agent`" in (await hover(client, uri, n) or "")


async def test_answers_change_after_a_new_transcript_is_indexed(demo: Any) -> None:
    """A new Claude Code session edits the file and the change is committed while the editor is
    open: the server's background sync indexes the transcript and the line becomes the agent's."""
    path = demo.repo / "README.md"
    async with lsp(demo.repo) as client:
        uri = open_doc(client, path)
        assert (await hints(client, uri)) == []
        demo.do_claude({"session": "7c1d2e3f-0000-4aaa-8bbb-123456789abc", "start": "2026-11-19T08:00:00.000Z",
                        "prompt": "document the retry settings in the README",
                        "reply": "Documented them.",
                        "edits": [{"path": "README.md", "old": "Uploads payloads with retries.\n",
                                   "new": "Uploads payloads with retries.\n\n"
                                          "Retries back off exponentially, capped at `cap` seconds.\n"}]})
        git(demo.repo, "commit", "-qam", "Document retries")
        text = path.read_text()
        client.text_document_did_change(T.DidChangeTextDocumentParams(
            T.VersionedTextDocumentIdentifier(uri=uri, version=2), [T.TextDocumentContentChangeWholeDocument(text=text)]))
        got = await eventually(lambda: hints(client, uri), lambda h: bool(h))
        # The blank line above the sentence came with the same edit: the block starts there.
        assert got == [(3, 'Claude Code · 7c1d2e3f · "document the retry settings in the READ…"')]


async def test_a_store_indexed_by_another_process_invalidates_answers(demo: Any) -> None:
    """With the background sync off, `hansard index` run elsewhere still reaches the editor."""
    path = demo.repo / "README.md"
    demo.do_claude({"session": "8d2e3f40-0000-4aaa-8bbb-123456789abc", "start": "2026-11-19T08:00:00.000Z",
                    "prompt": "say what the service is for", "reply": "Done.",
                    "edits": [{"path": "README.md", "old": "# upload-service\n",
                               "new": "# upload-service\n\nThe upload path of the shop.\n"}]})
    git(demo.repo, "commit", "-qam", "Say what it is for")
    async with lsp(demo.repo, sync=False) as client:
        uri = open_doc(client, path)
        assert (await hints(client, uri)) == []
        rc, _, err = run_cli("index")
        assert rc == 0, err
        got = await eventually(lambda: hints(client, uri), lambda h: bool(h))
        assert got == [(2, 'Claude Code · 8d2e3f40 · "say what the service is for"')]


async def test_files_without_an_answer(demo: Any, tmp_path: Path) -> None:
    outside = tmp_path / "plain" / "f.py"
    outside.parent.mkdir()
    outside.write_text("a = 1\n")
    binary = demo.repo / "logo.bin"
    binary.write_bytes(b"\x00\x01\x02\x03binary\x00")
    git(demo.repo, "add", "-A")
    git(demo.repo, "commit", "-qm", "a logo")
    untracked = demo.repo / "scratch.py"
    untracked.write_text("x = 1\n")
    async with lsp(demo.repo) as client:
        for p in (outside, binary, untracked):
            uri = open_doc(client, p, text=p.read_bytes().decode("latin-1"))
            assert await hover(client, uri, 0) is None, p
            assert await hints(client, uri) == [], p
        # The server is still answering after them.
        uri = open_doc(client, demo.repo / "app" / "retry.py")
        assert await hints(client, uri)


@pytest.mark.slow
async def test_a_100k_line_file(demo: Any) -> None:
    big = demo.repo / "big.py"
    body = "".join(f"value_{i} = compute({i}, 'row {i}')\n" for i in range(100_000))
    big.write_text(body)
    git(demo.repo, "add", "big.py")
    git(demo.repo, "commit", "-qm", "a big generated file")
    async with lsp(demo.repo) as client:
        uri = open_doc(client, big)
        t0 = time.monotonic()
        text = await hover(client, uri, 99_999)
        first = time.monotonic() - t0
        assert text is not None and text.startswith("**human**") and "a big generated file" in text
        t0 = time.monotonic()
        assert await hints(client, uri, 200) == []
        warm = time.monotonic() - t0
        assert warm < first
        # Another file is still answered while the big one is cached.
        assert await hints(client, open_doc(client, demo.repo / "app" / "retry.py"))


async def test_why_and_conversation_commands_take_a_line(demo: Any) -> None:
    """What :HansardWhy and :HansardConversation (and the VS Code commands) call."""
    lines = retry_lines(demo)
    n = line_of(lines, "backoff = min(cap")
    async with lsp(demo.repo) as client:
        uri = open_doc(client, demo.repo / "app" / "retry.py")
        res = await client.workspace_execute_command_async(T.ExecuteCommandParams(
            command="hansard.why", arguments=[{"uri": uri, "line": n}]))
        assert res["markdown"] == await hover(client, uri, n)
        assert (res["line"]["session_id"], res["line"]["message_index"], res["line"]["kind"]) == (CLAUDE_SID, 3, "agent")
        conv = await client.workspace_execute_command_async(T.ExecuteCommandParams(
            command="hansard.showConversation", arguments=[{"uri": uri, "line": n}, {"show": False}]))
        assert "uploads fail on the first 502" in conv["text"] and conv["uri"] is None
        nobody = await client.workspace_execute_command_async(T.ExecuteCommandParams(
            command="hansard.showConversation", arguments=[{"uri": uri, "line": 0}]))
        assert nobody is None  # a human line: no conversation
        outside = await client.workspace_execute_command_async(T.ExecuteCommandParams(
            command="hansard.why", arguments=[{"uri": uri, "line": 10_000}]))
        assert outside is None


def test_a_files_answer_is_handed_on_before_it_is_kept(demo: Any) -> None:
    """The server's question gives the answer and its request's close: what the answer worked
    out (its why-result document) is kept by the close, which the server runs after the hover
    has the answer, not before."""
    from hansard.lsp import core
    from tests.test_why_cache import _cached_rows

    path = demo.repo / "app" / "retry.py"
    ans, close = core.why_file(core.application(), str(path), path.read_bytes())
    assert ans["lines"] and _cached_rows() == 0
    close()
    assert _cached_rows() == 1
