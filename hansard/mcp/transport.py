"""The stdio transport of ``hansard mcp serve``: JSON-RPC lines in, JSON-RPC lines out, with
every malformed input answered instead of dropped.

Always true of a line read from stdin:

- it gets exactly one reply when it is a request: invalid UTF-8 or invalid JSON is ``-32700``
  (id null, as JSON-RPC 2.0 has it), a line that is not a JSON-RPC message ``-32600``, a lone
  surrogate escape outside a tool's arguments ``-32602``, a line over
  ``limits.MAX_MESSAGE_BYTES`` ``-32600`` (with its id when the id can be seen), and a
  ``tools/call`` of a tool this server does not have ``-32602``;
- a ``tools/call`` whose arguments break the tool's schema or a documented bound
  (hansard.mcp.limits) gets a tool result with ``isError`` and ``error: {code:
  invalid_argument, message, retryable, field}``, so the agent can correct itself, and one
  audit row; the tool never runs;
- a ``tools/call`` of a tool this server has that the protocol layer refuses (arguments that
  are not an object, a lone surrogate in its params, a message the SDK cannot read) gets its
  JSON-RPC error and one audit row too (``failed``, ``invalid_params``);
- anything else goes to the SDK's session unchanged.

When stdin closes (the client is gone), the server stops: running calls are stopped, queued
audit rows are written, and the process exits; nothing waits for abandoned work.
"""

from __future__ import annotations

import json
import os
import re
import sys
import threading
from collections.abc import Awaitable, Callable
from typing import Any, BinaryIO

import anyio

from hansard.errors import InvalidArgument
from hansard.mcp import limits

PARSE_ERROR, INVALID_REQUEST, INVALID_PARAMS = -32700, -32600, -32602
INVALID_PARAMS_CODE = "invalid_params"  # the audit code of a tools/call refused by the protocol layer
_ID = re.compile(rb'"id"\s*:\s*(-?\d{1,18}|"(?:[^"\\]|\\.){0,200}")')
# Large messages leave freed memory with the allocator; hand it back to the system after one.
_TRIM_AFTER_BYTES = 1 << 20


def _trim_memory() -> None:
    try:
        import ctypes

        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass


class LineReader:
    """Lines of a binary stream, each at most ``limit`` bytes; a longer line is consumed
    without being kept, and reported as its first and last few kilobytes."""

    def __init__(self, stream: BinaryIO, limit: int = limits.MAX_MESSAGE_BYTES) -> None:
        self.stream, self.limit = stream, limit

    def read(self) -> tuple[bytes, bool] | None:
        """(line, oversized), or None at end of input."""
        line = self.stream.readline(self.limit + 1)
        if not line:
            return None
        if len(line) <= self.limit or line.endswith(b"\n"):
            return line, False
        head, tail = line[:4096], line[-4096:]
        while True:
            more = self.stream.readline(1 << 20)
            if not more:
                break
            tail = (tail + more)[-4096:]
            if more.endswith(b"\n"):
                break
        return head + b"\n...\n" + tail, True


def _seen_id(raw: bytes) -> Any:
    m = _ID.search(raw)
    if m is None:
        return None
    try:
        return json.loads(m.group(1))
    except ValueError:
        return None


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def rpc_error(req_id: Any, code: int, message: str, data: Any = None) -> dict[str, Any]:
    err: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        err["data"] = data
    return {"jsonrpc": "2.0", "id": req_id, "error": err}


def tool_error(req_id: Any, exc: InvalidArgument) -> dict[str, Any]:
    body = {"error": {"code": exc.code, "message": exc.message, "retryable": exc.retryable,
                      **({"field": exc.details["field"]} if "field" in exc.details else {})}}
    return {"jsonrpc": "2.0", "id": req_id, "result": {
        "content": [{"type": "text", "text": json.dumps(body)}], "structuredContent": body, "isError": True}}


