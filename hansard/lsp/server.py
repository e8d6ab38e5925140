"""`hansard lsp`: a stdio language server (pygls 2) that shows who wrote each line.

Always true:

- every answer comes from `why` for the whole file, blamed from the text the editor holds
  (the `--contents` path), so marks stay on the right lines of an unsaved buffer;
- a hover is Markdown for a client that renders it as CommonMark does, plain text for one that
  does not (``HansardServer.hover_style``), never a link the client would not run;
- answers are cached per (file, repository HEAD, blob of the text, store version); a commit
  or a checkout changes the HEAD token, a new index run changes the store version, so no
  stale answer is ever served once the server has seen the change;
- git and SQLite run on one worker thread (a request of the application per question, and one
  reader connection kept for the store's version) and the background sync on another (its own
  connection); the message loop only awaits them;
- a request for a buffer version the editor has already replaced is dropped before it runs
  (it is answered again for the current text); `$/cancelRequest` cancels the waiting request;
- files outside any repository, untracked and binary files get no hover and no marks.

Settings (``initializationOptions``, all optional): ``marks``: ``"both"`` (default),
``"inlay"``, ``"codelens"`` or ``"none"``; ``codeLens`` (default true; false: no code lens, one
per run of a session's lines, whatever ``marks`` says); ``commandLinks`` (default false: the
client runs hansard's command from a hover's link, as the VS Code extension does);
``pollSeconds`` (default 2.0; how often the agent
homes, the store and ``.git/HEAD`` are looked at); ``sync`` (default true: index new
transcripts in the background); ``refresh`` (default: what the client declares: ask the
client to re-request hints and lenses after a change); ``maxBufferBytes`` (default 8 MiB: a
larger buffer is not analysed, its hover says so).

Untrusted input: a file the editor has not opened is read from disk without blocking and
only when it is a regular file (hansard.files.safeopen: a FIFO in a repository never stalls the
server); a request whose params do not fit its method gets a JSON-RPC error (-32602), and no
error reply carries a Python traceback.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import hashlib
import logging
import os
import threading
from collections import OrderedDict
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from lsprotocol import types as T
from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol

from hansard import __version__
from hansard.errors import HansardError, InputTooLarge
from hansard.lsp import core, marks
from hansard.lsp.repostate import head_token, repo_top

log = logging.getLogger("hansard.lsp")

SETTINGS = ("marks", "codeLens", "commandLinks", "pollSeconds", "sync", "refresh", "maxBufferBytes")
# A buffer larger than this is not blamed (a very large one took gigabytes and minutes): its hover says so.
MAX_BUFFER_BYTES = 8 << 20
CACHE_ENTRIES = 64
# An answer for a buffer version older than this many edits is not worth computing.
RETRIES = 3


class Superseded(Exception):
    """The buffer changed before its answer was computed."""


class Entry:
    """One file's answer, compact: the lines keep no content (the editor has the text)."""

    __slots__ = ("ans", "blocks", "error", "lenses")

    def __init__(self, ans: dict[str, Any] | None, error: HansardError | None = None) -> None:
        if ans is not None:
            self.lenses = marks.lens_runs(ans, core.provider_name)  # blank lines join a run: before the text goes
            for ln in ans["lines"]:
                ln.pop("content", None)
            self.blocks = marks.blocks(ans, core.provider_name)
        else:
            self.blocks = []
            self.lenses = []
        self.ans = ans
        self.error = error

    def line(self, i: int) -> dict[str, Any] | None:
        if self.ans is None:
            return None
        lines = self.ans["lines"]
        if 0 <= i < len(lines) and lines[i]["line"] == i + 1:
            return lines[i]
        return next((ln for ln in lines if ln["line"] == i + 1), None)


