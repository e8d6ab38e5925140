"""Entire's compact transcript (``transcript.jsonl``, "Entire Transcript Format" v1), read back
into the transcript of the agent that recorded it, so that the agent's own parser reads it and
its edits are normalised exactly as that agent's are.

Entire derives it from the agent's transcript (``full.jsonl``) at each checkpoint (seen from
0.7.8-nightly on, not in 0.6.3 or 0.7.6), beside ``full.jsonl`` on ``entire/checkpoints/v1`` and
alone on the v2 ref ``refs/entire/checkpoints/v2/main`` (whose raw transcripts live on other
refs). One JSON object
a line: ``{"v": 1, "agent", "cli_version", "type": "user"|"assistant", "ts"?, "id"?,
"input_tokens"?, "output_tokens"?, "content"}``. ``content`` is a list of blocks (a string or
null also occur): user text ``{"id"?, "text"}`` (no ``type``), assistant text ``{"type": "text",
"text"}``, tool calls ``{"type": "tool_use", "id", "name", "input", "result"?: {"output",
"status": "success"|"error", "file"?: {"filePath", "numLines"?}, "matchCount"?}}`` with the
result inlined; images and unknown blocks pass through; thinking is dropped.

What is always true of what comes out: only lines that decode as the format are used, every
other one is counted by reason; one agent per transcript (the lines' ``agent`` field, else the
session metadata's), and a transcript of an agent with no translation here, or of several
agents, is not read; the agent's tool inputs are copied as they are (they are the agent's own:
Edit/Write/MultiEdit, apply_patch, replace...), outputs too; nothing is invented that the
compact line does not say, except the fields the agent's parser needs to accept a record (a
session id, which is Entire's, and for a Claude Code edit the ``filePath`` its result names).
What the compact form lost stays lost: per-record cwd, uuids, structured patches and whole-file
texts (Claude Code edits are then read from their old/new strings), Codex's ``patch_apply_end``
events (an apply_patch is applied only when its output says so) and code-mode outputs (often
empty), Gemini's "cancelled" (read as an error, so never applied).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from typing import Any

import orjson

NAME = "transcript.jsonl"

_KINDS = ("user", "assistant")
# Known fields and the JSON types they must have (Entire's own reader skips a line otherwise).
_STR_FIELDS = ("agent", "cli_version", "id")
_INT_FIELDS = ("input_tokens", "output_tokens")


def decode(lines: Iterable[bytes], skipped: Counter[str]) -> list[dict[str, Any]]:
    """The lines that are the format, in order, their ``content`` made a list of blocks; each
    other line, and each block that is not an object or a tool call without its id or name, is
    counted in ``skipped`` by reason (``entire_compact_<reason>``)."""
    out: list[dict[str, Any]] = []
    for raw in lines:
        if not raw.strip():
            continue
        try:
            obj = orjson.loads(raw)
        except orjson.JSONDecodeError:
            skipped["entire_compact_malformed_json"] += 1
            continue
        reason = _invalid(obj)
        if reason:
            skipped["entire_compact_" + reason] += 1
            continue
        content = obj.get("content")
        if isinstance(content, str):
            content = [{"type": "text", "text": content}]
        blocks = []
        for b in content if isinstance(content, list) else []:
            if isinstance(b, dict) and (b.get("type") != "tool_use" or _tool(b) is not None):
                blocks.append(b)
            else:
                skipped["entire_compact_bad_block"] += 1
        obj["content"] = blocks
        out.append(obj)
    return out


def _invalid(obj: Any) -> str | None:
    if not isinstance(obj, dict):
        return "not_object"
    v = obj.get("v")
    if v != 1 or isinstance(v, bool):
        return "bad_version"
    if not isinstance(obj.get("type"), str):
        return "no_type"
    if obj["type"] not in _KINDS:
        return "unknown_type"
    for k in _STR_FIELDS:
        if k in obj and not isinstance(obj[k], str):
            return "bad_field"
    for k in _INT_FIELDS:
        if k in obj and (not isinstance(obj[k], int) or isinstance(obj[k], bool)):
            return "bad_field"
    return None


def agent_of(lines: list[dict[str, Any]], meta_agent: str | None) -> str | None:
    """The provider name of the agent that recorded the lines: the one their ``agent`` fields
    name (all alike), else the one the session metadata names; None when they name several, or
    one hansard cannot read back from this format."""
    named = {x["agent"] for x in lines if x.get("agent")}
    if len(named) > 1:
        return None
    word = next(iter(named), None) or meta_agent
    name = _provider(word) if word else None
    return name if name in TRANSLATIONS else None


def _provider(word: str) -> str | None:
    from hansard import agents as registry

    low = word.strip().lower()
    for a in registry.agents():
        if low in (a.name, a.display.lower(), *(x.lower() for x in a.aliases)):
            return a.name
    return None


def translate(lines: list[dict[str, Any]], agent: str, session: str) -> bytes:
    """The agent's own transcript holding what ``lines`` say, as the agent writes it to disk."""
    return TRANSLATIONS[agent](lines, session)


def _dump(obj: Any) -> bytes:
    return orjson.dumps(obj)


def _ts(line: dict[str, Any]) -> str | None:
    ts = line.get("ts")
    return ts if isinstance(ts, str) and ts else None


def _text(block: dict[str, Any]) -> str | None:
    t = block.get("text")
    return t if isinstance(t, str) and block.get("type", "text") == "text" else None


