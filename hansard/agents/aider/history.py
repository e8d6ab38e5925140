"""Aider: the ``.aider.chat.history.md`` log it appends to in the repository it works on.

Sources read: aider's ``aider/io.py`` (``append_chat_history``, ``user_input``, ``tool_output``,
``ai_output``) and ``aider/coders/editblock_coder.py`` (``find_original_update_blocks``) of
aider 0.82-0.86 (2025), and the real sample ``samples/aider/simple-calculator.aider.chat.history.md``
(aider v0.82.2, ``diff-fenced`` edit format). The file is Markdown, appended line by line:

* ``# aider chat started at YYYY-MM-DD HH:MM:SS`` (local time) opens a session; aider writes it
  each time it starts in that repository, so one file holds many sessions.
* ``#### <text>`` is one line of the user's input (a multi-line prompt is several such lines);
  ``#### /cmd …`` is a slash command, and ``/code``/``/ask`` echo their prompt as a second input.
* ``> <text>`` (with two trailing spaces, a Markdown line break) is aider's own output:
  ``> Applied edit to <path>``, ``> Commit <sha> <message>``, ``> Tokens: …``, warnings.
* Anything else is the model's reply, verbatim Markdown. Edits live in it as SEARCH/REPLACE
  blocks (``<<<<<<< SEARCH`` / ``=======`` / ``>>>>>>> REPLACE``, the file name on the line
  before the fence (``diff``) or just inside it (``diff-fenced``)), as whole files (``whole``: a
  path line, then a fence with the full new text) or as unified diffs (``udiff``).

Always true of what this module emits: an edit is ``applied`` only when aider printed
``Applied edit to <path>`` for its file after the reply that holds it; other blocks of that reply
are ``failed`` (aider reports blocks that did not match and applies nothing for them). A
SEARCH/REPLACE edit's ``added`` lines are the lines REPLACE adds relative to SEARCH, never the
unchanged context. Aider records no per-message time: every item carries the session's start
time, and paths are relative to the repository holding the log (``cwd``). A message's key is
``<session id>:o<byte offset>`` (unique across logs). Each applied file of a reply is one synthetic
tool call ``<reply key>:<path>``, named ``aider_edit``; the
``Commit <sha>`` lines become a ``commit`` tool call whose input names the commit: the link step
(hansard/link/commits/own.py) dates each edit by the first such commit after it in its session.

Records are the scanner's lines; blank lines are not records, so the parser restores them from
the gaps between record offsets (one blank line per missing byte: exact for empty lines).
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from typing import Any

from hansard.agents.base import diff_texts, guarded
from hansard.values.models import EditItem, Item, MessageItem, RawRecord, SessionInfo, Skip, ToolCallItem, ToolResultItem

NAME = "aider"
HISTORY_FILE = ".aider.chat.history.md"
MEMORY_FILES = ("CONVENTIONS.md", ".aider.conf.yml")
EDIT_TOOLS = frozenset({"aider_edit"})
SHELL_TOOLS = frozenset({"aider_run"})
_STARTED = re.compile(r"^# aider chat started at (\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d)\s*$")
_APPLIED = re.compile(r"^Applied edit to (.+?)\s*$")
_COMMIT = re.compile(r"^Commit ([0-9a-f]{7,40}) (.*?)\s*$")
_VERSION = re.compile(r"^Aider v(\S+)")
_MODEL = re.compile(r"^Main model: (\S+)(?: with (\S+) edit format)?")
_HEAD = re.compile(r"^<{5,9} SEARCH>?\s*$")
_DIVIDER = re.compile(r"^={5,9}\s*$")
_UPDATED = re.compile(r"^>{5,9} REPLACE\s*$")
_FENCE = re.compile(r"^(`{3,}|~{3,})")
_TITLE_MAX = 100


def _clean_path(line: str) -> str:
    s = line.strip().rstrip(":").strip()
    s = s.strip("*").strip("#").strip().strip("`").strip()
    return s


def parse_blocks(text: str) -> list[dict[str, Any]]:
    """Edit blocks of one reply, in order: ``{"path", "search", "replace", "format"}`` where
    ``format`` is ``diff`` (SEARCH/REPLACE), ``whole`` or ``udiff``; ``search`` is None for a
    whole file. Never raises."""
    lines = text.split("\n")
    blocks: list[dict[str, Any]] = []
    i, n = 0, len(lines)
    last_path: str | None = None
    while i < n:
        line = lines[i]
        if _HEAD.match(line.strip()):
            path = None
            for back in range(1, 4):  # the name sits 1-3 lines above, around the fence
                if i - back < 0:
                    break
                cand = lines[i - back].strip()
                if not cand or _FENCE.match(cand):
                    continue
                path = _clean_path(cand)
                break
            path = path or last_path
            j = i + 1
            search: list[str] = []
            while j < n and not _DIVIDER.match(lines[j].strip()):
                search.append(lines[j])
                j += 1
            k = j + 1
            replace: list[str] = []
            while k < n and not _UPDATED.match(lines[k].strip()):
                replace.append(lines[k])
                k += 1
            if j < n and k < n and path:
                blocks.append({"path": path, "search": "\n".join(search), "replace": "\n".join(replace),
                               "format": "diff"})
                last_path = path
            i = k + 1
            continue
        m = _FENCE.match(line.strip())
        if m:
            fence = m[1]
            j = i + 1
            body: list[str] = []
            while j < n and lines[j].strip() != fence:
                body.append(lines[j])
                j += 1
            if any(_HEAD.match(b.strip()) for b in body):
                i += 1  # a SEARCH block inside this fence: handled line by line
                continue
            if line.strip()[len(fence):].strip() == "diff" and any(b.startswith("+++ ") for b in body):
                path = next((b[4:].strip() for b in body if b.startswith("+++ ")), "")
                path = path[2:] if path.startswith(("a/", "b/")) else path
                minus = "\n".join(b[1:] for b in body if b.startswith((" ", "-")) and not b.startswith("--- "))
                plus = "\n".join(b[1:] for b in body if b.startswith((" ", "+")) and not b.startswith("+++ "))
                blocks.append({"path": path, "search": minus, "replace": plus, "format": "udiff"})
            elif i > 0 and lines[i - 1].strip() and j < n:
                cand = _clean_path(lines[i - 1])
                if cand and " " not in cand and ("." in cand or "/" in cand):
                    blocks.append({"path": cand, "search": None, "replace": "\n".join(body), "format": "whole"})
            i = j + 1
            continue
        i += 1
    return blocks


class _Provider:
    name = NAME
    whole_file = False

    def sniff(self, path: Path, head: bytes) -> bool:
        start = head.lstrip()[:200]
        return start.startswith(b"# aider chat started at ")

    def new_parser(self, path: str, state: dict[str, Any] | None = None) -> _Parser:
        return _Parser(path, state)


class _Parser:
    """State: the open session, the reply being read (its lines and key) and the replies whose
    blocks still wait for ``Applied edit`` lines."""

    def __init__(self, path: str, state: dict[str, Any] | None) -> None:
        st = state or {}
        self.path = path
        self.root = str(Path(path).parent)
        self.sid: str | None = st.get("sid")
        self.started: str | None = st.get("started")
        self.titled: bool = bool(st.get("titled"))
        self.next_offset: int | None = st.get("next")
        self.kind: str | None = st.get("kind")  # "assistant" | "user" | None: the open message
        self.key: str | None = st.get("key")
        self.buf: list[str] = list(st.get("buf") or [])
        self.reply: dict[str, Any] | None = st.get("reply")  # {"key", "blocks", "applied": [...]}
        self.edit_format: str | None = st.get("fmt")
        self.fence: str | None = st.get("fence")

    def state(self) -> dict[str, Any]:
        return {"sid": self.sid, "started": self.started, "titled": self.titled, "next": self.next_offset,
                "kind": self.kind, "key": self.key, "buf": self.buf, "reply": self.reply, "fmt": self.edit_format,
                "fence": self.fence}

    def finish(self) -> list[Item]:
        # The open message may still grow: emit what we have; replace=True lets a later,
        # longer copy win.
        return self._message(final=False)

    def feed(self, record: RawRecord) -> list[Item]:
        return guarded(self._feed, record)

    def _feed(self, record: RawRecord) -> list[Item]:
        try:
            line = record.data.decode("utf-8")
        except UnicodeDecodeError:
            return [Skip("invalid_utf8", record.offset)]
        blanks = 0
        if self.next_offset is not None and record.offset > self.next_offset:
            blanks = record.offset - self.next_offset
        self.next_offset = record.offset + len(record.data) + 1
        line = line.rstrip("\r")
        out: list[Item] = []
        m = _STARTED.match(line)
        if m:
            out += self._message(final=True)
            out += self._close_reply()
            ts = m[1].replace(" ", "T")
            digest = hashlib.blake2b(f"{self.path}\0{record.offset}".encode(), digest_size=6).hexdigest()
            self.sid = f"aider-{ts.replace(':', '').replace('-', '')}-{digest}"
            self.started = ts
            self.titled = False
            self.fence = None
            return out + [SessionInfo(self.sid, NAME, cwd=self.root, started_at=ts,
                                      extra={"historyFile": Path(self.path).name})]
        if self.sid is None:
            return [Skip("before_session", record.offset)]
        in_code = self.kind == "assistant" and self.fence is not None
        if (line.startswith("#### ") or line == "####") and not in_code:
            text = line[5:].rstrip()
            if self.kind != "user":
                out += self._message(final=True)
                out += self._close_reply()
                self.kind, self.key, self.buf = "user", self._key(record.offset), []
            else:
                self.buf += [""] * blanks
            self.buf.append(text)
            return out
        if line.startswith("> ") or line == ">":
            out += self._message(final=True)
            return out + self._tool_output(line[2:].rstrip(), record.offset)
        # The model's reply.
        if self.kind != "assistant":
            out += self._message(final=True)
            out += self._close_reply()
            self.kind, self.key, self.buf, self.fence = "assistant", self._key(record.offset), [], None
        else:
            self.buf += [""] * blanks
        fm = _FENCE.match(line.strip())
        if fm:
            if self.fence is None:
                self.fence = fm[1]
            elif line.strip() == self.fence:
                self.fence = None
        self.buf.append(line)
        return out

    def _key(self, offset: int) -> str:
        # Keys are unique per agent across files: the session id names the file and the run.
        return f"{self.sid}:o{offset}"

    def _message(self, final: bool) -> list[Item]:
        if self.kind is None or self.sid is None or self.key is None:
            return []
        text = "\n".join(self.buf).strip("\n")
        out: list[Item] = []
        if self.kind == "user":
            if text.strip():
                meta = text.startswith("/")
                out.append(MessageItem(self.sid, self.key, "user", text, self.started, self.root,
                                       "meta" if meta else "text", replace=True))
                if not meta and not self.titled:
                    self.titled = True
                    out.append(SessionInfo(self.sid, NAME, title=" ".join(text.split())[:_TITLE_MAX], title_rank=1))
        elif text.strip():
            out.append(MessageItem(self.sid, self.key, "assistant", text, self.started, self.root, replace=True))
            if final:
                blocks = parse_blocks(text)
                if blocks:
                    self.reply = {"key": self.key, "blocks": blocks, "applied": []}
        if final:
            self.kind, self.key, self.buf, self.fence = None, None, [], None
        return out

    def _tool_output(self, text: str, offset: int) -> list[Item]:
        assert self.sid is not None
        out: list[Item] = []
        if (m := _VERSION.match(text)):
            return [SessionInfo(self.sid, NAME, version=m[1])]
        if (m := _MODEL.match(text)):
            if m[2]:
                self.edit_format = m[2]
            return [SessionInfo(self.sid, NAME, extra={"model": m[1], **({"editFormat": m[2]} if m[2] else {})})]
        if (m := _APPLIED.match(text)):
            if self.reply is None:
                return [Skip("edit_without_blocks", offset, m[1][:100])]
            path = m[1]
            blocks = [b for b in self.reply["blocks"] if b["path"] == path]
            if not blocks or path in self.reply["applied"]:
                return [Skip("edit_without_blocks", offset, path[:100])]
            self.reply["applied"].append(path)
            return self._edits(path, blocks, "applied")
        if (m := _COMMIT.match(text)):
            mkey = self._key(offset)
            call_id = f"{mkey}:commit"
            out.append(MessageItem(self.sid, mkey, "tool", text, self.started, self.root, kind="tool_use"))
            out.append(ToolCallItem(self.sid, call_id, "commit", {"command": f"git commit -m {m[2]!r}",
                                                                  "commit": m[1]}, mkey, self.started, self.root))
            out.append(ToolResultItem(self.sid, call_id, "ok", f"[aider {m[1]}] {m[2]}", 0, mkey, self.started))
        return out

    def _edits(self, path: str, blocks: list[dict[str, Any]], status: str) -> list[Item]:
        assert self.sid is not None and self.reply is not None
        key = self.reply["key"]
        call_id = f"{key}:{path}"
        fmt = blocks[0]["format"]
        out: list[Item] = [ToolCallItem(self.sid, call_id, "aider_edit", {"path": path, "format": fmt,
                                        "blocks": len(blocks)}, key, self.started, self.root)]
        if status == "applied":
            out.append(ToolResultItem(self.sid, call_id, "ok", f"Applied edit to {path}", None, key, self.started))
        for seq, b in enumerate(blocks):
            if b["search"] is None:
                after = b["replace"] + "\n" if b["replace"] else ""
                added, removed, hunks = diff_texts(None, after)
                kind = "create"
            else:
                added, removed, hunks = diff_texts(b["search"], b["replace"])
                kind = "create" if not b["search"].strip() else "update"
                hunks = ()  # numbers relative to the SEARCH text, not to the file
                after = None
            out.append(EditItem(self.sid, call_id, "aider_edit", path, self.root, kind, status,  # type: ignore[arg-type]
                                self.started, key, added, removed, hunks if kind == "create" else (),
                                after=after, seq=seq))
        return out

    def _close_reply(self) -> list[Item]:
        """A reply's blocks whose file got no ``Applied edit`` line did not land: failed."""
        if self.reply is None:
            return []
        out: list[Item] = []
        pending: dict[str, list[dict[str, Any]]] = {}
        for b in self.reply["blocks"]:
            if b["path"] not in self.reply["applied"]:
                pending.setdefault(b["path"], []).append(b)
        for path, blocks in pending.items():
            out += self._edits(path, blocks, "failed")
        self.reply = None
        return out


PROVIDER = _Provider()