def blob_id(data: bytes) -> str:
    """git's blob id of the text: the same bytes give the same key, whether saved or not."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


class Answers:
    """The cache, the worker threads and the application's requests."""

    def __init__(self) -> None:
        self.worker = ThreadPoolExecutor(1, thread_name_prefix="hansard-why")
        self.indexer = ThreadPoolExecutor(1, thread_name_prefix="hansard-sync")
        self.app = core.application()
        self._reader: Any = None  # used only on the worker thread
        self._writer: Any = None  # used only on the indexer thread
        self.cache: OrderedDict[tuple, Entry] = OrderedDict()
        self.inflight: dict[tuple, asyncio.Future] = {}
        self.store_gen = 0
        self.versions: dict[str, int | None] = {}  # uri -> the latest buffer version seen
        self.heads: dict[str, tuple] = {}  # repo top -> last HEAD token seen by the poller
        self.lock = threading.Lock()

    # -- on the worker thread ------------------------------------------------------------

    def compute(self, path: str, data: bytes, uri: str, version: int | None) -> Entry:
        if version is not None and self.versions.get(uri, version) != version:
            raise Superseded(uri)
        try:
            ans, close = core.why_file(self.app, path, data)
        except HansardError as exc:
            return Entry(None, exc)
        # What the answer worked out is kept after the hover has it (next on this thread).
        self.worker.submit(close)
        return Entry(ans)

    def store_version(self) -> int:
        if self._reader is None:
            self._reader = self.app.request()
        return core.store_version(self._reader)

    def conversation(self, session_id: str, around: int | None) -> str:
        return core.conversation(self.app, session_id, around)

    # -- on the indexer thread -----------------------------------------------------------

    def sync(self) -> None:
        if self._writer is None:
            self._writer = self.app.request()
        core.sync(self._writer)

    # -- on the loop ---------------------------------------------------------------------

    async def for_document(self, ls: LanguageServer, uri: str) -> Entry | None:
        for _ in range(RETRIES):
            doc = ls.workspace.get_text_document(uri)
            if not uri.startswith("file:"):
                return None
            path = doc.path
            top = repo_top(path)
            if top is None:
                return None
            limit = _max_bytes(ls)
            try:
                data = _text_of(ls, uri, doc, limit)
            except (OSError, UnicodeError):
                return None
            if len(data) > limit:
                return Entry(None, InputTooLarge(
                    f"hansard: this buffer is larger than {limit} bytes, so its lines are not analysed",
                    bound="maxBufferBytes", limit=limit))
            key = (path, head_token(top), blob_id(data), self.store_gen)
            self.heads.setdefault(top, key[1])
            hit = self.cache.get(key)
            if hit is not None:
                self.cache.move_to_end(key)
                return hit
            fut = self.inflight.get(key)
            if fut is None:
                loop = asyncio.get_running_loop()
                fut = loop.run_in_executor(self.worker, self.compute, path, data, uri, doc.version)
                self.inflight[key] = fut
                fut.add_done_callback(functools.partial(self._done, key))
            try:
                return await asyncio.shield(fut)
            except Superseded:
                continue
        return None

    def _done(self, key: tuple, fut: asyncio.Future) -> None:
        self.inflight.pop(key, None)
        if fut.cancelled() or fut.exception() is not None:
            return
        self.cache[key] = fut.result()
        while len(self.cache) > CACHE_ENTRIES:
            self.cache.popitem(last=False)


def _max_bytes(ls: LanguageServer) -> int:
    v = getattr(ls, "options", {}).get("maxBufferBytes")
    return v if isinstance(v, int) and not isinstance(v, bool) and v > 0 else MAX_BUFFER_BYTES


def _text_of(ls: LanguageServer, uri: str, doc: Any, limit: int) -> bytes:
    """The buffer's bytes: the editor's text for an open document, else the file on disk,
    opened without blocking and only if it is a regular file (at most ``limit`` + 1 bytes)."""
    if uri in ls.workspace.text_documents:
        return doc.source.encode("utf-8", "surrogateescape")
    from hansard.files import safeopen

    return safeopen.read_bytes(doc.path, limit + 1, follow=True)