def _tool(block: dict[str, Any]) -> tuple[str, str, Any, dict[str, Any] | None] | None:
    """(call id, name, input, result) of a well-formed tool_use block, else None."""
    if block.get("type") != "tool_use":
        return None
    cid, name = block.get("id"), block.get("name")
    if not (isinstance(cid, str) and cid and isinstance(name, str) and name):
        return None
    result = block.get("result")
    return cid, name, block.get("input"), result if isinstance(result, dict) else None


def _output(result: dict[str, Any]) -> str:
    out = result.get("output")
    return out if isinstance(out, str) else ""


# -- Claude Code --------------------------------------------------------------------------------


def _claude_code(lines: list[dict[str, Any]], session: str) -> bytes:
    out: list[bytes] = []
    for line in lines:
        head = {"sessionId": session, "timestamp": _ts(line)}
        if line["type"] == "user":
            texts = [t for b in line["content"] if (t := _text(b)) is not None]
            if texts:
                out.append(_dump({"type": "user", **head,
                                  "message": {"role": "user", "content": "\n\n".join(texts)}}))
            continue
        blocks: list[dict[str, Any]] = []
        results: list[bytes] = []
        for b in line["content"]:
            tool = _tool(b)
            if tool is None:
                if _text(b) is not None:
                    blocks.append({"type": "text", "text": b["text"]})
                continue
            cid, name, inp, result = tool
            blocks.append({"type": "tool_use", "id": cid, "name": name, "input": inp})
            if result is not None:
                results.append(_dump({"type": "user", **head, "message": {"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": cid, "content": _output(result),
                     "is_error": result.get("status") == "error"}]},
                    "toolUseResult": _claude_result(name, result)}))
        if blocks:
            msg: dict[str, Any] = {"role": "assistant", "content": blocks}
            if isinstance(line.get("id"), str):
                msg["id"] = line["id"]
            out.append(_dump({"type": "assistant", **head, "message": msg}))
        out += results
    return b"".join(x + b"\n" for x in out)


def _claude_result(name: str, result: dict[str, Any]) -> dict[str, Any] | str:
    """The ``toolUseResult`` the compact result still shows: the file it names (an Edit or a
    Write names the file it changed), and for a Write whether Claude Code said it created it."""
    f = result.get("file")
    path = f.get("filePath") if isinstance(f, dict) else None
    if not isinstance(path, str) or not path:
        return _output(result)
    tur: dict[str, Any] = {"filePath": path}
    if name.removeprefix("mcp__acp__") == "Write":  # Zed's ACP bridge names it mcp__acp__Write
        tur["type"] = "create" if _output(result).startswith("File created successfully") else "update"
    return tur


# -- Codex --------------------------------------------------------------------------------------


def _codex(lines: list[dict[str, Any]], session: str) -> bytes:
    first = next((t for x in lines if (t := _ts(x))), "")
    out = [_dump({"timestamp": first, "type": "session_meta", "payload": {"id": session, "timestamp": first}})]

    def item(ts: str, payload: dict[str, Any]) -> None:
        out.append(_dump({"timestamp": ts, "type": "response_item", "payload": payload}))

    for line in lines:
        ts = _ts(line) or first
        texts = [t for b in line["content"] if (t := _text(b)) is not None]
        role = line["type"]
        if texts:
            kind = "input_text" if role == "user" else "output_text"
            item(ts, {"type": "message", "role": role, "content": [{"type": kind, "text": t} for t in texts]})
        if role != "assistant":
            continue
        for b in line["content"]:
            tool = _tool(b)
            if tool is None:
                continue
            cid, name, inp, result = tool
            custom = isinstance(inp, dict) and set(inp) == {"input"} and isinstance(inp["input"], str)
            if custom:
                item(ts, {"type": "custom_tool_call", "call_id": cid, "name": name, "input": inp["input"]})
            else:
                item(ts, {"type": "function_call", "call_id": cid, "name": name,
                          "arguments": _dump(inp if inp is not None else {}).decode()})
            if result is not None:
                kind = "custom_tool_call_output" if custom else "function_call_output"
                item(ts, {"type": kind, "call_id": cid, "output": _output(result)})
    return b"".join(x + b"\n" for x in out)


# -- Gemini CLI ---------------------------------------------------------------------------------


def _gemini(lines: list[dict[str, Any]], session: str) -> bytes:
    messages: list[dict[str, Any]] = []
    for i, line in enumerate(lines):
        ts = _ts(line)
        texts = [t for b in line["content"] if (t := _text(b)) is not None]
        mid = line["id"] if isinstance(line.get("id"), str) and line["id"] else f"{session}:{i}"
        if line["type"] == "user":
            if texts:
                messages.append({"id": mid, "timestamp": ts, "type": "user", "content": "\n\n".join(texts)})
            continue
        calls = []
        for b in line["content"]:
            tool = _tool(b)
            if tool is None:
                continue
            cid, name, inp, result = tool
            call: dict[str, Any] = {"id": cid, "name": name, "args": inp if isinstance(inp, dict) else {}}
            if result is not None:
                call["status"] = "success" if result.get("status") == "success" else "error"
                call["result"] = [{"functionResponse": {"id": cid, "name": name,
                                                        "response": {"output": _output(result)}}}]
            calls.append(call)
        if texts or calls:
            messages.append({"id": mid, "timestamp": ts, "type": "gemini", "content": "\n\n".join(texts),
                             "toolCalls": calls})
    # Pretty-printed, the session id and project key before the messages: as Gemini writes it.
    return orjson.dumps({"sessionId": session, "projectHash": "", "messages": messages},
                        option=orjson.OPT_INDENT_2) + b"\n"


TRANSLATIONS: dict[str, Callable[[list[dict[str, Any]], str], bytes]] = {
    "claude_code": _claude_code,
    "codex": _codex,
    "gemini": _gemini,
}
