"""Web chats a person copies code from: the claude.ai and ChatGPT data exports (``hansard import``).

Sources read: the export archives both services send on request ("Export data"), as documented
in their help pages and read by public importers (2024-2026 shapes):

* ChatGPT: a zip holding ``conversations.json`` = a list of conversations ``{id |
  conversation_id, title, create_time (epoch s, float), update_time, current_node, mapping}``;
  ``mapping`` is the message tree ``{node_id: {id, parent, children[], message | null}}``, a
  message ``{id, author {role: user|assistant|system|tool}, create_time, content {content_type:
  text|code|multimodal_text|…, parts[] | text}, metadata {model_slug, …}}``. Editing a prompt or
  regenerating a reply forks the tree; ``current_node`` is the leaf the user last saw.
* claude.ai: a zip holding ``conversations.json`` = a list ``{uuid, name, summary, created_at,
  updated_at, chat_messages[]}``, a message ``{uuid, sender: human|assistant, text, content[]
  ({type: text, text} …), created_at, attachments[], files[], parent_message_uuid?}``.

Always true of what this module emits: sessions of provider ``chatgpt`` or ``claude_web``, never an
edit (a web chat writes no file). The ChatGPT current branch (``current_node`` up to the root) is
the conversation, in order; messages on other branches follow it with kind ``revision``.
``code_blocks`` and ``match_pasted`` implement the ``pasted`` rule used by ``why``: at least
``MIN_RUN`` consecutive non-trivial lines that match one assistant code block, in order,
whitespace-normalised; a lone line is never a match.

Records: ``records(path)`` turns the zip or the JSON file into one record per conversation
(offset = its index in the list), so the archive keeps each conversation verbatim. The file is
read as a stream, one conversation at a time, within bounds (MAX_EXPORT_BYTES and the others
below), each past which is a typed error.
"""

from __future__ import annotations

import contextlib
import re
import zipfile
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any

import orjson

from hansard.agents.base import JsonParser, dict_of, str_of
from hansard.agents.base import nonempty_str as _str
from hansard.errors import ExportEntryTooLarge, ExportTooDeep, ExportTooLarge, ExportTooManyMessages
from hansard.files import safeopen
from hansard.values.models import Item, MessageItem, RawRecord, Role, SessionInfo, Skip

CHATGPT = "chatgpt"
CLAUDE_WEB = "claude_web"
PROVIDERS_NAMES = (CHATGPT, CLAUDE_WEB)
MIN_RUN = 3
MIN_CHARS = 10  # a line shorter than this (after normalising) is trivial, as in why
_FENCE = re.compile(r"^\s*(`{3,}|~{3,})")
_TITLE_MAX = 100
_CLAUDE_ROLES: dict[str, Role] = {"human": "user", "assistant": "assistant"}