class _Protocol(LanguageServerProtocol):
    """pygls' protocol, with two answers it does not give: a request whose params do not fit
    its method gets an Invalid Params error (pygls logged it and sent nothing, so the client
    waited forever), and error replies carry a message only, never a traceback."""

    def structure_message(self, data: dict[str, Any]) -> Any:
        try:
            return super().structure_message(data)
        except JsonRpcException:
            msg_id = data.get("id") if isinstance(data, dict) else None
            if "method" not in data or isinstance(msg_id, bool) or not isinstance(msg_id, int | str):
                raise
            method = data.get("method")
            self._send_response(msg_id, error=T.ResponseError(
                code=JsonRpcInvalidParams.CODE,
                message=f"invalid params for {method if isinstance(method, str) else 'this method'}"))
            return _ANSWERED

    def handle_message(self, message: Any) -> None:
        if message is _ANSWERED:
            return
        super().handle_message(message)

    def _send_response(self, msg_id: Any, result: Any = None, error: T.ResponseError | None = None) -> None:
        if error is not None and error.data is not None:
            error = T.ResponseError(code=error.code, message=_one_line(error.message))
        super()._send_response(msg_id, result, error)


_ANSWERED = object()  # a request already answered with an error while it was read


def _one_line(message: str) -> str:
    """An error's message without any traceback: its last line."""
    lines = [ln for ln in (message or "").splitlines() if ln.strip()]
    return lines[-1].strip() if lines else "internal error"


class HansardServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__("hansard", __version__, protocol_cls=_Protocol)
        self.answers = Answers()
        self.options: dict[str, Any] = {}
        self.poller: asyncio.Task | None = None

    def option(self, name: str, default: Any) -> Any:
        v = self.options.get(name)
        return default if v is None else v

    def wants(self, what: str) -> bool:
        m = self.option("marks", "both")
        if what == "codelens" and self.option("codeLens", True) is False:
            return False
        return m == "both" or m == what

    def hover_style(self) -> tuple[bool, bool]:
        """(Markdown, command links) for this client's hovers. Markdown with its escapes only
        for a client that declares a CommonMark parser (``general.markdown``: VS Code's
        "marked") or that takes Markdown alone; plain text for one that also takes it and
        renders Markdown its own way (Neovim, Emacs: ``\\(`` would show as it is). A command
        link only where the client runs it: the VS Code extension says so (``commandLinks``)."""
        caps = self.client_capabilities
        general = getattr(caps, "general", None)
        hover = getattr(getattr(caps, "text_document", None), "hover", None)
        formats = list(getattr(hover, "content_format", None) or ())
        commonmark = getattr(general, "markdown", None) is not None
        markdown = commonmark or (T.MarkupKind.Markdown in formats and T.MarkupKind.PlainText not in formats)
        return markdown, markdown and self.option("commandLinks", False) is True

    async def poll(self) -> None:
        """Look at HEADs, the agent homes and the store; ask the client to refresh on a change."""
        interval = float(self.option("pollSeconds", 2.0))
        loop = asyncio.get_running_loop()
        a = self.answers
        try:
            a.store_gen = await loop.run_in_executor(a.worker, a.store_version)
        except HansardError as exc:
            log.warning("store: %s", exc)
        while True:
            changed = False
            for top, old in list(a.heads.items()):
                tok = head_token(top)
                if tok != old:
                    a.heads[top] = tok
                    changed = True
            try:
                if self.option("sync", True):
                    await loop.run_in_executor(a.indexer, a.sync)
                v = await loop.run_in_executor(a.worker, a.store_version)
            except HansardError as exc:
                log.warning("sync: %s", exc)
                v = a.store_gen
            if v != a.store_gen:
                a.store_gen = v
                changed = True
            if changed:
                self.refresh()
            await asyncio.sleep(interval)

    def refresh(self) -> None:
        caps = self.client_capabilities.workspace
        forced = self.option("refresh", None)
        inlay = forced if forced is not None else bool(caps and caps.inlay_hint and caps.inlay_hint.refresh_support)
        lens = forced if forced is not None else bool(caps and caps.code_lens and caps.code_lens.refresh_support)
        if inlay and self.wants("inlay"):
            self.workspace_inlay_hint_refresh(None)
        if lens and self.wants("codelens"):
            self.workspace_code_lens_refresh(None)


server = HansardServer()


@server.feature(T.INITIALIZED)
def initialized(ls: HansardServer, params: T.InitializedParams) -> None:
    ls.poller = asyncio.ensure_future(ls.poll())


@server.feature(T.INITIALIZE)
def initialize(ls: HansardServer, params: T.InitializeParams) -> None:
    if isinstance(params.initialization_options, dict):
        ls.options = dict(params.initialization_options)


