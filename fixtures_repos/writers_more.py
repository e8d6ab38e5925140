"""Transcript writers for the agents added after the first three: Cursor (the editor's
``state.vscdb``), OpenCode (its ``storage/`` JSON files), Aider (``.aider.chat.history.md``),
GitHub Copilot CLI (``session-state/<id>/events.jsonl``) and ChatGPT / claude.ai data exports.

Each writes the records and fields its agent writes (the formats the parsers in
``hansard/agents/`` document, with the versions read there) and, like the writers in
``fixtures_repos.writers``, *performs* every edit it records and notes it in the ``Ledger``: an
applied edit changes the file, a rejected one leaves it alone. The text is this project's own.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import os
import sqlite3
from datetime import datetime
from pathlib import Path
from typing import Any

from fixtures_repos.writers import Clock, EditRecord, Ledger, _Ids, _read_text, _write_text, added_removed, iso_z


def _ms(dt: datetime) -> int:
    return int(dt.timestamp() * 1000)


def _dumps(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


def _replace_once(path: Path, old: str, new: str) -> tuple[str, str]:
    before, crlf = _read_text(path)
    if before.count(old) != 1:
        raise AssertionError(f"the text to replace must occur once in {path}")
    after = before.replace(old, new, 1)
    _write_text(path, after, crlf)
    return before, after


def _unified(old: str, new: str, name: str, context: int = 3) -> str:
    return "".join(difflib.unified_diff(old.splitlines(keepends=True), new.splitlines(keepends=True),
                                        f"a/{name}", f"b/{name}", n=context))


class _Writer:
    provider = ""

    def __init__(self, session_id: str, clock: Clock, ledger: Ledger | None, transcript: Path) -> None:
        self.session_id = session_id
        self.clock = clock
        self.ledger = ledger if ledger is not None else Ledger()
        self.ids = _Ids(f"{self.provider}/{session_id}")
        self.transcript = transcript

    def _tick(self) -> datetime:
        return self.clock.advance(self.ids.step())

    def _record(self, call_id: str, tool: str, path: Path, status: str, before: str | None, after: str | None,
                when: datetime) -> None:
        added, removed = added_removed(before, after) if status == "applied" else ((), ())
        self.ledger.add(EditRecord(provider=self.provider, session_id=self.session_id, tool_call_id=call_id, tool=tool,
                                   path=str(path), time=when, status=status, added=added, removed=removed,
                                   before=before, after=after, transcript=str(self.transcript)))


# ---------------------------------------------------------------------------------------------
# Cursor: state.vscdb (table cursorDiskKV: composerData:<id>, bubbleId:<id>:<bubble>)


class CursorWriter(_Writer):
    """One composer conversation in ``<user dir>/globalStorage/state.vscdb`` (composerData ``_v``
    10, bubbles ``_v`` 3): every message a bubble row, the conversation row rewritten as it
    grows, the way the editor keeps them."""

    provider = "cursor"

    def __init__(self, user_dir: Path, session_id: str, clock: Clock, *, ledger: Ledger | None = None,
                 title: str = "", model: str = "claude-4.5-sonnet") -> None:
        self.db_path = Path(user_dir) / "globalStorage" / "state.vscdb"
        super().__init__(session_id, clock, ledger, self.db_path)
        self.db_path.parent.mkdir(parents=True, exist_ok=True)
        self._sql("CREATE TABLE IF NOT EXISTS ItemTable (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)")
        self._sql("CREATE TABLE IF NOT EXISTS cursorDiskKV (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)")
        self.created = self._tick()
        self.title = title
        self.model = model
        self.headers: list[dict[str, Any]] = []
        self._save_composer()

    def _sql(self, sql: str, args: tuple[Any, ...] = ()) -> None:
        con = sqlite3.connect(self.db_path)
        try:
            with con:
                con.execute(sql, args)
        finally:
            con.close()

    def _put(self, key: str, value: dict[str, Any]) -> None:
        self._sql("INSERT INTO cursorDiskKV (key, value) VALUES (?, ?)", (key, _dumps(value)))

    def _save_composer(self) -> None:
        self._put(f"composerData:{self.session_id}", {
            "_v": 10, "composerId": self.session_id, "name": self.title, "createdAt": _ms(self.created),
            "lastUpdatedAt": _ms(self.clock.now()), "unifiedMode": "agent", "isAgentic": True, "status": "completed",
            "fullConversationHeadersOnly": self.headers, "subComposerIds": [],
            "modelConfig": {"modelName": self.model, "maxMode": False}, "text": "", "richText": "",
            "hasLoaded": True, "context": {}, "totalLinesAdded": 0, "totalLinesRemoved": 0,
        })

    def _bubble(self, btype: int, body: dict[str, Any], *, timed: bool = True) -> str:
        bid = self.ids.uuid4()
        when = iso_z(self._tick())
        self._put(f"bubbleId:{self.session_id}:{bid}", {"_v": 3, "type": btype, "bubbleId": bid,
                                                        **({"createdAt": when} if timed else {}), **body})
        self.headers.append({"bubbleId": bid, "type": btype})
        self._save_composer()
        return bid

    def prompt(self, text: str) -> None:
        self._bubble(1, {"text": text, "richText": "", "context": {}})

    def say(self, text: str) -> None:
        self._bubble(2, {"text": text, "modelInfo": {"modelName": self.model}})

    def _call(self, name: str, args: dict[str, Any], result: dict[str, Any], decision: str | None) -> tuple[str, datetime]:
        call = f"call_{self.ids.b62(24)}"
        tf: dict[str, Any] = {"tool": "38", "toolIndex": "1", "modelCallId": self.ids.uuid4(),
                              "toolCallId": f"{call}\nfc_{self.ids.hex(50)}", "status": "completed",
                              "rawArgs": _dumps(args), "name": name,
                              "params": _dumps({"relativeWorkspacePath": args.get("file_path", "")}),
                              "additionalData": "{}", "result": _dumps(result)}
        if decision is not None:
            tf["userDecision"] = decision
        self._bubble(2, {"text": "", "toolFormerData": tf, "modelInfo": {"modelName": self.model}})
        return call, self.clock.now()  # the bubble's createdAt: the time the parser gives the edit

    def search_replace_as_git_ai_keeps_it(self, file_path: Path, old_string: str, new_string: str) -> str:
        """``search_replace`` applied, its bubble as git-ai leaves it in the conversations its
        notes embed: ``rawArgs`` holds the path alone (git-ai cleared the rest), no result, no
        ``createdAt``. The file changes all the same."""
        p = Path(file_path)
        before, after = _replace_once(p, old_string, new_string)
        call = f"call_{self.ids.b62(24)}"
        tf = {"name": "search_replace", "status": "completed", "toolCallId": call,
              "rawArgs": _dumps({"file_path": str(p)})}
        self._bubble(2, {"text": "", "toolFormerData": tf}, timed=False)
        self._record(call, "search_replace", p, "applied", before, after, self.clock.now())
        return call

    def search_replace(self, file_path: Path, old_string: str, new_string: str, *, reject: bool = False) -> str:
        """``search_replace`` {file_path, old_string, new_string}; its result's ``diff.chunks`` hold
        the change with two-character line prefixes. ``reject``: the user refused it."""
        p = Path(file_path)
        before = _read_text(p)[0]
        after = before.replace(old_string, new_string, 1)
        if before.count(old_string) != 1:
            raise AssertionError(f"old_string must occur once in {p}")
        chunks = []
        for hunk in _unified(before, after, p.name).split("\n@@")[1:]:
            head, _, body = hunk.partition("\n")
            nums = head.split("@@")[0].strip().split()
            (o, ol), (n, nl) = ((x[1:].split(",") + ["1"])[:2] for x in nums)
            lines = [("+ " if ln[:1] == "+" else "- " if ln[:1] == "-" else "  ") + ln[1:]
                     for ln in body.split("\n") if ln]
            chunks.append({"diffString": "\n".join(lines), "oldStart": int(o), "oldLines": int(ol),
                           "newStart": int(n), "newLines": int(nl)})
        result = {} if reject else {"diff": {"chunks": chunks, "editor": "EDITOR_AI"}, "isApplied": True}
        if not reject:
            _replace_once(p, old_string, new_string)
        call, when = self._call("search_replace", {"file_path": str(p), "old_string": old_string,
                                                   "new_string": new_string}, result,
                                "rejected" if reject else "accepted")
        self._record(call, "search_replace", p, "rejected" if reject else "applied", before,
                     None if reject else after, when)
        return call


class CursorTranscriptWriter(_Writer):
    """A Cursor agent transcript, ``<home>/projects/<slug>/agent-transcripts/<id>.jsonl``: one
    ``{"role", "message": {"content": [blocks]}}`` line per turn, no ids, no times, no results."""

    provider = "cursor"

    def __init__(self, home: Path, cwd: Path | str, session_id: str, clock: Clock, *,
                 ledger: Ledger | None = None) -> None:
        slug = str(cwd).strip("/").replace("/", "-").replace(".", "-")
        path = Path(home) / "projects" / slug / "agent-transcripts" / f"{session_id}.jsonl"
        super().__init__(session_id, clock, ledger, path)
        path.parent.mkdir(parents=True, exist_ok=True)

    def _line(self, role: str, content: list[dict[str, Any]]) -> None:
        with open(self.transcript, "a", encoding="utf-8") as fh:
            fh.write(_dumps({"role": role, "message": {"content": content}}) + "\n")

    def prompt(self, text: str) -> None:
        self._line("user", [{"type": "text", "text": f"<user_query>\n{text}\n</user_query>"}])

    def str_replace(self, file_path: Path, old_string: str, new_string: str) -> str:
        """``StrReplace {path, old_string, new_string}``; returns the call id the parser gives
        it (the transcript has none: ``<session>:o<offset>:<block index>``)."""
        p = Path(file_path)
        offset = self.transcript.stat().st_size if self.transcript.exists() else 0
        self._line("assistant", [{"type": "text", "text": "[REDACTED]"},
                                 {"type": "tool_use", "name": "StrReplace",
                                  "input": {"path": str(p), "old_string": old_string, "new_string": new_string}}])
        before, after = _replace_once(p, old_string, new_string)
        call = f"{self.session_id}:o{offset}:1"
        self._record(call, "StrReplace", p, "applied", before, after, self._tick())
        return call


# ---------------------------------------------------------------------------------------------
# OpenCode: storage/{session,message,part} JSON files (0.x - 1.1)


class OpenCodeWriter(_Writer):
    """One session in ``<data>/storage``: ``session/<projectID>/<id>.json``,
    ``message/<session>/<id>.json``, ``part/<message>/<id>.json``. Ids sort in creation order."""

    provider = "opencode"

    def __init__(self, data_dir: Path, cwd: Path | str, clock: Clock, seed: str, *, ledger: Ledger | None = None,
                 model: str = "claude-sonnet-4-5") -> None:
        self.storage = Path(data_dir) / "storage"
        self.cwd = str(cwd)
        self._seq = 0
        ids = _Ids(f"opencode/{seed}")
        self._rand = ids
        start = clock.advance(0.5)
        sid = self._id("ses", start)
        super().__init__(sid, clock, ledger, self.storage)
        self.model = model
        self.project = "prj_" + ids.hex(40)
        self.msg: str | None = None
        self._write(self.storage / "session" / self.project / f"{sid}.json", {
            "id": sid, "version": "1.0.150", "projectID": self.project, "directory": self.cwd,
            "title": f"New session - {start.strftime('%Y-%m-%dT%H:%M:%S')}.{start.microsecond // 1000:03d}Z",
            "time": {"created": _ms(start), "updated": _ms(start)},
        })

    def _id(self, prefix: str, when: datetime) -> str:
        self._seq += 1
        return f"{prefix}_{_ms(when) * 4096 + self._seq:012x}{self._rand.b62(14)}"

    @staticmethod
    def _write(path: Path, obj: dict[str, Any]) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(obj, ensure_ascii=False, indent=2), encoding="utf-8")
        tmp.replace(path)

    def _message(self, role: str) -> str:
        when = self._tick()
        mid = self._id("msg", when)
        body: dict[str, Any] = {"id": mid, "sessionID": self.session_id, "role": role, "time": {"created": _ms(when)}}
        if role == "assistant":
            body.update({"modelID": self.model, "providerID": "anthropic", "mode": "build",
                         "path": {"cwd": self.cwd, "root": self.cwd}, "cost": 0, "system": [],
                         "tokens": {"input": 0, "output": 0, "reasoning": 0, "cache": {"read": 0, "write": 0}}})
        self._write(self.storage / "message" / self.session_id / f"{mid}.json", body)
        self.msg = mid
        return mid

    def _part(self, body: dict[str, Any]) -> str:
        assert self.msg is not None
        when = self._tick()
        pid = self._id("prt", when)
        self._write(self.storage / "part" / self.msg / f"{pid}.json",
                    {"id": pid, "sessionID": self.session_id, "messageID": self.msg, **body})
        return pid

    def prompt(self, text: str) -> None:
        self._message("user")
        now = _ms(self.clock.now())
        self._part({"type": "text", "text": text, "time": {"start": now, "end": now}})
        self._message("assistant")

    def say(self, text: str) -> None:
        now = _ms(self.clock.now())
        self._part({"type": "text", "text": text, "time": {"start": now, "end": now}})

    def edit(self, file_path: Path, old_string: str, new_string: str) -> str:
        """The ``edit`` tool {filePath, oldString, newString}; metadata ``diff`` is the unified diff."""
        p = Path(file_path)
        start = self._tick()
        before, after = _replace_once(p, old_string, new_string)
        end = self._tick()
        call = f"toolu_{self._rand.b62(24)}"
        self._part({"type": "tool", "callID": call, "tool": "edit", "state": {
            "status": "completed", "input": {"filePath": str(p), "oldString": old_string, "newString": new_string},
            "output": "", "title": os.path.relpath(p, self.cwd),
            "metadata": {"diff": _unified(before, after, str(p)), "filediff": {"file": str(p), "before": before,
                                                                                 "after": after}},
            "time": {"start": _ms(start), "end": _ms(end)}}})
        self._record(call, "edit", p, "applied", before, after, end)
        return call


# ---------------------------------------------------------------------------------------------
# Aider: .aider.chat.history.md at the top of the repository


class AiderWriter(_Writer):
    """Appends one aider run to ``<repo>/.aider.chat.history.md`` (aider 0.86, ``diff`` edit
    format): the banner, ``#### `` prompt lines, the model's reply with SEARCH/REPLACE blocks,
    ``> Applied edit to`` and ``> Commit`` lines."""

    provider = "aider"

    def __init__(self, repo: Path, clock: Clock, *, ledger: Ledger | None = None,
                 model: str = "anthropic/claude-sonnet-4-5") -> None:
        self.repo = Path(repo)
        path = self.repo / ".aider.chat.history.md"
        start = clock.next_second(30)
        # aider names no session; the parser's id is the start time and where the banner sits
        banner_at = (path.stat().st_size if path.exists() else 0) + 1
        digest = hashlib.blake2b(f"{path}\0{banner_at}".encode(), digest_size=6).hexdigest()
        super().__init__(f"aider-{start.strftime('%Y%m%dT%H%M%S')}-{digest}", clock, ledger, path)
        self.started = start
        self._append(f"\n# aider chat started at {start.strftime('%Y-%m-%d %H:%M:%S')}\n\n"
                     f"> /usr/local/bin/aider --model {model}  \n> Aider v0.86.1  \n"
                     f"> Main model: {model} with diff edit format, infinite output  \n"
                     "> Git repo: .git with 2 files  \n> Repo-map: using 4096 tokens, auto refresh  \n")

    def _append(self, text: str) -> None:
        with open(self.transcript, "a", encoding="utf-8") as fh:
            fh.write(text)

    def prompt(self, text: str) -> None:
        self._append("\n" + "".join(f"#### {ln}  \n" for ln in text.split("\n")) + "\n")
        self.clock.advance(5)

    def reply(self, text: str, *blocks: tuple[Path, str, str]) -> list[str]:
        """The model's reply ``text`` followed by one SEARCH/REPLACE block per (path, search,
        replace); aider then applies each file's blocks. Returns the edit call ids in the form the
        parser gives them (``<reply key>:<path>``) once the reply's offset is known."""
        body = text.rstrip("\n") + "\n\n"
        for path, search, replace in blocks:
            rel = path.relative_to(self.repo).as_posix()
            body += f"{rel}\n```python\n<<<<<<< SEARCH\n{search}=======\n{replace}>>>>>>> REPLACE\n```\n\n"
        offset = self.transcript.stat().st_size
        self._append(body)
        self.clock.advance(3)
        calls = []
        done: set[str] = set()
        for path, search, replace in blocks:
            rel = path.relative_to(self.repo).as_posix()
            when = self.clock.now()
            if search:
                before, after = _replace_once(path, search, replace)
            else:
                before, after = None, replace
                _write_text(path, replace)
            call = f"{self.session_id}:o{offset}:{rel}"
            self._record(call, "aider_edit", path, "applied", before, after, when)
            if rel not in done:
                done.add(rel)
                calls.append(call)
        self._append("> Tokens: 2.4k sent, 310 received. Cost: $0.01 message, $0.01 session.  \n"
                     + "".join(f"> Applied edit to {rel}  \n" for rel in dict.fromkeys(
                         p.relative_to(self.repo).as_posix() for p, _, _ in blocks)))
        return calls

    def committed(self, sha: str, message: str) -> None:
        """aider's own commit of the edits it just applied (``> Commit <sha7> <message>``)."""
        self._append(f"> Commit {sha[:7]} {message}  \n")


