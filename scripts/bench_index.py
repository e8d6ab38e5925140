#!/usr/bin/env python3
"""Benchmark `hansard index` on a seeded synthetic corpus in the real on-disk shapes.

What it does
  1. Generates (or reuses, ``--corpus DIR``) a corpus of Claude Code transcripts
     (``CLAUDE_CONFIG_DIR/projects/<encoded-cwd>/<uuid>.jsonl``, subagents under
     ``<uuid>/subagents/agent-<id>.jsonl`` + ``.meta.json``) and Codex rollouts
     (``CODEX_HOME/sessions/YYYY/MM/DD/rollout-<ts>-<uuid>.jsonl``), shaped record for record
     like the samples in ../shared/samples (envelopes, Edit/Write toolUseResult with
     originalFile and a consistent structuredPatch, Bash, Read, Grep, TodoWrite, Task; Codex
     session_meta, turn_context, exec_command + exec_command_end, custom_tool_call
     apply_patch + patch_apply_end, update_plan, event_msg duplicates, token_count ...).
     About a fifth of the bytes are multi-MB lines (Edit originalFile, Write content, pasted
     images, apply_patch adds, big command output).
  2. Measures, each in a child process with its own HANSARD_HOME (peak RSS from wait4):
       - full index: MB/s and sessions/s, against a raw read + orjson.loads of every line;
       - peak RSS of the indexing, against the same raw-read child;
       - no-change re-scan of 1,000 files (median), against os.stat of the same files;
       - indexing one appended line to a small file and to a multi-MB file (median), with
         the ratio between them, plus a 1 MB appended line.
  3. Prints every measurement beside its target and baseline with PASS/MISS.

``run(quick)`` returns the rows as a list of dicts for scripts/bench_all.py.

Usage
  python scripts/bench_index.py --quick            # 100 sessions, 20 MB: a smoke run
  python scripts/bench_index.py                    # 2,000 sessions, ~500 MB
  python scripts/bench_index.py --corpus /tmp/c    # generate once into /tmp/c, then reuse
  python scripts/bench_index.py --profile          # also a cProfile of the full index

MB here means 10^6 bytes; RSS is in MiB.
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid as _uuid
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import orjson

GEN_VERSION = 1
MB = 1_000_000
MIB = 1 << 20

TARGET_MBPS = 25.0
TARGET_RSS_MIB = 600.0
TARGET_RESCAN_MS = 150.0
TARGET_APPEND_RATIO = 2.0  # t(append to multi-MB file) / t(append to small file)

RESCAN_FILES = 1000
BIG_SHARE = 0.2  # share of corpus bytes in multi-MB lines
CODEX_SHARE = 0.35
SUBAGENT_SHARE = 0.05
SIZE_CALIBRATION = 0.8

FULL = {"sessions": 2000, "mb": 500}
QUICK = {"sessions": 100, "mb": 20}

# ---------------------------------------------------------------------------------------------
# text pools
# ---------------------------------------------------------------------------------------------

WORDS = """alpha beta gamma delta config handler request response session message token buffer index
record offset parser writer reader store cache value result error context client server event stream
batch queue worker task plan patch diff line file path repo commit branch tree node edge graph state
model schema table column query cursor items count total limit start end size name kind status output
input source target mode flags options args user agent tool call edit hunk text data bytes blob hash key
uuid stamp retry timeout delay ready done payload header footer chunk frame layout render widget button
metrics tracer span logger policy sandbox workspace compact transcript capability protocol""".split()
PROSE = """the a to of and in that is for it with as was on be by this are or from at which an but not have
we can will should would could all so if then there their when what how more some other only also into
after before because while about over such these those first last next new old same each every both
function change update test build fix check run make sure file code error case value return type field
method call handle read write parse index store record session agent commit branch patch line diff""".split()
TYPES = ["int", "str", "bytes", "bool", "float", "dict[str, Any]", "list[str]", "None", "Path", "Iterator[Record]"]
INDENTS = ["", "    ", "    ", "        ", "        ", "            ", "\t", "\t\t", "\t\t\t"]
EXTS = [".py", ".go", ".ts", ".rs", ".md", ".tsx", ".json", ".toml"]
DIRS = ["src", "src/core", "internal/pi", "internal/protocol", "lib", "tests", "cmd/app", "pkg/store", "web/components"]
ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
HEX = "0123456789abcdef"
BASH_CMDS = [
    "git status --short", "git diff --stat", "go test ./... 2>&1 | tail -40", "pytest -q -x 2>&1 | tail -30",
    "ls -la", "rg -n \"{w}\" src/", "go build ./... && go vet ./...", "npm test -- --runInBand 2>&1 | tail -50",
    "cat {f}", "sed -n '1,200p' {f}", "git log --oneline -20", "make lint 2>&1 | tail -20", "wc -l {f}",
    "grep -rn '{w}' .", "python -m mypy src 2>&1 | tail -20", "cargo check 2>&1 | tail -30",
]


class Text:
    """Pseudo-random but plausible code and prose, drawn from pools built from the seed."""

    def __init__(self, seed: int) -> None:
        r = random.Random(seed ^ 0x5EED)
        self.code_pool = [self._code_line(r) for _ in range(40000)]
        self.prose_pool = [self._sentence(r) for _ in range(6000)]
        self.avg_code = sum(len(x) + 1 for x in self.code_pool) / len(self.code_pool)
        self.avg_prose = sum(len(x) + 1 for x in self.prose_pool) / len(self.prose_pool)
        # Long fixed texts repeated in every session, as the agents do.
        self.base_instructions = self.prose_bytes(r, 21000)
        self.permissions = "<permissions instructions>\n" + self.prose_bytes(r, 6900) + "\n</permissions instructions>"
        self.collab = "<collaboration_mode># Collaboration Mode: Default\n\n" + self.prose_bytes(r, 980) + "</collaboration_mode>"
        self.skills = "<skills_instructions>\n## Skills\n" + self.prose_bytes(r, 8200) + "\n</skills_instructions>"
        self.plugins = "<plugins_instructions>\n## Plugins\n" + self.prose_bytes(r, 2400) + "\n</plugins_instructions>"
        self.agents_md = "# External Agent Builder\n\n" + self.prose_bytes(r, 2100)
        self.hook_context = self.prose_bytes(r, 5900)

    @staticmethod
    def _sentence(r: random.Random) -> str:
        words = r.choices(PROSE + WORDS, k=r.randint(5, 18))
        return " ".join(words).capitalize() + r.choice([".", ".", ".", ":", "?"])

    @staticmethod
    def _code_line(r: random.Random) -> str:
        a, b, c, d = (r.choice(WORDS) for _ in range(4))
        n = r.randrange(1000)
        ind = r.choice(INDENTS)
        k = r.randrange(18)
        if k == 0:
            s = f"def {a}_{b}(self, {c}: {r.choice(TYPES)}, {d}: int = {n}) -> {r.choice(TYPES)}:"
        elif k == 1:
            s = f"{a}_{b} = self.{c}.get({d!r}, {n})"
        elif k == 2:
            s = f"if {a} is not None and len({b}_{c}) > {n}:"
        elif k == 3:
            s = f"return {a}.{b}_{c}({d}, timeout={n})"
        elif k == 4:
            s = f"for {a} in {b}.{c}s:"
        elif k == 5:
            s = "# " + " ".join(r.choices(PROSE, k=r.randint(4, 10)))
        elif k == 6:
            s = f"{a}, err := {b}.{c.capitalize()}{d.capitalize()}(ctx, {n})"
        elif k == 7:
            s = f'return nil, fmt.Errorf("{a} {b}: %w", err)'
        elif k in (8, 9):
            s = r.choice(["}", "", "", ")", "]", "end", "})"])
        elif k == 10:
            s = f'const {a}{b.capitalize()} = "{c}-{d}"'
        elif k == 11:
            s = f"self.{a} = {b}({c}={n}, {d}=True)"
        elif k == 12:
            s = f'raise {a.capitalize()}Error(f"{b} {c} failed: {{{d}}}")'
        elif k == 13:
            s = f'logger.debug("{a} %s %d", {b}, {n})'
        elif k == 14:
            s = f"{a}.append(({b}, {c}[{n % 10}]))"
        elif k == 15:
            s = f"export function {a}{b.capitalize()}({c}: string): Promise<{d.capitalize()}> {{"
        elif k == 16:
            s = f"assert {a}_{b} == {n}, {c}"
        else:
            s = f"\t{a}{b.capitalize()} {r.choice(['string', 'int', 'bool', '[]byte'])} `json:\"{a}_{b},omitempty\"`"
        return ind + s

    def code_lines(self, r: random.Random, nbytes: int) -> list[str]:
        return r.choices(self.code_pool, k=max(1, int(nbytes / self.avg_code)))

    def prose(self, r: random.Random, n: int) -> str:
        return " ".join(r.choices(self.prose_pool, k=max(1, n)))

    def prose_bytes(self, r: random.Random, nbytes: int) -> str:
        out = []
        size = 0
        while size < nbytes:
            para = " ".join(r.choices(self.prose_pool, k=r.randint(2, 6)))
            out.append(para)
            size += len(para) + 2
        return "\n\n".join(out)[:nbytes]


def rid(r: random.Random, prefix: str, n: int) -> str:
    return prefix + "".join(r.choices(ALNUM, k=n))


def uuid4(r: random.Random) -> str:
    return str(_uuid.UUID(int=r.getrandbits(128), version=4))


def uuid7(r: random.Random, t: float) -> str:
    ms = int(t * 1000) & ((1 << 48) - 1)
    v = (ms << 80) | (0x7 << 76) | (r.getrandbits(12) << 64) | (0b10 << 62) | r.getrandbits(62)
    h = f"{v:032x}"
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def iso(t: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(t)) + f".{int(t * 1000) % 1000:03d}Z"


def lognorm(r: random.Random, median: float, sigma: float, lo: float, hi: float) -> int:
    return int(min(hi, max(lo, median * pow(2.718281828, r.gauss(0, sigma)))))


def encode_cwd(cwd: str) -> str:
    return "".join(ch if ch.isalnum() or ch == "-" else "-" for ch in cwd)


def make_hunk(before: list[str], i: int, k_old: int, new: list[str], ctx: int) -> dict[str, Any]:
    """A jsdiff-style hunk (1-based numbers) replacing before[i:i+k_old] with new."""
    n = len(before)
    s = max(0, i - ctx)
    e = min(n, i + k_old + ctx)
    lines = [" " + x for x in before[s:i]] + ["-" + x for x in before[i:i + k_old]] + ["+" + x for x in new] \
        + [" " + x for x in before[i + k_old:e]]
    old_lines = e - s
    return {"oldStart": s + 1, "oldLines": old_lines, "newStart": s + 1, "newLines": old_lines - k_old + len(new),
            "lines": lines}


# ---------------------------------------------------------------------------------------------
# writers
# ---------------------------------------------------------------------------------------------


class _Out:
    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self.fh = open(path, "wb", buffering=1 << 20)  # noqa: SIM115
        self.size = 0
        self.lines = 0
        self.max_line = 0
        self.big_lines = 0  # lines of 1 MB or more

    def emit(self, obj: dict[str, Any]) -> None:
        b = orjson.dumps(obj)
        self.fh.write(b)
        self.fh.write(b"\n")
        self.size += len(b) + 1
        self.lines += 1
        if len(b) > self.max_line:
            self.max_line = len(b)
        if len(b) >= MB:
            self.big_lines += 1

    def close(self) -> None:
        self.fh.close()


USAGE_CC = {"input_tokens": 1, "cache_creation_input_tokens": 4450, "cache_read_input_tokens": 39980, "output_tokens": 300,
            "server_tool_use": {"web_search_requests": 0, "web_fetch_requests": 0}, "service_tier": "standard",
            "cache_creation": {"ephemeral_1h_input_tokens": 4450, "ephemeral_5m_input_tokens": 0}, "inference_geo": "",
            "iterations": [{"input_tokens": 1, "output_tokens": 300, "cache_read_input_tokens": 39980,
                            "cache_creation_input_tokens": 4450,
                            "cache_creation": {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 4450},
                            "type": "message"}], "speed": "standard"}
REJECTED = ("The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, "
            "the new_string was NOT written to the file). To tell you how to proceed, the user said:\n")
TODO_OK = ("Todos have been modified successfully. Ensure that you continue to use the todo list to track your progress. "
           "Please proceed with the current tasks if applicable")


class ClaudeSession:
    """One Claude Code transcript (2.1.119 shapes), written line by line."""

    VERSION = "2.1.119"
    MODEL = "claude-opus-4-7"

    def __init__(self, tx: Text, r: random.Random, out: _Out, sid: str, cwd: str, t0: float, branch: str,
                 agent_id: str | None = None, proj_dir: Path | None = None, stats: dict[str, int] | None = None) -> None:
        self.tx, self.r, self.out = tx, r, out
        self.sid, self.cwd, self.t, self.branch = sid, cwd, t0, branch
        self.root_cwd = cwd
        self.agent_id = agent_id
        self.proj_dir = proj_dir
        self.last: str | None = None
        self.files: dict[str, list[str]] = {}
        self.read: set[str] = set()
        self.prompt_id = uuid4(r)
        self.stats = stats if stats is not None else {}
        self.children: list[_Out] = []
        self.want_task = False  # spawn one subagent (Task) in this session

    # -- envelope --

    def ts(self, lo: float = 0.05, hi: float = 6.0) -> str:
        self.t += self.r.uniform(lo, hi)
        return iso(self.t)

    def _head(self) -> dict[str, Any]:
        d: dict[str, Any] = {"parentUuid": self.last, "isSidechain": self.agent_id is not None}
        if self.agent_id:
            d["agentId"] = self.agent_id
        return d

    def _tail(self, d: dict[str, Any]) -> dict[str, Any]:
        d.update(userType="external", entrypoint="cli", cwd=self.cwd, sessionId=self.sid, version=self.VERSION,
                 gitBranch=self.branch)
        return d

    def _count(self, k: str, n: int = 1) -> None:
        self.stats[k] = self.stats.get(k, 0) + n

    # -- records --

    def meta_line(self, kind: str) -> None:
        if self.agent_id:
            return
        if kind == "permission-mode":
            self.out.emit({"type": "permission-mode", "permissionMode": "default", "sessionId": self.sid})
        elif kind == "last-prompt":
            self.out.emit({"type": "last-prompt", "lastPrompt": self.tx.prose(self.r, 1)[:200], "sessionId": self.sid})
        elif kind == "custom-title":
            self.out.emit({"type": "custom-title", "customTitle": "-".join(self.r.choices(WORDS, k=3)),
                           "sessionId": self.sid})

    def attachment(self, att: dict[str, Any]) -> None:
        u = uuid4(self.r)
        d = self._head()
        d.update(attachment=att, type="attachment", uuid=u, timestamp=self.ts(0.01, 0.3))
        self.out.emit(self._tail(d))
        self.last = u

    def snapshot(self, tracked: dict[str, Any] | None = None, update: bool = False) -> None:
        if self.agent_id:
            return
        mid = uuid4(self.r)
        self.out.emit({"type": "file-history-snapshot", "messageId": mid,
                       "snapshot": {"messageId": mid, "trackedFileBackups": tracked or {}, "timestamp": iso(self.t)},
                       "isSnapshotUpdate": update})

    def user_prompt(self, content: Any) -> None:
        u = uuid4(self.r)
        self.prompt_id = uuid4(self.r)
        d = self._head()
        d.update(promptId=self.prompt_id, type="user", message={"role": "user", "content": content}, uuid=u,
                 timestamp=self.ts(5, 120), permissionMode="default")
        self.out.emit(self._tail(d))
        self.last = u
        self._count("messages")

    def assistant(self, block: dict[str, Any], msg_id: str, req_id: str, stop: str | None) -> str:
        u = uuid4(self.r)
        d = self._head()
        d.update(message={"model": self.MODEL, "id": msg_id, "type": "message", "role": "assistant", "content": [block],
                          "stop_reason": stop, "stop_sequence": None, "stop_details": None, "usage": USAGE_CC},
                 requestId=req_id, type="assistant", uuid=u, timestamp=self.ts(0.2, 4))
        self.out.emit(self._tail(d))
        self.last = u
        self._count("messages")
        return u

    def tool_result(self, src_uuid: str, tool_id: str, content: Any, tur: Any, is_error: bool | None) -> None:
        u = uuid4(self.r)
        block: dict[str, Any] = {"tool_use_id": tool_id, "type": "tool_result", "content": content}
        if is_error is not None:
            block["is_error"] = is_error
        d = self._head()
        d.update(promptId=self.prompt_id, type="user", message={"role": "user", "content": [block]}, uuid=u,
                 timestamp=self.ts(0.05, 20), toolUseResult=tur, sourceToolAssistantUUID=src_uuid)
        self.out.emit(self._tail(d))
        self.last = u
        self._count("messages")

    def system(self, subtype: str) -> None:
        u = uuid4(self.r)
        d = self._head()
        d.update(type="system", subtype=subtype)
        if subtype == "stop_hook_summary":
            d.update(hookCount=1, hookInfos=[{"command": "entire hooks claude-code stop", "durationMs": 3299}],
                     hookErrors=[], preventedContinuation=False, stopReason="", hasOutput=False, level="suggestion")
        else:
            d.update(durationMs=self.r.randint(2000, 400000), messageCount=self.r.randint(4, 80))
        d.update(timestamp=self.ts(0.01, 1), uuid=u)
        if subtype == "turn_duration":
            d["isMeta"] = False
        self.out.emit(self._tail(d))
        self.last = u

    # -- files --

    def new_path(self) -> str:
        r = self.r
        return f"{self.root_cwd}/{r.choice(DIRS)}/{r.choice(WORDS)}_{r.choice(WORDS)}{r.choice(EXTS)}"

    def file_for_edit(self, nbytes: int | None = None) -> str:
        if self.files and nbytes is None and self.r.random() < 0.7:
            return self.r.choice(list(self.files))
        p = self.new_path()
        size = nbytes if nbytes is not None else lognorm(self.r, 6000, 1.2, 300, 200_000)
        self.files[p] = self.tx.code_lines(self.r, size)
        return p

    # -- tools: each returns (name, input, result content, toolUseResult, is_error) --

    def t_read(self, path: str | None = None) -> tuple:
        p = path or (self.r.choice(list(self.files)) if self.files and self.r.random() < 0.5 else self.file_for_edit())
        lines = self.files.setdefault(p, self.tx.code_lines(self.r, lognorm(self.r, 6000, 1.2, 300, 200_000)))
        shown = lines[:2000]
        self.read.add(p)
        body = "\n".join(shown)
        numbered = "\n".join(f"{i + 1}\t{x}" for i, x in enumerate(shown))
        tur = {"type": "text", "file": {"filePath": p, "content": body, "numLines": len(shown), "startLine": 1,
                                        "totalLines": len(lines)}}
        return "Read", {"file_path": p}, numbered, tur, None

    def t_bash(self) -> tuple:
        r = self.r
        cmd = r.choice(BASH_CMDS).format(w=r.choice(WORDS), f=self.new_path())
        n = lognorm(r, 700, 1.6, 0, 30000)
        out = "\n".join(self.tx.code_lines(r, n)) if n > 40 else ""
        inp = {"command": cmd, "description": self.tx.prose(r, 1)[:80]}
        if r.random() < 0.1:
            err = f"Exit code 1\n{out[:4000]}"
            return "Bash", inp, err, "Error: " + err, True
        tur = {"stdout": out, "stderr": "", "interrupted": False, "isImage": False, "noOutputExpected": False}
        return "Bash", inp, out or "(Bash completed with no output)", tur, False

    def t_grep(self) -> tuple:
        r = self.r
        w = r.choice(WORDS)
        hits = [f"{self.new_path()[len(self.root_cwd) + 1:]}:{r.randint(1, 900)}:{x}"
                for x in r.choices(self.tx.code_pool, k=lognorm(r, 12, 1.0, 0, 250))]
        text = "\n".join(hits)
        tur = {"mode": "content", "numFiles": len({h.split(':')[0] for h in hits}), "filenames": [], "content": text,
               "numLines": len(hits)}
        inp = {"pattern": w, "path": self.cwd, "output_mode": "content", "-n": True}
        return "Grep", inp, text or "No matches found", tur, None

    def t_todo(self) -> tuple:
        r = self.r
        todos = [{"content": self.tx.prose(r, 1)[:90], "status": r.choice(["pending", "in_progress", "completed"]),
                  "activeForm": self.tx.prose(r, 1)[:60]} for _ in range(r.randint(2, 7))]
        return "TodoWrite", {"todos": todos}, TODO_OK, {"oldTodos": todos[1:], "newTodos": todos}, None

    def t_edit(self, nbytes: int | None = None, path: str | None = None) -> tuple:
        r = self.r
        p = path or self.file_for_edit(nbytes)
        lines = self.files[p]
        inp_base = {"replace_all": False, "file_path": p}
        if r.random() < 0.05 or len(lines) < 3:
            # rejected or failed: nothing changes
            old, new = "\n".join(lines[:2]), "\n".join(self.tx.code_lines(r, 80))
            inp = {**inp_base, "old_string": old, "new_string": new}
            if r.random() < 0.5:
                said = self.tx.prose(r, 1)
                self._count("edits_rejected")
                return "Edit", inp, REJECTED + said, "Error: " + REJECTED + said, True
            self._count("edits_failed")
            msg = f"<tool_use_error>String to replace not found in file.\nString: {old[:200]}</tool_use_error>"
            return "Edit", inp, msg, "Error: String to replace not found in file.\nString: " + old[:200], True
        i = r.randrange(0, max(1, len(lines) - 2))
        k_old = min(len(lines) - i, r.randint(2, 6))
        new = self.tx.code_lines(r, r.randint(40, 600))
        old_s, new_s = "\n".join(lines[i:i + k_old]), "\n".join(new)
        before = "\n".join(lines) + "\n"
        hunk = make_hunk(lines, i, k_old, new, 3)
        self.files[p] = lines[:i] + new + lines[i + k_old:]
        tur = {"filePath": p, "oldString": old_s, "newString": new_s, "originalFile": before, "structuredPatch": [hunk],
               "userModified": False, "replaceAll": False}
        self._count("edits_applied")
        return "Edit", {**inp_base, "old_string": old_s, "new_string": new_s}, \
            f"The file {p} has been updated successfully.", tur, None

    def t_write(self, nbytes: int | None = None) -> tuple:
        r = self.r
        if nbytes is None and self.files and r.random() < 0.35:
            p = r.choice(list(self.files))
            lines = self.files[p]
            if len(lines) >= 3:
                i = r.randrange(0, len(lines) - 2)
                k_old = min(len(lines) - i, r.randint(1, 8))
                new = self.tx.code_lines(r, r.randint(40, 1500))
                before = "\n".join(lines) + "\n"
                after_lines = lines[:i] + new + lines[i + k_old:]
                content = "\n".join(after_lines) + "\n"
                hunk = make_hunk(lines, i, k_old, new, 3)
                self.files[p] = after_lines
                tur = {"type": "update", "filePath": p, "content": content, "structuredPatch": [hunk],
                       "originalFile": before, "userModified": False}
                self._count("edits_applied")
                return "Write", {"file_path": p, "content": content}, \
                    f"The file {p} has been updated successfully.", tur, None
        p = self.new_path()
        lines = self.tx.code_lines(r, nbytes if nbytes is not None else lognorm(r, 3000, 1.1, 100, 60000))
        self.files[p] = lines
        content = "\n".join(lines) + "\n"
        tur = {"type": "create", "filePath": p, "content": content, "structuredPatch": [], "originalFile": None}
        self._count("edits_applied")
        return "Write", {"file_path": p, "content": content}, f"File created successfully at: {p}", tur, None

    def t_task(self) -> tuple | None:
        if self.agent_id or self.proj_dir is None:
            return None
        r = self.r
        aid = "a" + "".join(r.choices(HEX, k=16))
        desc = " ".join(r.choices(WORDS, k=3))
        prompt = self.tx.prose(r, r.randint(3, 10))
        call_id = rid(r, "toolu_01", 22)
        path = self.proj_dir / self.sid / "subagents" / f"agent-{aid}.jsonl"
        out = _Out(path)
        sub = ClaudeSession(self.tx, random.Random(r.getrandbits(64)), out, self.sid, self.cwd, self.t, self.branch,
                            agent_id=aid, stats=self.stats)
        sub.user_prompt(prompt)
        target = lognorm(r, 60_000, 0.8, 8_000, 400_000)
        while out.size < target:
            sub.step()
        final = self.tx.prose(r, r.randint(2, 8))
        sub.assistant({"type": "text", "text": final}, rid(r, "msg_01", 22), rid(r, "req_011C", 18), "end_turn")
        out.close()
        (path.parent / f"agent-{aid}.meta.json").write_bytes(
            orjson.dumps({"agentType": "general-purpose", "description": desc, "toolUseId": call_id}))
        self.children.append(out)
        self._count("subagents")
        content = [{"type": "text", "text": final},
                   {"type": "text", "text": f"agentId: {aid} (use SendMessage with to: '{aid}' to continue this agent)"}]
        tur = {"status": "completed", "prompt": prompt, "agentId": aid, "content": [{"type": "text", "text": final}],
               "totalDurationMs": r.randint(5000, 400000), "totalTokens": r.randint(5000, 90000),
               "totalToolUseCount": r.randint(2, 40)}
        self.t = max(self.t, sub.t)
        return ("Task", {"description": desc, "prompt": prompt, "subagent_type": "general-purpose"}, content, tur, None,
                call_id)

    # -- structure --

    def tools(self, calls: list[tuple]) -> None:
        """One API message: optional thinking and text lines, one line per tool_use, then the results."""
        r = self.r
        msg_id, req_id = rid(r, "msg_01", 22), rid(r, "req_011C", 18)
        if r.random() < 0.55:
            sig = base64.b64encode(r.randbytes(lognorm(r, 600, 0.6, 200, 6000))).decode()
            self.assistant({"type": "thinking", "thinking": "", "signature": sig}, msg_id, req_id, "tool_use")
        if r.random() < 0.4:
            self.assistant({"type": "text", "text": self.tx.prose(r, r.randint(1, 4))}, msg_id, req_id, "tool_use")
        uses = []
        for c in calls:
            call_id = c[5] if len(c) > 5 else rid(r, "toolu_01", 22)
            u = self.assistant({"type": "tool_use", "id": call_id, "name": c[0], "input": c[1],
                                "caller": {"type": "direct"}}, msg_id, req_id, "tool_use")
            uses.append((u, call_id, c))
            self._count("tool_calls")
        for u, call_id, c in uses:
            self.tool_result(u, call_id, c[2], c[3], c[4])

    def step(self, big: tuple[str, int] | None = None) -> None:
        r = self.r
        if big is not None:
            kind, size = big
            if kind == "cc_edit":
                self.tools([self.t_edit(size)])
            elif kind == "cc_write":
                self.tools([self.t_write(size)])
            else:  # cc_image: a pasted screenshot
                data = base64.b64encode(r.randbytes(size * 3 // 4)).decode()
                self.user_prompt([{"type": "text", "text": self.tx.prose(r, 2)},
                                  {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": data}}])
            return
        n = 1 if r.random() < 0.8 else r.randint(2, 3)
        calls: list[tuple] = []
        for _ in range(n):
            x = r.random()
            if x < 0.26:
                calls.append(self.t_read())
            elif x < 0.56:
                calls.append(self.t_bash())
            elif x < 0.76:
                p = self.file_for_edit()
                if p not in self.read:
                    self.tools([self.t_read(p)])  # Claude Code refuses to edit an unread file
                calls.append(self.t_edit(path=p))
            elif x < 0.83:
                calls.append(self.t_write())
            elif x < 0.93:
                calls.append(self.t_grep())
            elif self.want_task and x >= 0.97:
                self.want_task = False
                c = self.t_task()
                calls.append(c if c else self.t_todo())
            else:
                calls.append(self.t_todo())
        if calls:
            self.tools(calls)

    def turn(self, target: int, big: list[tuple[str, int]]) -> None:
        r = self.r
        self.meta_line("permission-mode")
        if r.random() < 0.3 and not self.agent_id:
            self.attachment({"type": "hook_success", "hookName": "SessionStart:startup", "toolUseID": uuid4(r),
                             "hookEvent": "SessionStart", "content": "", "stdout": self.tx.hook_context[:r.randint(200, 5900)],
                             "stderr": "", "exitCode": 0, "command": "entire hooks claude-code session-start",
                             "durationMs": r.randint(50, 400)})
        self.snapshot()
        paste = r.random() < 0.1
        self.user_prompt(self.tx.prose(r, r.randint(1, 4)) + ("\n\n" + "\n".join(self.tx.code_lines(r, r.randint(500, 8000)))
                                                           if paste else ""))
        if r.random() < 0.3:
            self.attachment({"type": "skill_listing", "content": self.tx.prose_bytes(r, r.randint(800, 7000))})
        for _ in range(r.randint(2, 14)):
            if big and self.out.size >= big[0][2]:
                kind, size, _at = big.pop(0)
                self.step((kind, size))
            self.step()
            if self.out.size >= target and not big:
                break
        if r.random() < 0.15 and self.cwd == self.root_cwd:
            self.cwd = self.root_cwd + "/" + r.choice(DIRS)  # `cd` in Bash persists
        msg_id, req_id = rid(r, "msg_01", 22), rid(r, "req_011C", 18)
        self.assistant({"type": "text", "text": self.tx.prose(r, r.randint(2, 10))}, msg_id, req_id, "end_turn")
        self.system("stop_hook_summary")
        self.system("turn_duration")
        self.meta_line("last-prompt")


def big_bytes(big: list[tuple[str, int]]) -> int:
    """Bytes the multi-MB items add: Write content and apply_patch adds appear in two lines."""
    return sum(n * (2 if k in ("cc_write", "cx_add") else 1) for k, n in big)


def gen_claude(tx: Text, spec: dict[str, Any]) -> dict[str, Any]:
    r = random.Random(spec["seed"])
    sid = uuid4(r)
    cwd = spec["cwd"]
    proj = Path(spec["claude_home"]) / "projects" / encode_cwd(cwd)
    out = _Out(proj / f"{sid}.jsonl")
    stats: dict[str, int] = {}
    s = ClaudeSession(tx, r, out, sid, cwd, spec["t0"], r.choice(["main", "dev", "feature/" + r.choice(WORDS), "HEAD"]),
                      proj_dir=proj if spec.get("subagents", True) else None, stats=stats)
    s.want_task = spec.get("subagents", True) and r.random() < SUBAGENT_SHARE * 2  # about half of them get spawned
    target = spec["target"] + big_bytes(spec["big"])
    big = sorted(((k, n, int(r.uniform(0.05, 0.6) * target)) for k, n in spec["big"]), key=lambda b: b[2])
    if r.random() < 0.05:
        s.meta_line("custom-title")
    while out.size < target or big:
        s.turn(target, big)
    out.close()
    files = [(str(o.path), o.size, o.max_line, o.big_lines) for o in [out, *s.children]]
    return {"files": files, "sessions": 1 + stats.get("subagents", 0), "stats": stats, "last_uuid": s.last,
            "sid": sid, "cwd": s.cwd}


# ---------------------------------------------------------------------------------------------
# Codex
# ---------------------------------------------------------------------------------------------


class CodexSession:
    """One Codex rollout (0.125 shapes)."""

    def __init__(self, tx: Text, r: random.Random, out: _Out, tid: str, cwd: str, t0: float, stats: dict[str, int]) -> None:
        self.tx, self.r, self.out, self.tid, self.cwd, self.t = tx, r, out, tid, cwd, t0
        self.stats = stats
        self.files: dict[str, list[str]] = {}
        self.turn_id = ""
        self.tokens = 0

    def ts(self, lo: float = 0.001, hi: float = 3.0) -> str:
        self.t += self.r.uniform(lo, hi)
        return iso(self.t)

    def line(self, typ: str, payload: dict[str, Any], lo: float = 0.001, hi: float = 3.0) -> None:
        self.out.emit({"timestamp": self.ts(lo, hi), "type": typ, "payload": payload})

    def _count(self, k: str, n: int = 1) -> None:
        self.stats[k] = self.stats.get(k, 0) + n

    def token_count(self) -> None:
        self.tokens += self.r.randint(2000, 100000)
        self.line("event_msg", {"type": "token_count", "info": {
            "total_token_usage": {"input_tokens": self.tokens, "cached_input_tokens": self.tokens * 4 // 5,
                                  "output_tokens": self.tokens // 50, "reasoning_output_tokens": self.tokens // 150,
                                  "total_tokens": self.tokens + self.tokens // 50},
            "last_token_usage": {"input_tokens": 100647, "cached_input_tokens": 97664, "output_tokens": 5394,
                                 "reasoning_output_tokens": 101, "total_tokens": 106041},
            "model_context_window": 258400},
            "rate_limits": {"limit_id": "codex", "limit_name": None, "primary": None, "secondary": None, "credits": None,
                            "plan_type": "team", "rate_limit_reached_type": None}})

    def session_meta(self, branch: str) -> None:
        r = self.r
        self.line("session_meta", {
            "id": self.tid, "timestamp": iso(self.t), "cwd": self.cwd, "originator": "codex-tui", "cli_version": "0.125.0",
            "source": "cli", "model_provider": "openai", "base_instructions": {"text": self.tx.base_instructions},
            "git": {"commit_hash": "".join(r.choices(HEX, k=40)), "branch": branch,
                    "repository_url": f"https://github.com/example/{self.cwd.rsplit('/', 1)[-1]}.git"}})

    def start_turn(self, first: bool) -> None:
        r = self.r
        self.turn_id = uuid7(r, self.t)
        self.line("event_msg", {"type": "task_started", "turn_id": self.turn_id, "started_at": int(self.t),
                                "model_context_window": 258400, "collaboration_mode_kind": "default"}, 5, 200)
        if first:
            dev = (self.tx.permissions, self.tx.collab, self.tx.skills, self.tx.plugins)
            self.line("response_item", {"type": "message", "role": "developer", "content": [
                {"type": "input_text", "text": t} for t in dev]})
            self.line("response_item", {"type": "message", "role": "user", "content": [
                {"type": "input_text", "text": f"# AGENTS.md instructions for {self.cwd}\n\n<INSTRUCTIONS>\n"
                                               f"{self.tx.agents_md}\n</INSTRUCTIONS>"},
                {"type": "input_text", "text": f"<environment_context>\n  <cwd>{self.cwd}</cwd>\n  <shell>zsh</shell>\n"
                                               f"  <current_date>{iso(self.t)[:10]}</current_date>\n"
                                               "  <timezone>America/Los_Angeles</timezone>\n</environment_context>"}]})
        self.line("turn_context", {
            "turn_id": self.turn_id, "cwd": self.cwd, "current_date": iso(self.t)[:10], "timezone": "America/Los_Angeles",
            "approval_policy": "on-request",
            "sandbox_policy": {"type": "workspace-write", "writable_roots": ["/Users/dev/.codex/memories"],
                               "network_access": False, "exclude_tmpdir_env_var": False, "exclude_slash_tmp": False},
            "model": "gpt-5.5", "personality": "pragmatic",
            "collaboration_mode": {"mode": "default", "settings": {"model": "gpt-5.5", "reasoning_effort": "xhigh",
                                                                   "developer_instructions": self.tx.collab}},
            "realtime_active": False, "effort": "xhigh", "summary": "none", "user_instructions": self.tx.agents_md,
            "truncation_policy": {"mode": "tokens", "limit": 10000}})
        prompt = self.tx.prose(r, r.randint(1, 4))
        if r.random() < 0.1:
            prompt += "\n\n" + "\n".join(self.tx.code_lines(r, r.randint(500, 6000)))
        self.line("response_item", {"type": "message", "role": "user", "content": [{"type": "input_text", "text": prompt}]})
        self.line("event_msg", {"type": "user_message", "message": prompt, "images": [], "local_images": [],
                                "text_elements": []})
        self._count("messages")
        self.token_count()

    def end_turn(self) -> None:
        text = self.tx.prose(self.r, self.r.randint(2, 10))
        self.line("response_item", {"content": None, "summary": [], "type": "reasoning"})
        self.line("event_msg", {"type": "agent_message", "message": text, "phase": "final_answer", "memory_citation": None})
        self.line("response_item", {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": text}],
                                    "phase": "final_answer"})
        self.token_count()
        self.line("event_msg", {"type": "task_complete", "turn_id": self.turn_id, "last_agent_message": text,
                                "completed_at": int(self.t), "duration_ms": self.r.randint(5000, 900000),
                                "time_to_first_token_ms": self.r.randint(500, 9000)})
        self._count("messages")

    def commentary(self) -> None:
        text = self.tx.prose(self.r, self.r.randint(1, 3))
        self.line("event_msg", {"type": "agent_message", "message": text, "phase": "commentary", "memory_citation": None})
        self.line("response_item", {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": text}],
                                    "phase": "commentary"})
        self._count("messages")

    def path(self) -> str:
        r = self.r
        return f"{self.cwd}/{r.choice(DIRS)}/{r.choice(WORDS)}_{r.choice(WORDS)}{r.choice(EXTS)}"

    def execs(self, n: int, big: int | None = None) -> None:
        r = self.r
        calls = []
        for _ in range(n):
            call_id = rid(r, "call_", 24)
            f = r.choice(list(self.files)) if self.files and r.random() < 0.5 else self.path()
            cmd = r.choice(BASH_CMDS).format(w=r.choice(WORDS), f=f)
            args = {"cmd": cmd, "workdir": self.cwd, "yield_time_ms": 1000, "max_output_tokens": 12000}
            self.line("response_item", {"type": "function_call", "name": "exec_command", "arguments": orjson.dumps(args).decode(),
                                        "call_id": call_id})
            self._count("tool_calls")
            calls.append((call_id, cmd))
        self.token_count()
        for call_id, cmd in calls:
            size = big if big is not None else lognorm(r, 1500, 1.4, 0, 60000)
            out = "\n".join(self.tx.code_lines(r, size)) + "\n" if size > 40 else ""
            code = 0 if r.random() < 0.88 else 1
            self.line("event_msg", {"type": "exec_command_end", "call_id": call_id, "process_id": str(r.randint(1000, 99999)),
                                    "turn_id": self.turn_id, "command": ["/bin/zsh", "-lc", cmd], "cwd": self.cwd,
                                    "parsed_cmd": [{"type": "unknown", "cmd": cmd}], "source": "unified_exec_startup",
                                    "stdout": "", "stderr": "", "aggregated_output": out, "exit_code": code,
                                    "duration": {"secs": r.randint(0, 30), "nanos": r.randint(0, 999999999)},
                                    "formatted_output": "", "status": "completed"})
            self.line("response_item", {"type": "function_call_output", "call_id": call_id, "output":
                                        f"Chunk ID: {''.join(r.choices(HEX, k=6))}\nWall time: {r.random() * 5:.4f} seconds\n"
                                        f"Process exited with code {code}\nOriginal token count: {len(out) // 4}\n"
                                        f"Output:\n{out}"})
            self._count("messages")
            big = None

    def plan(self) -> None:
        r = self.r
        call_id = rid(r, "call_", 24)
        plan = [{"step": self.tx.prose(r, 1)[:80], "status": r.choice(["pending", "in_progress", "completed"])}
                for _ in range(r.randint(2, 6))]
        self.line("response_item", {"type": "function_call", "name": "update_plan",
                                    "arguments": orjson.dumps({"plan": plan}).decode(), "call_id": call_id})
        self.line("response_item", {"type": "function_call_output", "call_id": call_id, "output": "Plan updated"})
        self._count("tool_calls")

    def patch(self, big_add: int | None = None) -> None:
        r = self.r
        call_id = rid(r, "call_", 24)
        parts = ["*** Begin Patch"]
        changes: dict[str, Any] = {}
        summary = []
        nfiles = 1 if big_add else r.choice([1, 1, 1, 2, 2, 3])
        for _ in range(nfiles):
            if big_add or not self.files or r.random() < 0.25:
                p = self.path()
                lines = self.tx.code_lines(r, big_add or lognorm(r, 2500, 1.0, 100, 40000))
                self.files[p] = lines
                parts.append(f"*** Add File: {p}")
                parts += ["+" + x for x in lines]
                changes[p] = {"type": "add", "content": "\n".join(lines) + "\n"}
                summary.append("A " + p)
                continue
            p = r.choice(list(self.files))
            lines = self.files[p]
            if len(lines) < 3:
                lines = self.files[p] = lines + self.tx.code_lines(r, 400)
            parts.append(f"*** Update File: {p}")
            diffs = []
            for _h in range(r.randint(1, 3)):
                i = r.randrange(0, len(lines) - 1)
                k_old = min(len(lines) - i, r.randint(0, 5))
                new = self.tx.code_lines(r, r.randint(40, 800))
                h = make_hunk(lines, i, k_old, new, 3)
                parts.append("@@")
                parts += h["lines"]
                u = make_hunk(lines, i, k_old, new, 1)
                diffs.append(f"@@ -{u['oldStart']},{u['oldLines']} +{u['newStart']},{u['newLines']} @@\n"
                             + "\n".join(u["lines"]) + "\n")
                lines = lines[:i] + new + lines[i + k_old:]
            self.files[p] = lines
            changes[p] = {"type": "update", "unified_diff": "".join(diffs), "move_path": None}
            summary.append("M " + p)
        parts.append("*** End Patch")
        self.line("response_item", {"type": "custom_tool_call", "status": "completed", "call_id": call_id,
                                    "name": "apply_patch", "input": "\n".join(parts)})
        self._count("tool_calls")
        self.token_count()
        if r.random() < 0.05 and not big_add:
            self.line("response_item", {"type": "custom_tool_call_output", "call_id": call_id, "output":
                                        f"apply_patch verification failed: Failed to find expected lines in {summary[0][2:]}:\n"
                                        + "\n".join(self.tx.code_lines(r, 200))})
            self._count("edits_failed", nfiles)
            return
        stdout = "Success. Updated the following files:\n" + "\n".join(summary) + "\n"
        self.line("event_msg", {"type": "patch_apply_end", "call_id": call_id, "turn_id": self.turn_id, "stdout": stdout,
                                "stderr": "", "success": True, "changes": changes, "status": "completed"})
        self.line("response_item", {"type": "custom_tool_call_output", "call_id": call_id, "output": orjson.dumps(
            {"output": stdout, "metadata": {"exit_code": 0, "duration_seconds": round(r.random(), 1)}}).decode()})
        self._count("edits_applied", nfiles)
        self._count("messages")

    def step(self, big: tuple[str, int] | None = None) -> None:
        r = self.r
        self.line("response_item", {"content": None, "summary": [], "type": "reasoning"}, 1, 30)
        if r.random() < 0.35:
            self.commentary()
        if big is not None:
            kind, size = big
            if kind == "cx_add":
                self.patch(big_add=size)
            else:
                self.execs(1, big=size)
            return
        x = r.random()
        if x < 0.62:
            self.execs(1 if r.random() < 0.5 else r.randint(2, 6))
        elif x < 0.93:
            self.patch()
        else:
            self.plan()


def gen_codex(tx: Text, spec: dict[str, Any]) -> dict[str, Any]:
    r = random.Random(spec["seed"])
    t0 = spec["t0"]
    tid = uuid7(r, t0)
    lt = time.localtime(t0)
    day = Path(spec["codex_home"]) / "sessions" / f"{lt.tm_year:04d}" / f"{lt.tm_mon:02d}" / f"{lt.tm_mday:02d}"
    out = _Out(day / f"rollout-{time.strftime('%Y-%m-%dT%H-%M-%S', lt)}-{tid}.jsonl")
    stats: dict[str, int] = {}
    s = CodexSession(tx, r, out, tid, spec["cwd"], t0, stats)
    s.session_meta(r.choice(["main", "dev", "feature/" + r.choice(WORDS)]))
    target = spec["target"] + big_bytes(spec["big"])
    big = sorted(((k, n, int(r.uniform(0.05, 0.6) * target)) for k, n in spec["big"]), key=lambda b: b[2])
    first = True
    while out.size < target or big:
        s.start_turn(first)
        first = False
        for _ in range(r.randint(2, 16)):
            if big and out.size >= big[0][2]:
                kind, size, _at = big.pop(0)
                s.step((kind, size))
            s.step()
            if out.size >= target and not big:
                break
        s.end_turn()
    out.close()
    return {"files": [(str(out.path), out.size, out.max_line, out.big_lines)], "sessions": 1, "stats": stats}


# ---------------------------------------------------------------------------------------------
# corpus
# ---------------------------------------------------------------------------------------------

_TX: Text | None = None
_TX_SEED: int | None = None


def _gen_one(args: tuple[int, dict[str, Any]]) -> dict[str, Any]:
    global _TX, _TX_SEED
    seed, spec = args
    if _TX is None or _TX_SEED != seed:
        _TX, _TX_SEED = Text(seed), seed
    return gen_claude(_TX, spec) if spec["kind"] == "cc" else gen_codex(_TX, spec)


def plan_specs(seed: int, sessions: int, total_bytes: int, claude_home: Path, codex_home: Path, repos: Path, *,
               big: bool = True, subagents: bool = True, tag: str = "main") -> list[dict[str, Any]]:
    r = random.Random(f"{seed}:{tag}")
    projects = [str(repos / f"{tag}-{r.choice(WORDS)}-{r.choice(WORDS)}-{i}") for i in range(max(3, sessions // 50))]
    kinds = ["codex" if r.random() < CODEX_SHARE else "cc" for _ in range(sessions)]
    bigs: list[list[tuple[str, int]]] = [[] for _ in range(sessions)]
    big_total = 0
    if big:
        budget = int(total_bytes * BIG_SHARE)
        while big_total < budget:
            i = r.randrange(sessions)
            if kinds[i] == "cc":
                kind = r.choices(["cc_edit", "cc_write", "cc_image"], weights=[5, 3, 2])[0]
            else:
                kind = r.choice(["cx_add", "cx_exec"])
            size = int(r.uniform(1.0, 4.0) * MB)
            bigs[i].append((kind, size))
            big_total += big_bytes([(kind, size)])
    # Sessions end on a whole turn and Codex rollouts carry ~45 kB of preamble: aim lower so the
    # corpus lands near the requested size.
    rest = max(total_bytes - big_total, sessions * 4000) * SIZE_CALIBRATION
    weights = [pow(2.718281828, r.gauss(0, 1.0)) for _ in range(sessions)]
    wsum = sum(weights)
    t_start = time.mktime((2026, 1, 5, 9, 0, 0, 0, 0, -1))
    specs = []
    for i in range(sessions):
        specs.append({
            "kind": kinds[i], "seed": r.getrandbits(64), "target": max(3000, int(rest * weights[i] / wsum)),
            "big": bigs[i], "cwd": r.choice(projects), "t0": t_start + r.uniform(0, 110 * 86400),
            "claude_home": str(claude_home), "codex_home": str(codex_home), "subagents": subagents,
        })
    return specs


def _run_specs(seed: int, specs: list[dict[str, Any]], workers: int) -> dict[str, Any]:
    agg: dict[str, Any] = {"files": 0, "bytes": 0, "sessions": 0, "max_line": 0, "lines_ge_1mb": 0, "stats": {},
                           "by_kind": {}}
    items = [(seed, s) for s in specs]
    if workers > 1 and len(items) > 8:
        with ProcessPoolExecutor(workers) as ex:
            results = list(ex.map(_gen_one, items, chunksize=4))
    else:
        results = [_gen_one(x) for x in items]
    for spec, res in zip(specs, results, strict=True):
        agg["sessions"] += res["sessions"]
        bk = agg["by_kind"].setdefault(spec["kind"], {"files": 0, "bytes": 0})
        for _p, n, m, nb in res["files"]:
            agg["files"] += 1
            agg["bytes"] += n
            bk["files"] += 1
            bk["bytes"] += n
            agg["max_line"] = max(agg["max_line"], m)
            agg["lines_ge_1mb"] += nb
        for k, v in res["stats"].items():
            agg["stats"][k] = agg["stats"].get(k, 0) + v
    agg["results"] = results
    return agg


def make_repos(cwds: set[str], seed: int) -> None:
    """Each session cwd is a real git repository (one commit, a CLAUDE.md and an AGENTS.md), so
    the link step and the memory refresh inside `index` do the work they do on a real machine."""
    env = dict(os.environ, GIT_AUTHOR_NAME="bench", GIT_AUTHOR_EMAIL="bench@example.com", GIT_COMMITTER_NAME="bench",
               GIT_COMMITTER_EMAIL="bench@example.com", GIT_AUTHOR_DATE="2026-01-01T00:00:00Z",
               GIT_COMMITTER_DATE="2026-01-01T00:00:00Z")
    tx = Text(seed)
    r = random.Random(f"{seed}:repos")
    for cwd in sorted(cwds):
        d = Path(cwd)
        if (d / ".git").exists():
            continue
        d.mkdir(parents=True, exist_ok=True)
        (d / "CLAUDE.md").write_text("# Project notes\n\n" + tx.prose_bytes(r, 1500) + "\n")
        (d / "AGENTS.md").write_text("# Agent instructions\n\n" + tx.prose_bytes(r, 1200) + "\n")
        for cmd in (["git", "init", "-q", "-b", "main"], ["git", "add", "-A"], ["git", "commit", "-q", "-m", "init"],
                    ["git", "remote", "add", "origin", f"https://github.com/example/{d.name}.git"]):
            subprocess.run(cmd, cwd=d, env=env, check=True, capture_output=True)


def generate_corpus(root: Path, sessions: int, mb: float, seed: int, workers: int = 2, log=print) -> dict[str, Any]:
    """Write main/, rescan/, append/ and repos/ under ``root`` and a manifest.json."""
    t0 = time.perf_counter()
    root = root.resolve()
    root.mkdir(parents=True, exist_ok=True)
    repos = root / "repos"
    specs_main = plan_specs(seed, sessions, int(mb * MB), root / "main/claude", root / "main/codex", repos)
    specs_rescan = plan_specs(seed, RESCAN_FILES, RESCAN_FILES * 12_000, root / "rescan/claude", root / "rescan/codex", repos,
                              big=False, subagents=False, tag="rescan")
    app_cwds = {str(repos / "append-small"), str(repos / "append-big")}
    make_repos({s["cwd"] for s in specs_main + specs_rescan} | app_cwds, seed)
    log(f"  {len({s['cwd'] for s in specs_main + specs_rescan}) + 2} git repositories ({time.perf_counter() - t0:.1f}s)")
    t0 = time.perf_counter()
    main = _run_specs(seed, specs_main, workers)
    log(f"  main corpus: {main['files']} files, {main['bytes'] / MB:.1f} MB ({time.perf_counter() - t0:.1f}s)")
    # 1,000 single-file sessions for the no-change re-scan (no subagents: exactly 1,000 files).
    t1 = time.perf_counter()
    rescan = _run_specs(seed, specs_rescan, workers)
    log(f"  re-scan set: {rescan['files']} files, {rescan['bytes'] / MB:.1f} MB ({time.perf_counter() - t1:.1f}s)")
    # Two Claude sessions for the append test: a small one and a multi-MB one.
    tx = Text(seed)
    r = random.Random(f"{seed}:append")
    t_app = time.mktime((2026, 4, 20, 9, 0, 0, 0, 0, -1))
    small = gen_claude(tx, {"kind": "cc", "seed": r.getrandbits(64), "target": 20_000, "big": [],
                            "cwd": str(repos / "append-small"), "t0": t_app, "claude_home": str(root / "append/claude"),
                            "subagents": False})
    bigf = gen_claude(tx, {"kind": "cc", "seed": r.getrandbits(64), "target": 1_500_000,
                           "big": [("cc_edit", 4 * MB), ("cc_write", 2 * MB)], "cwd": str(repos / "append-big"),
                           "t0": t_app, "claude_home": str(root / "append/claude"), "subagents": False})
    manifest = {
        "version": GEN_VERSION, "seed": seed, "sessions": sessions, "mb": mb,
        "main": {k: main[k] for k in ("files", "bytes", "sessions", "max_line", "lines_ge_1mb", "stats", "by_kind")},
        "rescan": {k: rescan[k] for k in ("files", "bytes", "sessions")},
        "append": {
            name: {"path": res["files"][0][0], "bytes": res["files"][0][1], "last_uuid": res["last_uuid"], "sid": res["sid"],
                   "cwd": res["cwd"]}
            for name, res in (("small", small), ("big", bigf))
        },
        "generate_s": round(time.perf_counter() - t0, 1),
    }
    (root / "manifest.json").write_bytes(orjson.dumps(manifest, option=orjson.OPT_INDENT_2))
    return manifest


# ---------------------------------------------------------------------------------------------
# child processes (measured)
# ---------------------------------------------------------------------------------------------


def _proc_status(field: str) -> int:
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def _rchar() -> int:
    try:
        with open("/proc/self/io") as fh:
            for line in fh:
                if line.startswith("rchar:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def _corpus_files(dirs: list[str]) -> list[str]:
    out = []
    for d in dirs:
        for dp, _dn, fn in os.walk(d):
            out += [os.path.join(dp, f) for f in fn if f.endswith(".jsonl")]
    return sorted(out)


def _store_bytes() -> int:
    from hansard import config

    p = config.store_path()
    return sum(os.path.getsize(str(p) + s) for s in ("", "-wal") if os.path.exists(str(p) + s))


def _child(mode: str, spec: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {"mode": mode}
    if mode == "raw":
        files = _corpus_files(spec["dirs"])
        t = time.perf_counter()
        n = 0
        for p in files:
            with open(p, "rb") as fh:
                while b := fh.read(1 << 20):
                    n += len(b)
        out["cat_s"] = time.perf_counter() - t
        t = time.perf_counter()
        lines = 0
        for p in files:
            with open(p, "rb") as fh:
                for line in fh:
                    orjson.loads(line)
                    lines += 1
        out.update(parse_s=time.perf_counter() - t, bytes=n, files=len(files), lines=lines)
        out["vmhwm_kb"] = _proc_status("VmHWM")
        return out

    t = time.perf_counter()
    from hansard.ingest.run import index
    from hansard.store.sqlite.db import connect

    db = connect()
    out["import_connect_s"] = time.perf_counter() - t

    if mode == "idle":
        out["vmhwm_kb"] = _proc_status("VmHWM")
        return out

    if mode in ("full", "rescan"):
        prof = None
        if spec.get("profile"):
            import cProfile

            prof = cProfile.Profile()
            prof.enable()
        t, c = time.perf_counter(), time.process_time()
        summary = index(db)
        out["index_s"] = time.perf_counter() - t
        out["index_cpu_s"] = time.process_time() - c
        if prof is not None:
            prof.disable()
            prof.dump_stats(spec["profile"])
        out["vmhwm_kb"] = _proc_status("VmHWM")
        out["summary"] = summary.as_dict() if summary else None
        out["counts"] = {tb: db.execute(f"SELECT COUNT(*) FROM {tb}").fetchone()[0]
                         for tb in ("sources", "raw_records", "sessions", "messages", "tool_calls", "edits", "edit_lines")}
        out["edits_by_status"] = dict(db.execute("SELECT status, COUNT(*) FROM edits GROUP BY status").fetchall())
        out["edits_linked"] = db.execute("SELECT COUNT(*) FROM edits WHERE repo_id IS NOT NULL").fetchone()[0]
        out["repos"] = db.execute("SELECT COUNT(*) FROM repos").fetchone()[0]
        out["store_bytes"] = _store_bytes()
        reps = []
        for _ in range(spec.get("rescans", 0)):
            t = time.perf_counter()
            s2 = index(db)
            reps.append(time.perf_counter() - t)
            if s2 is not None and s2.changed:
                out.setdefault("rescan_changed", []).append(s2.changed)
        out["rescan_s"] = reps
        if mode == "rescan":
            files = [r[0] for r in db.execute("SELECT path FROM sources")]
            out["rescan_files"] = len(files)
            st = []
            for _ in range(max(3, spec.get("rescans", 0))):
                t = time.perf_counter()
                for p in files:
                    os.stat(p)
                st.append(time.perf_counter() - t)
            out["stat_s"] = st
            wk = []
            for _ in range(3):
                t = time.perf_counter()
                _corpus_files(spec["dirs"])
                wk.append(time.perf_counter() - t)
            out["walk_s"] = wk
        return out

    if mode == "append":
        from hansard.ingest.run import index as _index  # noqa: F811

        small, big = spec["small"], spec["big"]
        t = time.perf_counter()
        _index(db, [Path(small["path"]), Path(big["path"])])
        out["initial_s"] = time.perf_counter() - t
        last = {"small": small["last_uuid"], "big": big["last_uuid"]}
        r = random.Random(7)
        tx_line = ("I checked the failing test and the handler now returns the parsed record; " * 20)[:1400]

        def append(which: str, text: str, role: str = "assistant") -> int:
            f = spec[which]
            u = uuid4(r)
            ts = iso(time.time())
            if role == "assistant":
                rec = {"parentUuid": last[which], "isSidechain": False, "message": {
                    "model": ClaudeSession.MODEL, "id": rid(r, "msg_01", 22), "type": "message", "role": "assistant",
                    "content": [{"type": "text", "text": text}], "stop_reason": "end_turn", "stop_sequence": None,
                    "stop_details": None, "usage": USAGE_CC}, "requestId": rid(r, "req_011C", 18), "type": "assistant",
                    "uuid": u, "timestamp": ts}
            else:
                rec = {"parentUuid": last[which], "isSidechain": False, "promptId": uuid4(r), "type": "user",
                       "message": {"role": "user", "content": text}, "uuid": u, "timestamp": ts,
                       "permissionMode": "default"}
            rec.update(userType="external", entrypoint="cli", cwd=f["cwd"], sessionId=f["sid"],
                       version=ClaudeSession.VERSION, gitBranch="main")
            data = orjson.dumps(rec) + b"\n"
            with open(f["path"], "ab") as fh:
                fh.write(data)
            last[which] = u
            return len(data)

        def timed(which: str) -> tuple[float, int]:
            rc = _rchar()
            t = time.perf_counter()
            s = _index(db, [Path(spec[which]["path"])])
            dt = time.perf_counter() - t
            assert s is not None and s.records == 1, s
            return dt, _rchar() - rc

        reps = spec.get("reps", 9)
        res: dict[str, list] = {"small": [], "big": [], "small_rchar": [], "big_rchar": [], "line_bytes": [],
                                "noop": [], "noop_rchar": []}
        # The fixed cost of one `index PATH` call when nothing changed: what an append pays on top.
        for _ in range(reps):
            rc = _rchar()
            t = time.perf_counter()
            _index(db, [Path(small["path"])])
            res["noop"].append(time.perf_counter() - t)
            res["noop_rchar"].append(_rchar() - rc)
        for i in range(reps):
            for which in (("small", "big") if i % 2 == 0 else ("big", "small")):  # alternate: no order effect
                res["line_bytes"].append(append(which, tx_line))
                dt, rc = timed(which)
                res[which].append(dt)
                res[which + "_rchar"].append(rc)
        res["small_size"] = os.path.getsize(spec["small"]["path"])
        res["big_size"] = os.path.getsize(spec["big"]["path"])
        res["sources"] = db.execute("SELECT COUNT(*) FROM sources").fetchone()[0]
        # One appended line of ~1 MB (a pasted log) to the small file: cost follows the new bytes.
        big_text = "\n".join(Text(1).code_lines(r, MB))
        res["mb_line"] = []
        res["mb_line_bytes"] = 0
        res["mb_line_parse"] = []
        for _ in range(3):
            res["mb_line_bytes"] = append("small", big_text, role="user")
            dt, _rc = timed("small")
            res["mb_line"].append(dt)
            with open(spec["small"]["path"], "rb") as fh:
                fh.seek(os.path.getsize(spec["small"]["path"]) - res["mb_line_bytes"])
                raw = fh.read()
            t = time.perf_counter()
            orjson.loads(raw)
            res["mb_line_parse"].append(time.perf_counter() - t)
        # A full re-read + parse of the multi-MB file: what a non-incremental indexer pays per append.
        t = time.perf_counter()
        with open(spec["big"]["path"], "rb") as fh:
            for line in fh:
                orjson.loads(line)
        res["big_reparse_s"] = time.perf_counter() - t
        out.update(res)
        return out
    raise SystemExit(f"unknown child mode {mode}")


def _child_main(argv: list[str]) -> int:
    mode, spec_json, result_path = argv
    res = _child(mode, json.loads(spec_json))
    Path(result_path).write_bytes(orjson.dumps(res))
    return 0


def run_child(mode: str, spec: dict[str, Any], env: dict[str, str], work: Path) -> dict[str, Any]:
    """Run one measured child; adds wall time and peak RSS (wait4 ru_maxrss, KiB)."""
    res_path = work / f"result-{mode}-{time.monotonic_ns()}.json"
    log_path = work / f"child-{mode}.log"
    with open(log_path, "ab") as log:
        t = time.perf_counter()
        p = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--_child", mode, json.dumps(spec), str(res_path)],
                             env=env, stdout=log, stderr=log, cwd=str(work))
        _pid, status, ru = os.wait4(p.pid, 0)
        p.returncode = os.waitstatus_to_exitcode(status)
        wall = time.perf_counter() - t
    if p.returncode != 0:
        tail = log_path.read_text(errors="replace")[-3000:]
        raise RuntimeError(f"child {mode} failed (exit {p.returncode}):\n{tail}")
    res = orjson.loads(res_path.read_bytes())
    res["wall_s"] = wall
    res["maxrss_kb"] = ru.ru_maxrss
    return res


def child_env(work: Path, home: str, claude: Path, codex: Path) -> dict[str, str]:
    env = dict(os.environ)
    for k in ("HANSARD_HOME", "CLAUDE_CONFIG_DIR", "CODEX_HOME", "GEMINI_CLI_HOME", "XDG_DATA_HOME"):
        env.pop(k, None)
    (work / "fakehome").mkdir(exist_ok=True)
    env.update(HOME=str(work / "fakehome"), XDG_DATA_HOME=str(work / "fakehome/xdg"), HANSARD_HOME=str(work / home),
               CLAUDE_CONFIG_DIR=str(claude), CODEX_HOME=str(codex), GEMINI_CLI_HOME=str(work / "fakehome"))
    return env


# ---------------------------------------------------------------------------------------------
# the benchmark
# ---------------------------------------------------------------------------------------------


def _row(name: str, target: str, measured: float | None, unit: str, baseline: float | None, baseline_name: str,
         ratio: float | None, ok: bool | None, detail: str = "") -> dict[str, Any]:
    return {"name": name, "target": target, "measured": measured, "unit": unit, "baseline": baseline,
            "baseline_name": baseline_name, "ratio": ratio, "pass": ok, "detail": detail}


def run(quick: bool = False, *, corpus: str | Path | None = None, sessions: int | None = None, mb: float | None = None,
        seed: int = 42, keep: bool = False, profile: str | None = None, workers: int = 2, log=None) -> list[dict[str, Any]]:
    """Generate (or reuse) the corpus, measure, and return one dict per measurement:
    name, target, measured, unit, baseline, baseline_name, ratio, pass (True/False/None), detail."""
    log = log or (lambda *a: print(*a, file=sys.stderr, flush=True))
    size = QUICK if quick else FULL
    sessions = sessions or size["sessions"]
    mb = mb or size["mb"]
    work = Path(tempfile.mkdtemp(prefix="hansard-bench-"))
    root = Path(corpus) if corpus else work / "corpus"
    rows: list[dict[str, Any]] = []
    try:
        manifest = None
        if (root / "manifest.json").exists():
            manifest = orjson.loads((root / "manifest.json").read_bytes())
            if manifest.get("version") != GEN_VERSION:
                raise SystemExit(f"{root} holds a corpus from generator v{manifest.get('version')}; use another --corpus")
            log(f"reusing corpus {root} (seed {manifest['seed']}, {manifest['sessions']} sessions, {manifest['mb']} MB asked)")
        else:
            log(f"generating corpus in {root}: {sessions} sessions, ~{mb:g} MB, seed {seed}")
            manifest = generate_corpus(root, sessions, mb, seed, workers=workers, log=log)
        m = manifest["main"]
        log(f"  {m['files']} files ({m['sessions']} sessions), {m['bytes'] / MB:.1f} MB,"
            f" longest line {m['max_line'] / MB:.2f} MB, {m['lines_ge_1mb']} lines >= 1 MB; {m['stats']}")
        main_dirs = [str(root / "main/claude/projects"), str(root / "main/codex/sessions")]

        # -- baseline: raw read + parse, in a child (throughput and RSS) --
        env_full = child_env(work, "home_full", root / "main/claude", root / "main/codex")
        log("baseline: raw read + orjson.loads of every line ...")
        raw = run_child("raw", {"dirs": main_dirs}, env_full, work)
        idle = run_child("idle", {}, child_env(work, "home_idle", work / "none", work / "none"), work)

        # -- full index --
        log("full index (child process) ...")
        load0 = os.getloadavg()[0]
        full = run_child("full", {"rescans": 3}, env_full, work)
        load1 = os.getloadavg()[0]
        s = full["summary"]
        nbytes = m["bytes"]
        mbps = nbytes / MB / full["index_s"]
        raw_mbps = raw["bytes"] / MB / raw["parse_s"]
        cat_mbps = raw["bytes"] / MB / raw["cat_s"]
        sess = full["counts"]["sessions"]
        rows.append(_row("full index throughput", f">= {TARGET_MBPS:g} MB/s", round(mbps, 2), "MB/s", round(raw_mbps, 1),
                         "raw read + orjson.loads per line", round(mbps / raw_mbps, 3), mbps >= TARGET_MBPS,
                         f"{nbytes / MB:.1f} MB, {m['files']} files in {full['index_s']:.1f}s"
                         f" (CPU {full['index_cpu_s']:.1f}s = {nbytes / MB / full['index_cpu_s']:.2f} MB per CPU-second;"
                         f" load avg {load0:.1f} -> {load1:.1f} on {os.cpu_count()} CPUs); plain read {cat_mbps:.0f} MB/s;"
                         f" store {full['store_bytes'] / MB:.1f} MB ({full['store_bytes'] / nbytes:.2f}x the corpus)"))
        rows.append(_row("full index sessions/s", "-", round(sess / full["index_s"], 1), "sessions/s",
                         round(m["sessions"] / raw["parse_s"], 1), "raw read + parse", round(
                             (sess / full["index_s"]) / (m["sessions"] / raw["parse_s"]), 3), None,
                         f"{sess} sessions, {full['counts']['messages']} messages, {full['counts']['tool_calls']} tool calls,"
                         f" {full['counts']['edits']} edits {full['edits_by_status']} ({full['edits_linked']} linked to"
                         f" {full['repos']} repos), skipped {s['skipped']}"))
        rss = full["maxrss_kb"] / 1024
        rows.append(_row("full index peak RSS", f"<= {TARGET_RSS_MIB:g} MiB", round(rss, 1), "MiB",
                         round(raw["maxrss_kb"] / 1024, 1), "raw read + parse child", round(rss / (raw["maxrss_kb"] / 1024), 2),
                         rss <= TARGET_RSS_MIB,
                         f"VmHWM {full['vmhwm_kb'] / 1024:.1f} MiB; idle hansard child {idle['maxrss_kb'] / 1024:.1f} MiB;"
                         f" longest line {m['max_line'] / MB:.2f} MB"))
        if full["rescan_s"]:
            rs = statistics.median(full["rescan_s"]) * 1000
            rows.append(_row(f"no-change re-scan, whole corpus ({full['counts']['sources']} files)", "-", round(rs, 1), "ms",
                             None, "", None, None, f"runs: {[round(x * 1000, 1) for x in full['rescan_s']]}"))

        # -- no-change re-scan of 1,000 files --
        log("no-change re-scan of 1,000 files ...")
        env_rs = child_env(work, "home_rescan", root / "rescan/claude", root / "rescan/codex")
        rsd = run_child("rescan", {"rescans": 9, "dirs": [str(root / "rescan/claude/projects"),
                                                          str(root / "rescan/codex/sessions")]}, env_rs, work)
        rs = statistics.median(rsd["rescan_s"]) * 1000
        st = statistics.median(rsd["stat_s"]) * 1000
        wk = statistics.median(rsd["walk_s"]) * 1000
        rows.append(_row(f"no-change re-scan ({rsd['rescan_files']} files)", f"<= {TARGET_RESCAN_MS:g} ms", round(rs, 1), "ms",
                         round(st, 2), f"os.stat of the same {rsd['rescan_files']} files", round(rs / st, 1) if st else None,
                         rs <= TARGET_RESCAN_MS,
                         f"median of {len(rsd['rescan_s'])}: {[round(x * 1000, 1) for x in rsd['rescan_s']]};"
                         f" os.walk+filter {wk:.1f} ms; first index of this set {rsd['index_s']:.2f}s"
                         f" ({manifest['rescan']['bytes'] / MB / rsd['index_s']:.1f} MB/s)"
                         + (f"; CHANGED files seen: {rsd['rescan_changed']}" if rsd.get("rescan_changed") else "")))
        # The same through the CLI: interpreter start + imports + index.
        cli = []
        for _ in range(3):
            t = time.perf_counter()
            subprocess.run([sys.executable, "-m", "hansard", "index"], env=env_rs, check=True, capture_output=True)
            cli.append(time.perf_counter() - t)
        py = []
        for _ in range(3):
            t = time.perf_counter()
            subprocess.run([sys.executable, "-c", "import hansard.cli"], env=env_rs, check=True, capture_output=True)
            py.append(time.perf_counter() - t)
        c, b = statistics.median(cli) * 1000, statistics.median(py) * 1000
        rows.append(_row("`hansard index` CLI, nothing changed (1,000 files)", "-", round(c, 1), "ms", round(b, 1),
                         "python -c 'import hansard.cli'", round(c / b, 2), None, "wall time incl. interpreter start"))

        # -- appended line --
        log("appended line: small vs multi-MB file ...")
        app_dir = work / "append"
        spec_app: dict[str, Any] = {"reps": 21}
        for which in ("small", "big"):
            info = dict(manifest["append"][which])
            src = Path(info["path"])
            dst = app_dir / src.relative_to(root / "append")
            dst.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(src, dst)
            info["path"] = str(dst)
            spec_app[which] = info
        app = run_child("append", spec_app, env_full, work)
        ts_, tb_ = statistics.median(app["small"]) * 1000, statistics.median(app["big"]) * 1000
        ratio = tb_ / ts_
        size_ratio = app["big_size"] / app["small_size"]
        noop = statistics.median(app["noop"]) * 1000
        rows.append(_row("append 1 line to a small file", "-", round(ts_, 2), "ms", round(noop, 2),
                         "`index PATH` of the same file, nothing new (fixed per-call cost)", round(ts_ / noop, 2), None,
                         f"file {app['small_size'] / 1e3:.0f} kB, line {statistics.median(app['line_bytes']):.0f} B,"
                         f" rchar {statistics.median(app['small_rchar']) / 1e3:.0f} kB"
                         f" (no-op call reads {statistics.median(app['noop_rchar']) / 1e3:.0f} kB);"
                         f" store holds {app['sources']} sources"))
        rows.append(_row("append 1 line to a multi-MB file", f"<= {TARGET_APPEND_RATIO:g}x the small-file cost", round(tb_, 2),
                         "ms", round(ts_, 2), "same line appended to the small file", round(ratio, 2),
                         ratio <= TARGET_APPEND_RATIO,
                         f"file {app['big_size'] / MB:.1f} MB ({size_ratio:.0f}x the small file),"
                         f" rchar {statistics.median(app['big_rchar']) / 1e3:.0f} kB; full re-read+parse of that file"
                         f" {app['big_reparse_s'] * 1000:.0f} ms; median of {len(app['big'])};"
                         f" min big {min(app['big']) * 1000:.2f} ms vs min small {min(app['small']) * 1000:.2f} ms"))
        mbl = statistics.median(app["mb_line"]) * 1000
        mbp = statistics.median(app["mb_line_parse"]) * 1000
        rows.append(_row("append a 1 MB line to the small file", "-", round(mbl, 1), "ms", round(mbp, 2),
                         "orjson.loads of that line", round(mbl / mbp, 1), None,
                         f"{app['mb_line_bytes'] / MB:.2f} MB line: {mbl / (app['mb_line_bytes'] / MB):.0f} ms/MB of new bytes"
                         f" vs {ts_ / (statistics.median(app['line_bytes']) / MB):.0f} ms/MB for a"
                         f" {statistics.median(app['line_bytes']) / 1e3:.1f} kB line (fixed per-scan cost dominates)"))

        if profile:
            log("profiling the full index (cProfile) ...")
            prof_path = Path(profile) if profile not in ("1", "cprofile") else work / "index.prof"
            run_child("full", {"profile": str(prof_path)}, child_env(work, "home_prof", root / "main/claude",
                                                                     root / "main/codex"), work)
            print_profile(prof_path)
            if keep or profile not in ("1", "cprofile"):
                log(f"profile kept at {prof_path}")
        return rows
    finally:
        if keep:
            log(f"kept work dir {work} (corpus {root})")
        else:
            shutil.rmtree(work, ignore_errors=True)


def print_profile(path: Path, n: int = 30) -> None:
    import io
    import pstats

    for key in ("tottime", "cumulative"):
        buf = io.StringIO()
        ps = pstats.Stats(str(path), stream=buf)
        ps.sort_stats(key).print_stats(n)
        text = buf.getvalue()
        start = text.find("   ncalls")
        print(f"\n== cProfile top {n} by {key} ==")
        print(text[start:] if start >= 0 else text)


def format_rows(rows: list[dict[str, Any]]) -> str:
    out = []
    for r in rows:
        verdict = "PASS" if r["pass"] is True else "MISS" if r["pass"] is False else "info"
        base = f"{r['baseline']} ({r['baseline_name']})" if r["baseline"] is not None else "-"
        ratio = f"{r['ratio']}" if r["ratio"] is not None else "-"
        out.append(f"[{verdict}] {r['name']}\n"
                   f"    measured {r['measured']} {r['unit']}   target {r['target']}\n"
                   f"    baseline {base}   ratio {ratio}\n"
                   f"    {r['detail']}")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "--_child":
        return _child_main(argv[1:])
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help=f"small smoke run ({QUICK['sessions']} sessions, {QUICK['mb']} MB)")
    ap.add_argument("--sessions", type=int, help="sessions to generate")
    ap.add_argument("--mb", type=float, help="approximate corpus size in MB")
    ap.add_argument("--seed", type=int, default=42)
    ap.add_argument("--corpus", help="generate the corpus here, or reuse it if it has a manifest.json")
    ap.add_argument("--keep", action="store_true", help="keep the work dir (stores, logs, corpus if temporary)")
    ap.add_argument("--profile", nargs="?", const="1", help="also run the full index under cProfile (optional .prof path)")
    ap.add_argument("--workers", type=int, default=2, help="processes used to generate the corpus")
    ap.add_argument("--json", action="store_true", help="print the rows as JSON")
    a = ap.parse_args(argv)
    rows = run(a.quick, corpus=a.corpus, sessions=a.sessions, mb=a.mb, seed=a.seed, keep=a.keep, profile=a.profile,
               workers=a.workers)
    print(json.dumps(rows, indent=2) if a.json else format_rows(rows))
    return 0 if all(r["pass"] is not False for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