def _warm(ls: HansardServer, uri: str, version: int | None) -> None:
    ls.answers.versions[uri] = version
    asyncio.ensure_future(ls.answers.for_document(ls, uri))


@server.feature(T.WORKSPACE_DID_CHANGE_CONFIGURATION)
def did_change_configuration(ls: HansardServer, params: T.DidChangeConfigurationParams) -> None:
    """Helix sends its ``config`` table again after ``initialized`` (and on ``:config-reload``):
    the same settings as ``initializationOptions``; other keys are ignored."""
    if isinstance(params.settings, dict):
        ls.options.update({k: v for k, v in params.settings.items() if k in SETTINGS})


@server.feature(T.TEXT_DOCUMENT_DID_OPEN)
def did_open(ls: HansardServer, params: T.DidOpenTextDocumentParams) -> None:
    _warm(ls, params.text_document.uri, params.text_document.version)


@server.feature(T.TEXT_DOCUMENT_DID_CHANGE)
def did_change(ls: HansardServer, params: T.DidChangeTextDocumentParams) -> None:
    # Only record the version: the client asks for hints when it wants them, and older
    # queued computations for this buffer are dropped when they reach the worker.
    ls.answers.versions[params.text_document.uri] = params.text_document.version


@server.feature(T.TEXT_DOCUMENT_DID_CLOSE)
def did_close(ls: HansardServer, params: T.DidCloseTextDocumentParams) -> None:
    ls.answers.versions.pop(params.text_document.uri, None)


@server.feature(T.TEXT_DOCUMENT_HOVER)
async def hover(ls: HansardServer, params: T.HoverParams) -> T.Hover | None:
    entry = await ls.answers.for_document(ls, params.text_document.uri)
    if entry is None:
        return None
    if isinstance(entry.error, InputTooLarge):
        return T.Hover(contents=T.MarkupContent(kind=T.MarkupKind.PlainText, value=entry.error.message))
    ln = entry.line(params.position.line)
    if ln is None or entry.ans is None:
        return None
    markdown, links = ls.hover_style()
    md = marks.hover_markdown(entry.ans, ln, core.provider_name, core.evidence, markdown=markdown, links=links)
    line = params.position.line
    return T.Hover(contents=T.MarkupContent(kind=T.MarkupKind.Markdown if markdown else T.MarkupKind.PlainText,
                                            value=md),
                   range=T.Range(T.Position(line, 0), T.Position(line + 1, 0)))


def _eol(ls: HansardServer, uri: str, line: int) -> int:
    doc = ls.workspace.get_text_document(uri)
    lines = doc.lines
    if line >= len(lines):
        return 0
    # In the position encoding agreed at initialize: UTF-16 units by default, UTF-8 bytes for
    # a client that prefers them (Helix).
    return doc.position_codec.client_num_units(lines[line].rstrip("\r\n"))


async def _wanted_entry(ls: HansardServer, feature: str, uri: str) -> Entry | None:
    """The document's answers when the client wants ``feature`` shown; None when it does not,
    or when the document has no answers."""
    if not ls.wants(feature):
        return None
    return await ls.answers.for_document(ls, uri)


@server.feature(T.TEXT_DOCUMENT_INLAY_HINT, T.InlayHintOptions(resolve_provider=False))
async def inlay_hints(ls: HansardServer, params: T.InlayHintParams) -> list[T.InlayHint]:
    entry = await _wanted_entry(ls, "inlay", params.text_document.uri)
    if entry is None:
        return []
    lo, hi = params.range.start.line, params.range.end.line
    out = []
    for b in entry.blocks:
        if lo <= b.first <= hi:
            out.append(T.InlayHint(
                position=T.Position(b.first, _eol(ls, params.text_document.uri, b.first)),
                label=b.label, padding_left=True,
                tooltip=f"lines {b.first + 1}-{b.last + 1}" if b.last > b.first else f"line {b.first + 1}",
            ))
    return out


@server.feature(T.TEXT_DOCUMENT_CODE_LENS, T.CodeLensOptions(resolve_provider=False))
async def code_lens(ls: HansardServer, params: T.CodeLensParams) -> list[T.CodeLens]:
    entry = await _wanted_entry(ls, "codelens", params.text_document.uri)
    if entry is None:
        return []
    out = []
    for b in entry.lenses:
        cmd = T.Command(title=b.label, command=marks.SHOW_CONVERSATION, arguments=[b.session_id, b.message_index])
        out.append(T.CodeLens(range=T.Range(T.Position(b.first, 0), T.Position(b.first, 0)), command=cmd))
    return out