class Screen:
    """What to do with one line: forward a (possibly corrected) message, or reply now."""

    def __init__(self, schemas: dict[str, dict[str, Any]],
                 audit: Callable[[str, str, str | None, float], None] | None = None) -> None:
        self.schemas = schemas
        self.audit = audit

    def __call__(self, raw: bytes, oversized: bool = False) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
        """(message to forward, reply to write): one of them is None (both, for a blank line)."""
        if oversized:
            return None, rpc_error(_seen_id(raw), INVALID_REQUEST,
                                   f"message larger than {limits.MAX_MESSAGE_BYTES // (1 << 20)} MiB")
        if not raw.strip():
            return None, None
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            return None, rpc_error(None, PARSE_ERROR, f"Parse error: invalid UTF-8 at byte {exc.start}")
        try:
            msg = json.loads(text, parse_constant=_reject_constant)
        except (ValueError, RecursionError) as exc:
            return None, rpc_error(None, PARSE_ERROR, f"Parse error: {str(exc)[:200]}")
        if not isinstance(msg, dict) or msg.get("jsonrpc") != "2.0":
            what = "a batch (arrays are not supported)" if isinstance(msg, list) else "not a JSON-RPC 2.0 message"
            return None, rpc_error(msg.get("id") if isinstance(msg, dict) else None, INVALID_REQUEST,
                                   f"Invalid Request: {what}")
        req_id = msg.get("id")
        if not (req_id is None or isinstance(req_id, str) or (isinstance(req_id, int) and not isinstance(req_id, bool))):
            return None, rpc_error(None, INVALID_REQUEST, "Invalid Request: id must be a string or an integer")
        if isinstance(req_id, str) and (len(req_id) > 200 or limits.lone_surrogate(req_id)):
            return None, rpc_error(None, INVALID_REQUEST, "Invalid Request: id must be at most 200 characters of text")
        method = msg.get("method")
        if "method" in msg and not isinstance(method, str):
            return None, rpc_error(req_id, INVALID_REQUEST, "Invalid Request: method must be a string")
        if method == "tools/call":
            return self._tools_call(msg, req_id)
        where = limits.find_surrogate(msg)
        if where is not None:
            return None, self._unless_notification(msg, rpc_error(
                req_id, INVALID_PARAMS, f"Invalid params: {where[:200]} holds a lone UTF-16 surrogate escape"))
        return msg, None

    def refused(self, tool: str) -> None:
        """One audit row for a call of ``tool`` (one this server has) refused before it ran."""
        if self.audit is not None and tool in self.schemas:
            self.audit(tool, "failed", INVALID_PARAMS_CODE, 0.0)

    def refused_message(self, msg: dict[str, Any]) -> None:
        """The audit row of a forwarded ``tools/call`` that the SDK could not read."""
        params = msg.get("params")
        if msg.get("method") == "tools/call" and isinstance(params, dict) and isinstance(params.get("name"), str):
            self.refused(params["name"])

    @staticmethod
    def _unless_notification(msg: dict[str, Any], reply: dict[str, Any]) -> dict[str, Any] | None:
        return reply if "id" in msg and "method" in msg else None

    def _tools_call(self, msg: dict[str, Any], req_id: Any) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
        params = msg.get("params")
        if not isinstance(params, dict):
            return None, rpc_error(req_id, INVALID_PARAMS, "Invalid params: tools/call needs params {name, arguments}")
        name = params.get("name")
        if not isinstance(name, str) or name not in self.schemas:
            shown = name[:100].encode("utf-8", "backslashreplace").decode() if isinstance(name, str) else repr(type(name))
            return None, rpc_error(req_id, INVALID_PARAMS, f"Unknown tool: {shown}",
                                   {"tools": sorted(self.schemas)})
        args = params.get("arguments")
        if args is None:
            args = {}
        if not isinstance(args, dict):
            self.refused(name)
            return None, rpc_error(req_id, INVALID_PARAMS, "Invalid params: arguments must be an object")
        try:
            checked = limits.check_arguments(self.schemas[name], args)
        except InvalidArgument as exc:
            if self.audit is not None:
                self.audit(name, "failed", exc.code, 0.0)
            return None, tool_error(req_id, exc)
        where = limits.find_surrogate({k: v for k, v in params.items() if k != "arguments"})
        if where is not None:
            self.refused(name)
            return None, rpc_error(req_id, INVALID_PARAMS, f"Invalid params: {where[:200]} holds a lone surrogate")
        params = {**params, "arguments": checked}
        return {**msg, "params": params}, None