def _epoch(v: Any) -> str | None:
    if isinstance(v, bool) or not isinstance(v, int | float):
        return _str(v)
    try:
        return datetime.fromtimestamp(v, UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")[:-4] + "Z"
    except (OverflowError, OSError, ValueError):
        return None


def _iso(v: Any) -> str | None:
    """claude.ai's ISO times (microseconds, ``Z`` or an offset) as the store's UTC milliseconds."""
    if not isinstance(v, str) or not v:
        return None
    try:
        t = datetime.fromisoformat(v.replace("Z", "+00:00"))
    except ValueError:
        return None
    if t.tzinfo is None:
        return None  # a time without an offset cannot be placed
    t = t.astimezone(UTC)
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{t.microsecond // 1000:03d}Z"


# -------------------------------------------------------------------------- reading exports


# Bounds of one export, checked while it streams in (a 3 MB zip can hold a 3 GiB
# conversations.json; a 250-level-deep one crashed orjson): past one, the import stops with a
# typed error (hansard.errors.ExportTooLarge and its siblings) before it takes the memory.
MAX_EXPORT_BYTES = 1 << 30  # conversations.json, decompressed
MAX_CONVERSATION_BYTES = 64 << 20  # one conversation's JSON
MAX_DEPTH = 64  # arrays and objects nested in one conversation (orjson.dumps stops at 255)
MAX_MESSAGES = 1_000_000  # conversations plus their messages (ChatGPT: nodes of the tree)
READ_BLOCK = 1 << 20
_TOKEN = re.compile(rb'["\[\]{},]')
_SPACE = b" \t\r\n"


class NotAnExport(ValueError):
    """Not a JSON list, or not valid JSON before its end."""


@contextlib.contextmanager
def _conversations_json(path: str) -> Iterator[IO[bytes]]:
    """A stream of the export's conversations.json: the entry of the zip (its declared size
    checked first), or the file itself. Opened without blocking, a regular file only."""
    with safeopen.open_file(path, follow=True) as fh:
        if zipfile.is_zipfile(fh):
            try:
                with zipfile.ZipFile(fh) as zf:
                    info = next((i for i in zf.infolist() if i.filename.rsplit("/", 1)[-1] == "conversations.json"), None)
                    if info is None:
                        raise NotAnExport("no conversations.json in the zip")
                    if info.file_size > MAX_EXPORT_BYTES:
                        raise _too_large(info.file_size)
                    with zf.open(info) as entry:
                        yield entry
            except (zipfile.BadZipFile, zipfile.LargeZipFile, NotImplementedError, EOFError) as exc:
                raise NotAnExport(str(exc)) from None
        else:
            fh.seek(0)
            yield fh


def _too_large(n: int) -> ExportTooLarge:
    return ExportTooLarge(f"the export's conversations.json is larger than {MAX_EXPORT_BYTES} bytes ({n} or more)",
                          bound="MAX_EXPORT_BYTES", limit=MAX_EXPORT_BYTES)


def _entry_too_large() -> ExportEntryTooLarge:
    return ExportEntryTooLarge(f"one conversation of the export is larger than {MAX_CONVERSATION_BYTES} bytes",
                               bound="MAX_CONVERSATION_BYTES", limit=MAX_CONVERSATION_BYTES)


def _element(buf: bytearray, start: int, end: int) -> bytes:
    if end - start > MAX_CONVERSATION_BYTES:
        raise _entry_too_large()
    return bytes(buf[start:end]).strip()


def _elements(stream: IO[bytes]) -> Iterator[bytes]:
    """The raw bytes of each element of the top-level JSON list in ``stream``, read a block at
    a time: the whole file is never held, one element at most (MAX_CONVERSATION_BYTES), and
    nesting deeper than MAX_DEPTH stops the reading before any parser sees it."""
    buf = bytearray()
    pos = 0  # next byte to look at
    start = -1  # where the current element began (-1: before the list's "[")
    depth = 0
    in_str = False
    total = 0
    while True:
        block = stream.read(READ_BLOCK)
        total += len(block)
        if total > MAX_EXPORT_BYTES:
            raise _too_large(total)
        buf += block
        n = len(buf)
        while pos < n:
            if in_str:
                q = buf.find(b'"', pos)
                if q < 0:
                    pos = n
                    break
                k = q - 1
                while k >= 0 and buf[k] == 0x5C:  # a quote after an odd run of backslashes is escaped
                    k -= 1
                pos = q + 1
                in_str = (q - 1 - k) % 2 == 1
                continue
            if start < 0:
                while pos < n and (buf[pos] in _SPACE or buf[pos] in b"\xef\xbb\xbf"):
                    pos += 1
                if pos >= n:
                    break
                if buf[pos] != 0x5B:  # "["
                    raise NotAnExport("not a JSON list")
                depth, pos = 1, pos + 1
                start = pos
                continue
            m = _TOKEN.search(buf, pos)
            if m is None:
                pos = n
                break
            c, pos = buf[m.start()], m.end()
            if c == 0x22:  # '"'
                in_str = True
            elif c in (0x5B, 0x7B):  # "[", "{"
                depth += 1
                if depth > MAX_DEPTH + 1:
                    raise ExportTooDeep(f"the export nests deeper than {MAX_DEPTH} levels",
                                        bound="MAX_DEPTH", limit=MAX_DEPTH)
            elif c in (0x5D, 0x7D):  # "]", "}"
                depth -= 1
                if depth == 0:
                    last = _element(buf, start, m.start())
                    if last:
                        yield last
                    return
            elif depth == 1:  # "," between elements
                yield _element(buf, start, m.start())
                start = pos
        if start >= 0:
            if n - start > MAX_CONVERSATION_BYTES:
                raise _entry_too_large()
            del buf[:start]
            pos, start = pos - start, 0
        else:
            del buf[:pos]
            pos = 0
        if not block:
            raise NotAnExport("the JSON list does not end")


def iter_conversations(path: str) -> Iterator[Any]:
    """The conversations of an export zip or of its ``conversations.json``, one at a time,
    within the bounds above (each past one a typed error). NotAnExport when the file is
    neither, or stops being valid JSON."""
    count = 0
    with _conversations_json(path) as stream:
        for raw in _elements(stream):
            try:
                conv = orjson.loads(raw)
            except orjson.JSONDecodeError as exc:
                raise NotAnExport(str(exc)) from None
            count += 1 + _message_count(conv)
            if count > MAX_MESSAGES:
                raise ExportTooManyMessages(f"the export holds more than {MAX_MESSAGES} conversations and messages",
                                            bound="MAX_MESSAGES", limit=MAX_MESSAGES)
            yield conv


def _message_count(conv: Any) -> int:
    if isinstance(conv, dict):
        for key in ("mapping", "chat_messages"):
            v = conv.get(key)
            if isinstance(v, dict | list):
                return len(v)
    return 0


def load_conversations(path: str) -> list[Any] | None:
    """The conversation list of an export zip or of its ``conversations.json``; None when the
    file is neither. Bounded as iter_conversations."""
    try:
        return list(iter_conversations(path))
    except (OSError, NotAnExport):
        return None


def records(path: str, cursor: dict[str, Any] | None = None) -> tuple[list[RawRecord], dict[str, Any]] | None:
    convs = load_conversations(path)
    if convs is None:
        return None
    return [RawRecord(path, i, orjson.dumps(c)) for i, c in enumerate(convs)], {"count": len(convs)}


def kind_of(conv: Any) -> str | None:
    if isinstance(conv, dict):
        if isinstance(conv.get("mapping"), dict):
            return CHATGPT
        if isinstance(conv.get("chat_messages"), list):
            return CLAUDE_WEB
    return None


def sniff_export(path: str) -> str | None:
    """chatgpt or claude_web, from the export's first conversation (the rest is not read)."""
    try:
        for conv in iter_conversations(path):
            return kind_of(conv)
    except (OSError, NotAnExport):
        return None
    return None


# -------------------------------------------------------------------------- parsing


class _Provider:
    whole_file = False
    container = "export"

    def __init__(self, name: str) -> None:
        self.name = name

    def sniff(self, path: Path, head: bytes) -> bool:
        # Never found by a scan: exports come in through `hansard import`.
        return False

    def records(self, path: str, cursor: dict[str, Any] | None) -> tuple[list[RawRecord], dict[str, Any]] | None:
        return records(path, cursor)

    def new_parser(self, path: str, state: dict[str, Any] | None = None) -> _Parser:
        return _Parser(self.name)


class _Parser(JsonParser):
    def __init__(self, name: str) -> None:
        self.name = name

    def state(self) -> dict[str, Any]:
        return {}

    def _parse(self, conv: Any, record: RawRecord) -> list[Item]:
        kind = kind_of(conv)
        if kind is None:
            return [Skip("not_a_conversation", record.offset)]
        return _chatgpt(conv, record.offset) if kind == CHATGPT else _claude(conv, record.offset)


def _chatgpt_text(msg: dict[str, Any]) -> str:
    content = dict_of(msg.get("content"))
    parts = content.get("parts")
    if isinstance(parts, list):
        texts = [p if isinstance(p, str) else p.get("text") if isinstance(p, dict) and isinstance(p.get("text"), str)
                 else "" for p in parts]
        text = "\n".join(t for t in texts if t)
    else:
        text = str_of(content.get("text"))
    if content.get("content_type") == "code" and text:
        text = f"```{content.get('language') or ''}\n{text}\n```"
    return text


def _chatgpt(conv: dict[str, Any], offset: int) -> list[Item]:
    sid = _str(conv.get("conversation_id")) or _str(conv.get("id"))
    if not sid:
        return [Skip("bad_field", offset, "conversation id")]
    sid = f"{CHATGPT}:{sid}"
    mapping = conv["mapping"]
    title = _str(conv.get("title"))
    out: list[Item] = [SessionInfo(sid, CHATGPT, started_at=_epoch(conv.get("create_time")),
                                   title=title[:_TITLE_MAX] if title else None, title_rank=2 if title else 0,
                                   extra={k: conv[k] for k in ("default_model_slug",) if isinstance(conv.get(k), str)})]
    branch: list[str] = []
    node = conv.get("current_node")
    seen: set[str] = set()
    while isinstance(node, str) and node in mapping and node not in seen:
        seen.add(node)
        branch.append(node)
        parent = mapping[node].get("parent") if isinstance(mapping[node], dict) else None
        node = parent
    branch.reverse()
    others = [n for n in mapping if n not in seen]
    for node_id, revision in [(n, False) for n in branch] + [(n, True) for n in others]:
        n = mapping.get(node_id)
        msg = n.get("message") if isinstance(n, dict) else None
        if not isinstance(msg, dict):
            continue
        role = msg.get("author", {}).get("role") if isinstance(msg.get("author"), dict) else None
        if role not in ("user", "assistant"):
            continue
        text = _chatgpt_text(msg)
        if not text.strip():
            continue
        meta = dict_of(msg.get("metadata"))
        out.append(MessageItem(sid, _str(msg.get("id")) or node_id, role, text, _epoch(msg.get("create_time")),
                               kind="revision" if revision else "text", model=_str(meta.get("model_slug"))))
    return out


def _claude(conv: dict[str, Any], offset: int) -> list[Item]:
    uid = _str(conv.get("uuid"))
    if not uid:
        return [Skip("bad_field", offset, "conversation uuid")]
    sid = f"{CLAUDE_WEB}:{uid}"
    title = _str(conv.get("name"))
    out: list[Item] = [SessionInfo(sid, CLAUDE_WEB, started_at=_iso(conv.get("created_at")),
                                   title=title[:_TITLE_MAX] if title else None, title_rank=2 if title else 0)]
    for m in conv["chat_messages"]:
        if not isinstance(m, dict):
            continue
        sender = m.get("sender")
        role = _CLAUDE_ROLES.get(sender) if isinstance(sender, str) else None
        if role is None:
            continue
        text = str_of(m.get("text"))
        if not text.strip() and isinstance(m.get("content"), list):
            text = "\n".join(b["text"] for b in m["content"] if isinstance(b, dict) and isinstance(b.get("text"), str))
        if not text.strip():
            continue
        out.append(MessageItem(sid, _str(m.get("uuid")) or f"{uid}:{len(out)}", role, text, _iso(m.get("created_at"))))
    return out


# -------------------------------------------------------------------------- the pasted rule


def normalise(line: str) -> str:
    return " ".join(line.split())


def trivial(line: str) -> bool:
    s = normalise(line)
    return len(s) < MIN_CHARS or not any(c.isalnum() for c in s)


def code_blocks(text: str) -> list[list[str]]:
    """The fenced code blocks of one assistant message, as lists of lines."""
    blocks: list[list[str]] = []
    cur: list[str] | None = None
    fence = ""
    for line in text.split("\n"):
        m = _FENCE.match(line)
        if cur is None:
            if m:
                cur, fence = [], m[1]
        elif m and line.strip() == fence:
            blocks.append(cur)
            cur = None
        else:
            cur.append(line)
    return blocks


def match_pasted(file_lines: list[str], block: list[str]) -> set[int]:
    """0-based indexes of ``file_lines`` inside a run of at least ``MIN_RUN`` consecutive
    non-trivial lines that equal consecutive non-trivial lines of ``block`` (whitespace-
    normalised), in order. Trivial lines between matched lines neither break nor count."""
    want = [normalise(x) for x in block if not trivial(x)]
    if len(want) < MIN_RUN:
        return set()
    starts: dict[str, list[int]] = {}
    for j, w in enumerate(want):
        starts.setdefault(w, []).append(j)
    nontriv = [(i, normalise(x)) for i, x in enumerate(file_lines) if not trivial(x)]
    hit: set[int] = set()
    k = 0
    while k < len(nontriv):
        best: list[int] = []
        for j in starts.get(nontriv[k][1], ()):
            run = []
            kk, jj = k, j
            while kk < len(nontriv) and jj < len(want) and nontriv[kk][1] == want[jj]:
                run.append(nontriv[kk][0])
                kk += 1
                jj += 1
            if len(run) > len(best):
                best = run
        if len(best) >= MIN_RUN:
            # trivial lines inside the run belong to it too
            hit.update(range(best[0], best[-1] + 1))
            k += len(best)
        else:
            k += 1
    return hit


PROVIDER_CHATGPT = _Provider(CHATGPT)
PROVIDER_CLAUDE_WEB = _Provider(CLAUDE_WEB)