async def _line_answer(ls: HansardServer, where: Any) -> tuple[Entry | None, dict[str, Any] | None]:
    if not isinstance(where, dict) or not isinstance(where.get("uri"), str) or not isinstance(where.get("line"), int):
        raise ValueError('expected {"uri": ..., "line": <0-based line>}')
    entry = await ls.answers.for_document(ls, where["uri"])
    return entry, (entry.line(where["line"]) if entry is not None else None)


@server.command(marks.WHY)
async def why(ls: HansardServer, *args: Any) -> dict[str, Any] | None:
    """Argument: ``{"uri", "line"}`` (0-based). Returns ``{"markdown", "line"}``, the line's
    entry of the `why` contract, or null when the file has no answer."""
    entry, ln = await _line_answer(ls, args[0] if args else None)
    if ln is None or entry is None or entry.ans is None:
        return None if entry is None or entry.error is None else {"error": entry.error.to_dict()}
    markdown, links = ls.hover_style()
    text = marks.hover_markdown(entry.ans, ln, core.provider_name, core.evidence, markdown=markdown, links=links)
    return {"markdown": text, "kind": "markdown" if markdown else "plaintext", "line": ln}


@server.command(marks.SHOW_CONVERSATION)
async def show_conversation(ls: HansardServer, *args: Any) -> dict[str, Any] | None:
    """Arguments: a session id and a message index (optional), or ``{"uri", "line"}`` for the
    session that wrote that line; then an options object ``{"show": false}`` to only return
    the text. Returns ``{"text", "uri"}``, or null for a line no session wrote."""
    if args and isinstance(args[0], dict):
        _, ln = await _line_answer(ls, args[0])
        if ln is None or not ln.get("session_id"):
            return None
        args = (ln["session_id"], ln.get("message_index"), *args[1:])
    if not args or not isinstance(args[0], str):
        raise ValueError("hansard.showConversation needs a session id")
    sid = args[0]
    around = args[1] if len(args) > 1 and isinstance(args[1], int) else None
    opts = args[2] if len(args) > 2 and isinstance(args[2], dict) else {}
    a = ls.answers
    text = await asyncio.get_running_loop().run_in_executor(a.worker, a.conversation, sid, around)
    uri = None
    caps = ls.client_capabilities.window
    if opts.get("show", True) and caps is not None and caps.show_document and caps.show_document.support:
        uri = _write_conversation(sid, around, text)
        ls.window_show_document(T.ShowDocumentParams(uri=uri, take_focus=True))
    return {"text": text, "uri": uri}


def conversation_file_name(sid: str, around: int | None) -> str:
    """A name made from a session id that cannot name another folder: the id's hash (a
    transcript chooses its session id, "../../../../tmp/x" included)."""
    digest = hashlib.sha256(sid.encode("utf-8", "surrogatepass")).hexdigest()[:32]
    return f"{digest}-{around if isinstance(around, int) else 0}.md"


def _write_conversation(sid: str, around: int | None, text: str) -> str:
    """The window as a read-only file next to the store (owner-only, like the store), so any
    client that can show a document can show it. Written under the folder's descriptor to a
    new file (O_EXCL | O_NOFOLLOW: never through a planted link), then renamed over the name."""
    import secrets
    from pathlib import Path

    from hansard.files import safeopen

    folder = core.private_folder("conversations")
    name = conversation_file_name(sid, around)
    tmp = f".{name}.{secrets.token_hex(6)}.tmp"
    dfd = safeopen.open_dir(folder, follow=True)
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600, dir_fd=dfd)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                fh.write(text)
            os.replace(tmp, name, src_dir_fd=dfd, dst_dir_fd=dfd)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp, dir_fd=dfd)
            raise
    finally:
        os.close(dfd)
    return (Path(folder) / name).as_uri()


def run() -> int:
    logging.basicConfig(level=os.environ.get("HANSARD_LSP_LOG", "WARNING").upper())
    server.start_io()
    return 0