# ---------------------------------------------------------------------------------------------
# GitHub Copilot CLI: session-state/<id>/events.jsonl


class CopilotWriter(_Writer):
    """One session of Copilot CLI 0.0.4xx: ``session.start``, ``user.message``,
    ``assistant.message`` with ``toolRequests``, ``tool.execution_start``/``_complete``."""

    provider = "copilot"

    def __init__(self, home: Path, cwd: Path | str, session_id: str, clock: Clock, *, ledger: Ledger | None = None,
                 model: str = "claude-sonnet-4.5") -> None:
        path = Path(home) / "session-state" / session_id / "events.jsonl"
        super().__init__(session_id, clock, ledger, path)
        path.parent.mkdir(parents=True, exist_ok=True)
        self.cwd = str(cwd)
        self._n = 0
        self._last: str | None = None
        start = iso_z(self._tick())
        self._emit("session.start", {"sessionId": session_id, "version": 1, "producer": "copilot-agent",
                                     "copilotVersion": "0.0.410", "startTime": start,
                                     "context": {"cwd": self.cwd, "gitRoot": self.cwd, "branch": "main"}}, start)
        self._emit("session.model_change", {"newModel": model})

    def _emit(self, etype: str, data: dict[str, Any], ts: str | None = None) -> str:
        eid = self.ids.uuid4()
        rec = {"type": etype, "data": data, "id": eid, "timestamp": ts or iso_z(self._tick()), "parentId": self._last}
        with open(self.transcript, "a", encoding="utf-8") as fh:
            fh.write(_dumps(rec) + "\n")
        self._last = eid
        return eid

    def prompt(self, text: str) -> None:
        self._emit("user.message", {"content": text, "attachments": []})

    def say(self, text: str) -> None:
        self._emit("assistant.message", {"messageId": self.ids.uuid4(), "content": text, "toolRequests": []})

    def edit(self, file_path: Path, old_str: str, new_str: str) -> str:
        p = Path(file_path)
        call = f"toolu_{self.ids.b62(24)}"
        args = {"path": str(p), "old_str": old_str, "new_str": new_str}
        self._emit("assistant.message", {"messageId": self.ids.uuid4(), "content": "",
                                         "toolRequests": [{"toolCallId": call, "name": "edit", "arguments": args,
                                                           "type": "function"}]})
        self._emit("tool.execution_start", {"toolCallId": call, "toolName": "edit", "arguments": args})
        before, after = _replace_once(p, old_str, new_str)
        when = self._tick()
        self._emit("tool.execution_complete", {"toolCallId": call, "success": True, "result": {
            "content": f"File {p} updated with changes.", "detailedContent": _unified(before, after, str(p))}},
            iso_z(when))
        self._record(call, "edit", p, "applied", before, after, when)
        return call