def _claim_stdio() -> tuple[BinaryIO, BinaryIO]:
    """The wire, on private descriptors; fd 0 then reads the null device and fd 1 writes to
    stderr, so a stray print or a child process cannot corrupt the protocol."""
    rfd, wfd = os.dup(0), os.dup(1)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)
    return os.fdopen(rfd, "rb", buffering=1 << 16), os.fdopen(wfd, "wb", buffering=0)


async def serve(server: Any, *, audit: Callable[[str, str, str | None, float], None] | None = None,
                on_close: Callable[[], Awaitable[None] | None] | None = None,
                streams: tuple[BinaryIO, BinaryIO] | None = None) -> None:
    """Serve ``server`` (an SDK MCPServer) over stdio until stdin closes."""
    import mcp_types as types
    from mcp.shared.message import SessionMessage

    schemas = {t.name: t.input_schema for t in await server.list_tools()}
    screen = Screen(schemas, audit)
    rin, wout = streams or _claim_stdio()
    reader = LineReader(rin)
    write_lock = threading.Lock()
    broken = anyio.Event()

    def write_line(data: bytes) -> None:
        with write_lock:
            wout.write(data + b"\n")
            if hasattr(wout, "flush"):
                wout.flush()

    async def write(obj: dict[str, Any] | bytes) -> None:
        data = obj if isinstance(obj, bytes) else json.dumps(obj, ensure_ascii=False).encode("utf-8", "surrogatepass")
        try:
            await anyio.to_thread.run_sync(write_line, data)
        except (BrokenPipeError, OSError, ValueError):
            broken.set()

    read_send, read_recv = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    write_send, write_recv = anyio.create_memory_object_stream[SessionMessage](0)

    async def stdin_reader() -> None:
        async with read_send:
            while True:
                got = await anyio.to_thread.run_sync(reader.read, abandon_on_cancel=True)
                if got is None:
                    return
                raw, oversized = got
                forward, reply = screen(raw, oversized)
                if len(raw) > _TRIM_AFTER_BYTES:
                    del raw, got
                    _trim_memory()
                if reply is not None:
                    await write(reply)
                if forward is not None:
                    try:
                        message = types.jsonrpc_message_adapter.validate_python(forward, by_name=False)
                    except Exception:  # pydantic's ValidationError and kin: the message is malformed
                        screen.refused_message(forward)
                        rid = forward.get("id")
                        if "method" in forward and rid is not None:
                            await write(rpc_error(rid, INVALID_REQUEST, "Invalid Request: not a valid MCP message"))
                        continue
                    await read_send.send(SessionMessage(message))

    async def stdout_writer() -> None:
        async with write_recv:
            async for session_message in write_recv:
                await write(session_message.message.model_dump_json(by_alias=True, exclude_unset=True).encode())

    lowlevel = server._lowlevel_server  # the SDK's documented run() takes these streams
    async with anyio.create_task_group() as tg:
        async def run_server() -> None:
            await lowlevel.run(read_recv, write_send, lowlevel.create_initialization_options())

        async def watch_broken() -> None:
            await broken.wait()
            tg.cancel_scope.cancel()

        tg.start_soon(stdout_writer)
        tg.start_soon(watch_broken)
        tg.start_soon(run_server)
        await stdin_reader()
        # The client is gone: answers in flight have nobody to read them.
        tg.cancel_scope.cancel()
    if on_close is not None:
        done = on_close()
        if done is not None:
            await done


def run(server: Any, *, audit: Callable[[str, str, str | None, float], None] | None = None,
        on_close: Callable[[], Awaitable[None] | None] | None = None) -> None:
    """Serve over the process's stdio, then exit the process: worker threads of abandoned
    calls must not keep it alive once the client is gone."""
    code = 0
    try:
        anyio.run(lambda: serve(server, audit=audit, on_close=on_close))
    except KeyboardInterrupt:
        code = 130
    except BaseException as exc:  # report, then exit all the same
        print(f"hansard mcp serve: {type(exc).__name__}: {exc}", file=sys.stderr)
        code = 1
    sys.stderr.flush()
    os._exit(code)