# ---------------------------------------------------------------------------------------------
# Web chats: a ChatGPT data export's conversations.json


class ChatGPTExport:
    """``conversations.json`` of a ChatGPT export: each conversation a message tree (``mapping``)
    whose ``current_node`` is the leaf the user last saw; a regenerated reply is a sibling."""

    def __init__(self, clock: Clock, seed: str = "chatgpt") -> None:
        self.clock = clock
        self.ids = _Ids(seed)
        self.conversations: list[dict[str, Any]] = []

    def conversation(self, title: str, turns: list[tuple[str, str]], *, regenerated: str | None = None) -> tuple[str, list[str]]:
        """A conversation of (user, assistant) turns; ``regenerated`` adds an abandoned first
        version of the last reply on another branch. Returns (conversation id, message ids of
        the current branch in order)."""
        cid = self.ids.uuid4()
        root = self.ids.uuid4()
        created = self.clock.advance(10).timestamp()
        mapping: dict[str, Any] = {root: {"id": root, "message": None, "parent": None, "children": []}}
        parent = root
        order: list[str] = []

        def add(role: str, text: str, under: str) -> str:
            nid = self.ids.uuid4()
            mapping[nid] = {"id": nid, "parent": under, "children": [], "message": {
                "id": nid, "author": {"role": role, "name": None, "metadata": {}},
                "create_time": self.clock.advance(20).timestamp(), "update_time": None,
                "content": {"content_type": "text", "parts": [text]}, "status": "finished_successfully",
                "end_turn": role == "assistant" or None, "weight": 1.0,
                "metadata": {"model_slug": "gpt-5"} if role == "assistant" else {}, "recipient": "all"}}
            mapping[under]["children"].append(nid)
            return nid

        for i, (user, assistant) in enumerate(turns):
            u = add("user", user, parent)
            order.append(u)
            if regenerated is not None and i == len(turns) - 1:
                add("assistant", regenerated, u)
            parent = add("assistant", assistant, u)
            order.append(parent)
        self.conversations.append({"id": cid, "conversation_id": cid, "title": title, "create_time": created,
                                   "update_time": self.clock.now().timestamp(), "mapping": mapping,
                                   "current_node": parent, "moderation_results": [], "is_archived": False,
                                   "default_model_slug": "gpt-5"})
        return cid, order

    def write(self, path: Path) -> Path:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(self.conversations, ensure_ascii=False), encoding="utf-8")
        return path
