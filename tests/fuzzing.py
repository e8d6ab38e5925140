"""The fuzzing kit behind tests/test_fuzz.py (a small seeded subset) and scripts/fuzz.py (the
long run): real sample records, the mutations applied to them, and the invariants checked.

Targets
  * each provider parser (``PARSER_TARGETS``: claude_code, codex, gemini JSONL, gemini legacy
    JSON, and the other agents: cursor transcripts and state.vscdb rows, aider, copilot,
    opencode folder and SQLite rows, chatgpt and claude_web exports), fed one record at a
    time through ``new_parser(path, state).feed(RawRecord(...))`` then ``finish()``, the way
    the scanner does it (state saved as JSON between chunks);
  * the apply_patch parser (``parse_patch`` and the helpers the Codex parser runs on any
    shell command: ``extract_patch``, ``unwrap_patch``, ``scan_headers``, ``apply_to_text``);
  * the search query parser (``hansard.answers.search.query.parse``), whose FTS5 expressions must
    also be accepted by SQLite;
  * end to end: mutated files on disk through the real ``index`` (scanner, reader, sniffing,
    writer, archive), then ``rebuild`` from the archive.

Invariants (a breach is a *failure*, reported with a reproducer)
  * feed / finish / state / new_parser never raise;
  * every item is one of the model types; every Skip has a non-empty reason;
  * a record that is not a JSON object (bad UTF-8, bad JSON, too deep, not an object, blank)
    yields at least one Skip;
  * ``state()`` survives ``orjson.dumps`` / ``orjson.loads`` and resumes a new parser;
  * the items can be written: ``Writer.apply`` on an in-memory store does not raise;
  * parse_patch raises nothing but PatchError; the query parser raises nothing and its FTS5
    expressions run;
  * index / rebuild never raise; the skips recorded in the store match the run's counts.

``parser_error`` skips (a parser caught its own exception) are not failures — the record is a
counted skip with a reason — but they are counted separately so they can be looked at.
"""

from __future__ import annotations

import os
import random
import re
import sqlite3
import traceback
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from hansard import agents as registry
from hansard.agents.base import glued_records
from hansard.agents.edits import PatchError, apply_to_text, extract_patch, parse_patch, scan_headers, unwrap_patch
from hansard.ingest import reader, redact
from hansard.store.sqlite.migrations import MIGRATIONS
from hansard.store.sqlite.writer import Writer
from hansard.values.models import (
    EditItem,
    LeafTitle,
    MessageItem,
    RawRecord,
    Rewind,
    SessionInfo,
    Skip,
    StepsItem,
    ToolCallItem,
    ToolResultItem,
)

REPO_ROOT = Path(__file__).resolve().parents[1]
SAMPLES = Path(os.environ.get("HANSARD_SAMPLES", REPO_ROOT.parent / "shared" / "samples"))

ITEM_TYPES = (SessionInfo, MessageItem, ToolCallItem, ToolResultItem, EditItem, StepsItem, LeafTitle, Rewind, Skip)
PARSER_TARGETS = ("claude_code", "codex", "gemini", "gemini:json",
                  # the other agents: line records, and records read from containers
                  "cursor", "cursor:sqlite", "aider", "copilot", "opencode:dir", "opencode:sqlite",
                  "chatgpt:export", "claude_web:export")
AGENT_SAMPLES = REPO_ROOT / "tests" / "agent_samples"  # written samples of formats with no real one

MB = 1 << 20


# ---------------------------------------------------------------------------------------- samples


@dataclass
class SampleFile:
    path: str
    target: str  # provider key, one of PARSER_TARGETS
    records: list[RawRecord]
    states: list[bytes]  # orjson state before records[i]; states[len] after the last

    @property
    def name(self) -> str:
        try:
            return str(Path(self.path).relative_to(SAMPLES))
        except ValueError:
            return self.path


@dataclass
class Corpus:
    files: dict[str, list[SampleFile]]  # target -> files
    types: dict[str, list[str]]  # target -> every "type" string seen
    ids: dict[str, list[str]]  # target -> id-like strings seen
    patches: list[str]
    queries: list[str]
    lines: dict[str, list[bytes]] = field(default_factory=dict)  # target -> every record's bytes

    def provider(self, target: str) -> Any:
        p = registry.from_key(target)
        assert p is not None, target
        return p

    def all_lines(self) -> list[bytes]:
        return [x for t in PARSER_TARGETS for x in self.lines.get(t, [])]


_ID_KEY = re.compile(r"(?:^id$|Id$|_id$|[Uu]uid$|UUID$|ID$)")


def _walk(obj: Any, limit: int = 20000) -> Iterable[tuple[Any, Any, Any]]:
    """(container, key, value) for every slot of a parsed JSON value, depth-first."""
    stack = [obj]
    seen = 0
    while stack and seen < limit:
        cur = stack.pop()
        if isinstance(cur, dict):
            for k, v in cur.items():
                seen += 1
                yield cur, k, v
                if isinstance(v, (dict, list)):
                    stack.append(v)
        elif isinstance(cur, list):
            for i, v in enumerate(cur):
                seen += 1
                yield cur, i, v
                if isinstance(v, (dict, list)):
                    stack.append(v)


def _states(provider: Any, path: str, records: list[RawRecord]) -> list[bytes]:
    parser = provider.new_parser(path, None)
    out = [orjson.dumps(parser.state())]
    for rec in records:
        parser.feed(rec)
        out.append(orjson.dumps(parser.state()))
    return out


def _gemini_jsonl_from_doc(doc_path: Path) -> list[bytes]:
    """A JSONL chat log (2026 shape) made from a legacy document's messages: metadata line,
    one line per message, a re-appended message, a $set and a $rewindTo."""
    doc = orjson.loads(doc_path.read_bytes())
    meta = {k: doc[k] for k in ("sessionId", "projectHash", "startTime", "lastUpdated") if k in doc}
    meta.setdefault("projectHash", "0" * 64)
    meta["directories"] = ["/work/project"]
    lines = [orjson.dumps(meta)]
    msgs = [m for m in doc.get("messages") or [] if isinstance(m, dict)]
    lines += [orjson.dumps(m) for m in msgs]
    if msgs:
        lines.append(orjson.dumps(msgs[len(msgs) // 2]))  # a message re-appended after an update
    lines.append(orjson.dumps({"$set": {"summary": "a summary", "lastUpdated": "2026-01-01T00:00:00.000Z"}}))
    if len(msgs) > 2:
        lines.append(orjson.dumps({"$rewindTo": msgs[-2]["id"]}))
    return lines


def _patch_texts(corpus_lines: dict[str, list[bytes]]) -> list[str]:
    out: list[str] = []
    for line in corpus_lines.get("codex", []):
        try:
            obj = orjson.loads(line)
        except orjson.JSONDecodeError:
            continue
        p = obj.get("payload") if isinstance(obj, dict) else None
        if not isinstance(p, dict):
            continue
        if p.get("type") == "custom_tool_call" and isinstance(p.get("input"), str):
            out.append(p["input"])
        elif p.get("type") == "function_call" and isinstance(p.get("arguments"), str):
            try:
                args = orjson.loads(p["arguments"])
            except orjson.JSONDecodeError:
                continue
            if not isinstance(args, dict):
                continue
            for k in ("input", "patch"):
                if isinstance(args.get(k), str) and "Begin Patch" in args[k]:
                    out.append(args[k])
            cmd = args.get("command") if args.get("command") is not None else args.get("cmd")
            found = extract_patch(cmd)
            if found:
                out.append(cmd if isinstance(cmd, str) else cmd[-1])
    test_file = REPO_ROOT / "tests" / "test_apply_patch.py"
    if test_file.exists():
        for m in re.finditer(r'"""(.*?)"""', test_file.read_text(), re.S):
            if "Begin Patch" in m.group(1):
                out.append(m.group(1))
    out.append("*** Begin Patch\n*** Add File: a.txt\n+hello\n*** Delete File: b.txt\n*** Update File: c.py\n"
               "*** Move to: d.py\n@@ def f():\n-    return 1\n+    return 2\n*** End of File\n*** End Patch\n")
    return sorted(set(out))


QUERY_SEEDS = [
    "retry backoff", '"a quoted phrase"', "retry or backoff timeout", "-flaky test", 'fetch* -"skip this"',
    "fetch_data src/net.py getUser", "why did the upload fail", "OR", "or or or", '"', '""', "-", "*", "-*",
    'NEAR(a b)', "a AND b NOT c", "col:term", "^start", "(paren)", "a:b:c.", "%_%", "100%", "日本語 テスト",
    "éclair café", "e\u0301clair", "\x00nul", "tab\there", "emoji 💥 🚀", "C:\\Users\\x", "a\"b\"c", "'single'",
    "x" * 500, "-" * 50, '"unterminated phrase', "a -", "- a", "--", "fetch*.", "*fetch", "a*b*",
]

QUERY_PIECES = [
    '"', "-", "*", "or", "OR", "Or", "AND", "NOT", "NEAR", "(", ")", ":", "^", "+", "%", "_", ".", "\\", "'",
    "fetch_data", "src/net.py", "getUser", "retry", "the", "a", "é", "e\u0301", "\u200b", "\u202e", "\x00", "\t",
    "\n", "💥", "日本", "\ud800", "\udcff", "\uffff", "x1", "1x", "-x", "x-", '-"', '*"', '"*', "::", "..",
    "NEAR/3", "{a b}", "col:", "#", "@", "$", "\u00a0", "ǅ", "ß", "İ",
]


def _sniff(p: Path) -> Any:
    from hansard.agents.webchat.exports import sniff_export
    from hansard.ingest import containers

    if p.is_dir():
        return containers.sniff(p)
    prov = registry.sniff(p)
    if prov is None and p.suffix == ".json" and (kind := sniff_export(str(p))):
        prov = registry.reader(kind)  # exports come in through `hansard import`, never a scan
    return prov


def load_corpus(samples: Path = SAMPLES) -> Corpus:
    files: dict[str, list[SampleFile]] = {t: [] for t in PARSER_TARGETS}
    lines: dict[str, list[bytes]] = {t: [] for t in PARSER_TARGETS}
    gemini_docs: list[Path] = []
    for p in sorted(x for root in (samples, AGENT_SAMPLES) if root.is_dir() for x in root.rglob("*")):
        prov = _sniff(p)
        if prov is None or prov.name == "capture":
            continue
        target = registry.provider_key(prov)
        if target not in files:
            continue
        if getattr(prov, "container", None):
            got = prov.records(str(p), None)  # a database, a folder or an export: its reader's records
            records = got[0] if got else []
        else:
            records = [reader.read_whole(str(p))] if prov.whole_file else list(reader.iter_jsonl(str(p)))
        if not records:
            continue
        files[target].append(SampleFile(str(p), target, records, _states(prov, str(p), records)))
        lines[target] += [r.data for r in records]
        if target == "gemini:json":
            gemini_docs.append(p)
    # OpenCode 1.2 keeps the same JSON in SQLite rows: build such records from the storage sample.
    oprov = registry.from_key("opencode:sqlite")
    for f in list(files.get("opencode:dir", ())):
        path = f.path + ".db"
        records = []
        for r in f.records:
            obj = orjson.loads(r.data)
            d = orjson.loads(obj["json"])
            row = {"id": d.get("id"), "session_id": d.get("sessionID"), "message_id": d.get("messageID"),
                   "time_created": 1, "time_updated": 1, "data": obj["json"]}
            records.append(RawRecord(path, r.offset, orjson.dumps({"t": obj["t"], "row": row})))
        files["opencode:sqlite"].append(SampleFile(path, "opencode:sqlite", records, _states(oprov, path, records)))
        lines["opencode:sqlite"] += [r.data for r in records]
    # The JSONL Gemini shape has a single small sample; build more from the legacy documents.
    gprov = registry.from_key("gemini")
    for doc in gemini_docs:
        path = str(doc.parent / f"synth-{doc.parent.name}-{doc.stem}.jsonl")
        off, records = 0, []
        for data in _gemini_jsonl_from_doc(doc):
            records.append(RawRecord(path, off, data))
            off += len(data) + 1
        files["gemini"].append(SampleFile(path, "gemini", records, _states(gprov, path, records)))
        lines["gemini"] += [r.data for r in records]
    types: dict[str, list[str]] = {}
    ids: dict[str, list[str]] = {}
    for t, ls in lines.items():
        ts: set[str] = set()
        idset: set[str] = set()
        for line in ls:
            try:
                obj = orjson.loads(line)
            except orjson.JSONDecodeError:
                continue
            for _c, k, v in _walk(obj, 5000):
                if k == "type" and isinstance(v, str):
                    ts.add(v)
                elif isinstance(k, str) and _ID_KEY.search(k) and isinstance(v, str) and v:
                    idset.add(v)
        types[t] = sorted(ts)
        ids[t] = sorted(idset)
    return Corpus(files, types, ids, _patch_texts(lines), list(QUERY_SEEDS), lines)


# ---------------------------------------------------------------------------------------- mutations

_TS = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:?\d{2})?$")
_BAD_UTF8 = [b"\xff", b"\xfe", b"\xc3", b"\xe2\x82", b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"\xc0\xaf", b"\x80",
             b"\xef\xbb\xbf", b"\xf0\x9f\x92"]
_WEIRD_STRINGS = [
    "", " ", "x", "0", "-1", "null", "true", "{}", "[]", "9" * 30, "\x00", "\u202e", "\u2028", "💥", "\uffff",
    "Exit code 99999999999999999999", "Exit Code: 99999999999999999999", "Process exited with code 99999999999999999999",
    "Error: Exit code -99999999999999999999", "Exit code " + "9" * 5000, "<tool_use_error>x</tool_use_error>",
    "[Request interrupted by user]", "The user doesn't want to proceed with this tool use.",
    "@@ -1,99999999999999999999 +99999999999999999999,1 @@\n+x\n-y", "@@ -0,0 +0,0 @@",
    "*** Begin Patch\n*** Update File: a\n@@\n-x\n+y\n*** End Patch",
    "apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: z\n+1\nEOF", "a" * 400, "../../etc/passwd", "C:\\x\\y",
    "file:///c%3A/x", "oai_env://env/abs/path", "agentId: deadbeef", "Task #7",
]
_WEIRD_VALUES: list[Any] = [
    None, True, False, 0, 1, -1, 2**31, 2**53 + 1, 2**63 - 1, -(2**63), 2**64 - 1, 1.5, -0.0, 1e308, -1e308,
    [], {}, [None], {"": None}, [[]], [{}], {"type": None}, {"type": "text", "text": None}, [1, "a", None],
    {"type": "text", "text": ["nested"]}, {"type": "tool_result", "content": None},
]


def _rand_value(rnd: random.Random, ctx: MutationContext) -> Any:
    r = rnd.random()
    if r < 0.45:
        return rnd.choice(_WEIRD_VALUES)
    if r < 0.8:
        return rnd.choice(_WEIRD_STRINGS)
    if r < 0.9 and ctx.ids:
        return rnd.choice(ctx.ids)
    if ctx.types:
        return rnd.choice(ctx.types)
    return None


@dataclass
class MutationContext:
    types: list[str]
    ids: list[str]
    pool: list[bytes]  # other records (any provider) to splice from
    big: int = 3 * MB  # size of "big" strings
    deep: tuple[int, ...] = (10, 100, 254, 255, 256, 300, 511, 512, 1000, 1022, 1023, 1024, 1025, 2000, 10_000)


def _loads(data: bytes) -> Any:
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError:
        return _NOT_JSON


_NOT_JSON = object()


def _dumps(obj: Any) -> bytes:
    """orjson, else the stdlib (integers over 64 bits); raises ValueError when neither can
    (nesting deeper than either allows)."""
    try:
        return orjson.dumps(obj)
    except TypeError:
        import json

        try:
            return json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode("utf-8", "surrogatepass")
        except RecursionError:
            raise ValueError("too deep to serialise") from None


def _slots(obj: Any, limit: int = 4000) -> list[tuple[Any, Any]]:
    return [(c, k) for c, k, _v in _walk(obj, limit)]


def _string_slots(obj: Any) -> list[tuple[Any, Any]]:
    return [(c, k) for c, k, v in _walk(obj, 4000) if isinstance(v, str)]


def _dict_slots(obj: Any) -> list[dict]:
    out = [obj] if isinstance(obj, dict) else []
    out += [v for _c, _k, v in _walk(obj, 4000) if isinstance(v, dict)]
    return out


# JSON-level operators: (obj, rnd, ctx) -> obj (may mutate in place). Returning bytes means
# "already serialised" (deep nesting cannot go through orjson.dumps).

def op_flip_type(obj: Any, rnd: random.Random, ctx: MutationContext) -> Any:
    slots = _slots(obj)
    if not slots:
        return _rand_value(rnd, ctx)
    for _ in range(rnd.randint(1, 3)):
        c, k = rnd.choice(slots)
        c[k] = _rand_value(rnd, ctx)
        slots = _slots(obj)
        if not slots:
            break
    return obj


def op_drop_field(obj: Any, rnd: random.Random, ctx: MutationContext) -> Any:
    dicts = [d for d in _dict_slots(obj) if d]
    for _ in range(rnd.randint(1, 4)):
        if not dicts:
            break
        d = rnd.choice(dicts)
        if d:
            d.pop(rnd.choice(list(d)))
        dicts = [d for d in _dict_slots(obj) if d]
    return obj


def op_null_everywhere(obj: Any, rnd: random.Random, ctx: MutationContext) -> Any:
    mode = rnd.randrange(3)
    for c, k, v in list(_walk(obj)):
        if mode == 0 and not isinstance(v, (dict, list)):
            c[k] = None  # every leaf
        elif mode == 1 and k != "type":
            c[k] = None  # every value but the record type (nested containers vanish too)
        elif mode == 2 and rnd.random() < 0.5:
            c[k] = None
    return obj


def op_numbers_for_strings(obj: Any, rnd: random.Random, ctx: MutationContext) -> Any:
    nums = [0, 1, -1, 42, 2**63 - 1, -(2**63), 2**64 - 1, 1.5, 1e300, 1700000000000]
    p = rnd.choice((0.2, 0.6, 1.0))
    for c, k in _string_slots(obj):
        if rnd.random() < p:
            c[k] = rnd.choice(nums)
    return obj


def op_timestamps(obj: Any, rnd: random.Random, ctx: MutationContext) -> Any:
    variants: list[Callable[[str], Any]] = [
        lambda s: re.sub(r"(Z|[+-]\d{2}:?\d{2})$", "", s),  # no zone
        lambda s: re.sub(r"(Z|[+-]\d{2}:?\d{2})$", "", s).split(".")[0],
        lambda s: re.sub(r"Z$", "+05:30", s),
        lambda s: s[:10],
        lambda s: "2026-02-30T25:61:61Z",
        lambda s: "0000-00-00T00:00:00",
        lambda s: "yesterday",
        lambda s: "",
        lambda s: 1700000000000,
        lambda s: None,
        lambda s: s + "Z",
        lambda s: s.replace("T", " "),
    ]
    f = rnd.choice(variants)
    hit = False
    for c, k, v in list(_walk(obj)):
        if isinstance(v, str) and _TS.match(v):
            c[k] = f(v)
            hit = True
    if not hit and isinstance(obj, dict):
        obj["timestamp"] = f("2026-01-01T00:00:00.000Z")
    return obj


def op_ids(obj: Any, rnd: random.Random, ctx: MutationContext) -> Any:
    """Duplicate / clash ids: reuse another record's id, point a parent at itself, share a
    session id with another file."""
    id_slots = [(c, k) for c, k, v in _walk(obj) if isinstance(k, str) and _ID_KEY.search(k)]
    if not id_slots:
        if isinstance(obj, dict) and ctx.ids:
            obj[rnd.choice(("uuid", "id", "sessionId", "call_id"))] = rnd.choice(ctx.ids)
        return obj
    here = [c[k] for c, k in id_slots if isinstance(c[k], str)]
    for c, k in rnd.sample(id_slots, min(len(id_slots), rnd.randint(1, 3))):
        r = rnd.random()
        if r < 0.5 and ctx.ids:
            c[k] = rnd.choice(ctx.ids)
        elif r < 0.8 and here:
            c[k] = rnd.choice(here)
        else:
            c[k] = rnd.choice(["", "x", "agent-", "../x", "a" * 300, None, 7])
    return obj


def op_type_swap(obj: Any, rnd: random.Random, ctx: MutationContext) -> Any:
    type_slots = [(c, k) for c, k, v in _walk(obj) if k == "type"]
    if not type_slots:
        if isinstance(obj, dict):
            obj["type"] = rnd.choice(ctx.types or ["user"])
        return obj
    for c, k in rnd.sample(type_slots, min(len(type_slots), rnd.randint(1, 2))):
        c[k] = rnd.choice(ctx.types) if ctx.types and rnd.random() < 0.8 else rnd.choice(["", "?", "x" * 200, None, 1])
    return obj


def op_splice(obj: Any, rnd: random.Random, ctx: MutationContext) -> Any:
    """Graft a field (or a whole value) from another record, maybe another provider's."""
    if not ctx.pool:
        return obj
    other = _loads(rnd.choice(ctx.pool))
    if other is _NOT_JSON:
        return obj
    oslots = _slots(other, 2000)
    if not oslots:
        return obj
    oc, ok = rnd.choice(oslots)
    dicts = _dict_slots(obj)
    if dicts and isinstance(ok, str):
        rnd.choice(dicts)[ok] = oc[ok]
    else:
        slots = _slots(obj)
        if slots:
            c, k = rnd.choice(slots)
            c[k] = oc[ok]
    return obj


def op_empty_containers(obj: Any, rnd: random.Random, ctx: MutationContext) -> Any:
    for c, k, v in list(_walk(obj)):
        if isinstance(v, list) and rnd.random() < 0.6:
            c[k] = []
        elif isinstance(v, dict) and rnd.random() < 0.3:
            c[k] = {}
    return obj


def op_weird_text(obj: Any, rnd: random.Random, ctx: MutationContext) -> Any:
    slots = _string_slots(obj)
    junk = ["\x00", "\u202e", "\u2028", "\r", "\n", "\ufeff", "e\u0301", "💥", "\uffff", "\U0010ffff", "\t", "\\",
            '"', "</tool_use_error>", "<system-reminder>", "*** End Patch", "\n@@ -1 +1 @@\n"]
    for c, k in rnd.sample(slots, min(len(slots), rnd.randint(1, 5))):
        s = c[k]
        i = rnd.randint(0, len(s))
        c[k] = s[:i] + rnd.choice(junk) * rnd.randint(1, 3) + s[i:]
    return obj


def op_big_string(obj: Any, rnd: random.Random, ctx: MutationContext) -> Any:
    slots = _string_slots(obj)
    size = rnd.choice((64 * 1024, 1 * MB, ctx.big))
    filler = rnd.choice(("a", "line\n", "é", "\x00", "{\"x\":1}"))
    big = (filler * (size // len(filler) + 1))[:size]
    if slots:
        c, k = rnd.choice(slots)
        c[k] = big
    elif isinstance(obj, dict):
        obj["content"] = big
    return obj


def op_deep(obj: Any, rnd: random.Random, ctx: MutationContext) -> bytes:
    depth = rnd.choice(ctx.deep)
    kind = rnd.randrange(3)
    if kind == 0:
        open_, close = b"[" * depth, b"]" * depth
    elif kind == 1:
        open_, close = b'{"content":[' * (depth // 2), b"]}" * (depth // 2)
    else:
        open_, close = b'{"a":' * depth, b"}" * depth
    inner = b'"x"'
    sentinel = "\u0001DEEP\u0001"
    slots = _slots(obj)
    if slots and isinstance(obj, (dict, list)):
        c, k = rnd.choice(slots)
        c[k] = sentinel
        return _dumps(obj).replace(b'"\\u0001DEEP\\u0001"', open_ + inner + close, 1)
    return open_ + inner + close


JSON_OPS: dict[str, Callable[[Any, random.Random, MutationContext], Any]] = {
    "flip_type": op_flip_type,
    "drop_field": op_drop_field,
    "null_everywhere": op_null_everywhere,
    "numbers_for_strings": op_numbers_for_strings,
    "timestamps": op_timestamps,
    "ids": op_ids,
    "type_swap": op_type_swap,
    "splice": op_splice,
    "empty_containers": op_empty_containers,
    "weird_text": op_weird_text,
    "big_string": op_big_string,
    "deep": op_deep,
}


# Byte-level operators: (data, rnd, ctx) -> data.

def bop_truncate(data: bytes, rnd: random.Random, ctx: MutationContext) -> bytes:
    return data[: rnd.randint(0, max(0, len(data) - 1))]


def bop_invalid_utf8(data: bytes, rnd: random.Random, ctx: MutationContext) -> bytes:
    for _ in range(rnd.randint(1, 3)):
        # Prefer a spot inside a string value, where only the UTF-8 is wrong.
        quotes = [m.start() + 1 for m in re.finditer(rb'"', data[:100_000])]
        i = rnd.choice(quotes) if quotes and rnd.random() < 0.7 else rnd.randint(0, len(data))
        data = data[:i] + rnd.choice(_BAD_UTF8) + data[i:]
    return data


def bop_flip_bytes(data: bytes, rnd: random.Random, ctx: MutationContext) -> bytes:
    b = bytearray(data)
    for _ in range(rnd.randint(1, 8)):
        if not b:
            break
        i = rnd.randrange(len(b))
        r = rnd.random()
        if r < 0.4:
            b[i] = rnd.randrange(256)
        elif r < 0.7:
            del b[i]
        else:
            b[i:i] = rnd.choice([b"{", b"}", b"[", b"]", b'"', b",", b":", b"\\", b"\\u", b"\\ud800", b"\r", b" "])
    return bytes(b)


def bop_structure(data: bytes, rnd: random.Random, ctx: MutationContext) -> bytes:
    variants = [
        lambda d: d + b"}",
        lambda d: d + d,  # two objects on one line
        lambda d: b"\xef\xbb\xbf" + d,  # a BOM
        lambda d: b"   " + d + b"  \t",
        lambda d: d + b"\r",
        lambda d: b"[" + d + b"]",
        lambda d: b"",
        lambda d: b"   ",
        lambda d: b"null",
        lambda d: b"42",
        lambda d: b'"a string"',
        lambda d: b"{}",
        lambda d: b"[]",
        lambda d: b"{" * 10_000,  # unterminated
        lambda d: b"[" * 10_000 + b"]" * 10_000,  # 10,000 nested arrays: over orjson's depth limit
        lambda d: b'{"a":' * 2000 + b"1" + b"}" * 2000,
        lambda d: re.sub(rb'"(\w+)":', rb'"\1":null,"\1":', d, count=1),  # duplicate key
        lambda d: d.replace(b'":"', b'":"\\ud800', 1),  # a lone surrogate escape
        lambda d: d.replace(b'":', b'":1e999,"x":', 1),  # infinity
        lambda d: d.replace(b'":', b'":NaN,"x":', 1),
        lambda d: d.replace(b'":', b'":123456789012345678901234567890,"x":', 1),
        lambda d: d.replace(b'":', b'":18446744073709551615,"x":', 1),
        lambda d: d.replace(b'":', b'":-9223372036854775809,"x":', 1),
    ]
    return rnd.choice(variants)(data)


BYTE_OPS: dict[str, Callable[[bytes, random.Random, MutationContext], bytes]] = {
    "truncate": bop_truncate,
    "invalid_utf8": bop_invalid_utf8,
    "flip_bytes": bop_flip_bytes,
    "structure": bop_structure,
}
ALL_OPS = tuple(JSON_OPS) + tuple(BYTE_OPS)


def mutate(data: bytes, ops: Iterable[str], rnd: random.Random, ctx: MutationContext) -> bytes:
    """Apply the named operators in order. JSON operators fall back to a byte operator when
    the data is no longer JSON."""
    for name in ops:
        if name in BYTE_OPS:
            data = BYTE_OPS[name](data, rnd, ctx)
            continue
        obj = _loads(data)
        if obj is _NOT_JSON:
            data = bop_flip_bytes(data, rnd, ctx)
            continue
        try:
            out = JSON_OPS[name](obj, rnd, ctx)
            data = out if isinstance(out, bytes) else _dumps(out)
        except ValueError:
            continue  # the value is already nested too deep to write back: keep the bytes
    return data


def mutate_stream(lines: list[bytes], rnd: random.Random, ctx: MutationContext, n_ops: int = 4) -> list[bytes]:
    """Record mutations at random lines plus stream-level ones: duplicates (same uuid twice),
    a replayed prefix under another session id, reordering, drops, foreign records, a record
    split in two."""
    lines = list(lines)
    for _ in range(n_ops):
        if not lines:
            lines = [rnd.choice(ctx.pool)] if ctx.pool else [b"{}"]
        r = rnd.random()
        i = rnd.randrange(len(lines))
        if r < 0.55:
            ops = rnd.sample(ALL_OPS, rnd.randint(1, 2))
            lines[i] = mutate(lines[i], ops, rnd, ctx)
        elif r < 0.62:
            lines.insert(rnd.randrange(len(lines) + 1), lines[i])  # exact duplicate
        elif r < 0.68:
            n = rnd.randint(1, len(lines))
            replay = []
            new_sid = rnd.choice(ctx.ids) if ctx.ids else "other-session"
            for ln in lines[:n]:
                obj = _loads(ln)
                if isinstance(obj, dict) and "sessionId" in obj:
                    obj["sessionId"] = new_sid
                    try:
                        ln = _dumps(obj)
                    except ValueError:
                        pass
                replay.append(ln)
            lines = replay + lines if rnd.random() < 0.5 else lines + replay
        elif r < 0.75:
            j = rnd.randrange(len(lines))
            lines[i], lines[j] = lines[j], lines[i]
        elif r < 0.82:
            del lines[i : i + rnd.randint(1, 5)]
        elif r < 0.9 and ctx.pool:
            lines.insert(rnd.randrange(len(lines) + 1), rnd.choice(ctx.pool))
        elif r < 0.95:
            cut = rnd.randint(0, len(lines[i]))
            lines[i : i + 1] = [lines[i][:cut], lines[i][cut:]]
        else:
            lines.insert(rnd.randrange(len(lines) + 1), rnd.choice([b"", b"   ", b"\x00\x01", b"not json", b"{}"]))
    return lines


# ---------------------------------------------------------------------------------------- checking


class Violation(Exception):
    """An invariant broke. ``kind`` groups equal bugs; ``detail`` says what happened."""

    def __init__(self, kind: str, detail: str) -> None:
        super().__init__(f"{kind}: {detail}")
        self.kind = kind
        self.detail = detail


# Readers whose records are lines of text, not JSON (Aider's Markdown log): only a line that is
# not UTF-8 is unusable there.
TEXT_RECORDS = ("aider",)


def _usable(rec: RawRecord, text: bool) -> bool:
    """Could a parser read this record? One JSON object, or (for the JSON-lines agents) a line of
    whole objects glued together, which Claude Code's reader takes apart (agents.base.glued_records):
    such a line may yield items without a skip."""
    if not text:
        if _is_json_object(rec.data):
            return True
        try:
            return glued_records(rec) is not None
        except RecursionError:  # nested past what json can decode: the readers skip it too
            return False
    try:
        rec.data.decode("utf-8")
        return True
    except UnicodeDecodeError:
        return False


def _is_json_object(data: bytes) -> bool:
    try:
        return isinstance(orjson.loads(data), dict)
    except orjson.JSONDecodeError:
        return False


def _where(exc: BaseException) -> str:
    """The innermost hansard frame of a traceback: groups equal crashes."""
    tb = traceback.extract_tb(exc.__traceback__)
    for fr in reversed(tb):
        if "/hansard/" in fr.filename:
            return f"{Path(fr.filename).name}:{fr.lineno} {fr.name}"
    return f"{tb[-1].name}" if tb else "?"


def _raised(what: str, exc: BaseException) -> Violation:
    return Violation(f"{what} raised {type(exc).__name__} at {_where(exc)}",
                     "".join(traceback.format_exception(exc))[-3000:])


class MemStore:
    """An in-memory store with every migration, for checking that items can be written."""

    def __init__(self) -> None:
        db = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
        db.row_factory = sqlite3.Row
        db.execute("CREATE TABLE IF NOT EXISTS _migrations (name TEXT PRIMARY KEY, applied_at REAL)")
        for fn in MIGRATIONS:
            db.executescript(f"BEGIN;\n{fn()}\nCOMMIT;")
        self.db = db

    def writer(self, provider_name: str) -> Writer:
        self.db.execute("BEGIN")
        return Writer(self.db, 1, provider_name, redact)

    def rollback(self) -> None:
        if self.db.in_transaction:
            self.db.execute("ROLLBACK")


@dataclass
class Outcome:
    records: int = 0
    skips: Counter = field(default_factory=Counter)
    caught: Counter = field(default_factory=Counter)  # parser_error details (exception type)


def check_items(out: Any, rec: RawRecord | None, what: str, outcome: Outcome, text: bool = False) -> list[Any]:
    if not isinstance(out, list):
        raise Violation(f"{what} returned {type(out).__name__}", repr(out)[:300])
    for it in out:
        if not isinstance(it, ITEM_TYPES):
            raise Violation(f"{what} returned a {type(it).__name__}", repr(it)[:300])
        if isinstance(it, Skip):
            if not isinstance(it.reason, str) or not it.reason.strip():
                raise Violation("skip without a reason", repr(it)[:300])
            if not isinstance(it.offset, int) or not isinstance(it.detail, str):
                raise Violation("malformed skip", repr(it)[:300])
            outcome.skips[it.reason] += 1
            if it.reason == "parser_error":
                outcome.caught[it.detail[:90]] += 1
    if rec is not None and not _usable(rec, text) and not any(isinstance(i, Skip) for i in out):
        raise Violation("unusable record without a skip", f"{len(rec.data)} bytes -> {len(out)} items")
    return out


def save_state(provider: Any, path: str, parser: Any) -> dict[str, Any]:
    try:
        st = parser.state()
    except Exception as exc:
        raise _raised("state()", exc) from None
    if not isinstance(st, dict):
        raise Violation("state() is not a dict", type(st).__name__)
    try:
        blob = orjson.dumps(st)
    except TypeError as exc:
        raise Violation("state() is not JSON-serialisable", str(exc)) from None
    loaded = orjson.loads(blob)
    try:
        provider.new_parser(path, loaded)
    except Exception as exc:
        raise _raised("new_parser(saved state)", exc) from None
    return loaded


def feed_stream(target: str, path: str, datas: list[bytes], *, state: dict[str, Any] | None = None,
                chunks: list[int] | None = None, store: MemStore | None = None, start_offset: int = 0,
                outcome: Outcome | None = None, check_every_state: bool = True) -> Outcome:
    """Feed ``datas`` as records the way the scanner does: in chunks, each a new parser made
    from the saved state, ``finish()`` at the end of every chunk. Raises Violation."""
    provider = registry.from_key(target)
    outcome = outcome or Outcome()
    cuts = sorted(set(c for c in (chunks or []) if 0 < c < len(datas))) + [len(datas)]
    offset = start_offset
    i = 0
    writer = store.writer(provider.name) if store is not None else None
    try:
        for cut in cuts:
            try:
                parser = provider.new_parser(path, state)
            except Exception as exc:
                raise _raised("new_parser", exc) from None
            while i < cut:
                rec = RawRecord(path, offset, datas[i])
                try:
                    out = parser.feed(rec)
                except Exception as exc:
                    raise _raised("feed", exc) from None
                check_items(out, rec, "feed", outcome, target in TEXT_RECORDS)
                if writer is not None:
                    try:
                        writer.apply(out, rec.offset)
                    except Exception as exc:
                        raise _raised("Writer.apply", exc) from None
                if check_every_state:
                    save_state(provider, path, parser)
                outcome.records += 1
                offset += len(datas[i]) + 1
                i += 1
            try:
                out = parser.finish()
            except Exception as exc:
                raise _raised("finish", exc) from None
            check_items(out, None, "finish", outcome)
            if writer is not None:
                try:
                    writer.apply(out, offset)
                except Exception as exc:
                    raise _raised("Writer.apply", exc) from None
            state = save_state(provider, path, parser)
    finally:
        if store is not None:
            store.rollback()
    return outcome


# ---------------------------------------------------------------------------------------- cases


@dataclass
class Case:
    """One generated input. ``describe`` tells how to rebuild it; ``blob`` is the input itself."""

    target: str
    describe: str
    run: Callable[[], Outcome]
    blob: bytes = b""


def record_case(corpus: Corpus, target: str, file_i: int, line_i: int, ops: list[str], seed: int,
                follow: int = 2, store: MemStore | None = None, big: int = 3 * MB) -> Case:
    """One mutated record fed to a parser resumed from the real state just before it, then
    the next ``follow`` real records."""
    f = corpus.files[target][file_i % len(corpus.files[target])]
    i = line_i % len(f.records)
    rnd = random.Random(seed)
    ctx = MutationContext(corpus.types.get(target, []), corpus.ids.get(target, []), corpus.all_lines(), big=big)
    data = mutate(f.records[i].data, ops, rnd, ctx)
    state = orjson.loads(f.states[i])
    rest = [r.data for r in f.records[i + 1 : i + 1 + follow]]
    describe = f"record: {target} {f.name} line {i} ops={ops} seed={seed}"

    def run() -> Outcome:
        return feed_stream(target, f.path, [data, *rest], state=state, store=store, start_offset=f.records[i].offset)

    return Case(target, describe, run, data)


def stream_case(corpus: Corpus, target: str, file_i: int, seed: int, n_ops: int = 4,
                store: MemStore | None = None, big: int = 3 * MB) -> Case:
    """A whole sample file with several mutations, fed in random chunks (state saved as JSON
    between them, finish() after each, as successive scans do)."""
    f = corpus.files[target][file_i % len(corpus.files[target])]
    rnd = random.Random(seed)
    ctx = MutationContext(corpus.types.get(target, []), corpus.ids.get(target, []), corpus.all_lines(), big=big)
    datas = mutate_stream([r.data for r in f.records], rnd, ctx, n_ops)
    if target == "gemini:json":
        datas = datas[:1] if datas else [b""]
    chunks = sorted(rnd.sample(range(1, max(2, len(datas))), min(3, max(0, len(datas) - 1)))) if len(datas) > 1 else []
    describe = f"stream: {target} {f.name} n_ops={n_ops} seed={seed}"

    def run() -> Outcome:
        return feed_stream(target, f.path, datas, chunks=chunks, store=store, check_every_state=len(datas) < 400)

    return Case(target, describe, run, b"\n".join(datas))


def _shape(data: bytes) -> tuple:
    """What kind of record a line is (type, payload type, keys, content block types)."""
    o = _loads(data)
    if not isinstance(o, dict):
        return ("?",)
    p = o.get("payload") if isinstance(o.get("payload"), dict) else {}
    m = o.get("message") if isinstance(o.get("message"), dict) else {}
    cont = m.get("content")
    blocks = tuple(sorted({str(b.get("type")) for b in cont if isinstance(b, dict)})) if isinstance(cont, list) else ()
    return (str(o.get("type")), str(p.get("type")), tuple(sorted(o)), tuple(sorted(p)), blocks)


def truncation_plan(corpus: Corpus, target: str, max_line: int = 2048, random_cuts: int = 3,
                    rnd: random.Random | None = None) -> list[tuple[SampleFile, int, int]]:
    """(file, line index, cut): every byte of the first line of each record shape up to
    ``max_line`` bytes, and ``random_cuts`` random cuts of every other line."""
    rnd = rnd or random.Random(0)
    out: list[tuple[SampleFile, int, int]] = []
    seen: set[tuple] = set()
    for f in corpus.files[target]:
        for i, r in enumerate(f.records):
            n = len(r.data)
            shape = _shape(r.data)
            if shape not in seen and n <= max_line:
                seen.add(shape)
                out += [(f, i, cut) for cut in range(n)]
            elif n:
                out += [(f, i, rnd.randrange(n)) for _ in range(random_cuts)]
    return out


def truncation_case(f: SampleFile, i: int, cut: int, store: MemStore | None = None) -> Case:
    data = f.records[i].data[:cut]
    state = orjson.loads(f.states[i])

    def run() -> Outcome:
        return feed_stream(f.target, f.path, [data], state=state, store=store, start_offset=f.records[i].offset,
                           check_every_state=False)

    return Case(f.target, f"truncate: {f.target} {f.name} line {i} at byte {cut}", run, data)


# -- apply_patch


def mutate_patch(text: str, rnd: random.Random, n_ops: int = 3) -> str:
    markers = ["*** Begin Patch", "*** End Patch", "*** Add File: x.py", "*** Delete File: y.py",
               "*** Update File: z.py", "*** Move to: w.py", "*** End of File", "@@", "@@ def f():", "@@ @@",
               "*** Environment ID: env1", "*** Update File: oai_env://e/abs/p.py", "*** Add File: ", "*** Update File:",
               "***", "*", "EOF", "", " ", "+", "-", "+added", "-removed", " context", "\\ No newline at end of file"]
    for _ in range(n_ops):
        lines = text.split("\n")
        r = rnd.random()
        i = rnd.randrange(len(lines))
        if r < 0.15:
            text = text[: rnd.randint(0, len(text))]
            continue
        if r < 0.25:
            del lines[i]
        elif r < 0.35:
            lines.insert(i, lines[i])
        elif r < 0.45:
            j = rnd.randrange(len(lines))
            lines[i], lines[j] = lines[j], lines[i]
        elif r < 0.6:
            lines.insert(i, rnd.choice(markers))
        elif r < 0.7:
            lines[i] = rnd.choice(" +-@*\t") + lines[i][1:] if lines[i] else rnd.choice(" +-@*\t")
        elif r < 0.75:
            lines[i] = rnd.choice(["  ", "\t", ""]) + lines[i] + rnd.choice(["", "  ", "\r"])
        elif r < 0.8:
            text = "\r\n".join(lines)
            continue
        elif r < 0.87:
            delim = rnd.choice(["EOF", "'EOF'", '"PATCH"', "E-O.F"])
            close = rnd.choice([delim.strip("'\""), "", "OTHER"])
            pre = rnd.choice(["", "apply_patch ", "cd 'dir with space' && apply_patch ", "applypatch ", "cd x&&apply_patch"])
            text = f"{pre}<<{delim}\n{text}\n{close}"
            continue
        elif r < 0.92:
            junk = rnd.choice(["\x00", "\ud800", "💥", "\u2028", "\r", "\\", "'", '"', "é", "\u202e"])
            k = rnd.randint(0, len(lines[i]))
            lines[i] = lines[i][:k] + junk + lines[i][k:]
        elif r < 0.96:
            lines[i : i + 1] = [lines[i]] * rnd.choice([2, 50, 2000])
        else:
            lines.insert(i, rnd.choice("+- ") + "x" * rnd.choice([1000, 100_000]))
        text = "\n".join(lines)
    return text


def check_patch(text: str, original: str | None = None) -> Outcome:
    outcome = Outcome(records=1)
    try:
        ops = parse_patch(text)
    except PatchError:
        outcome.skips["patch_error"] += 1
        ops = None
    except Exception as exc:
        raise _raised("parse_patch", exc) from None
    for fn, arg in ((scan_headers, text), (unwrap_patch, text), (extract_patch, text),
                    (extract_patch, ["bash", "-lc", text]), (extract_patch, ["apply_patch", text]),
                    (extract_patch, ["apply_patch", text, 1]), (extract_patch, [None, text])):
        try:
            fn(arg)
        except Exception as exc:
            raise _raised(fn.__name__, exc) from None
    if ops is None:
        return outcome
    if not isinstance(ops, list):
        raise Violation("parse_patch returned " + type(ops).__name__, "")
    outcome.skips["patch_ok"] += 1
    for op in ops:
        base = original
        if base is None:
            base = "\n".join(x for h in op.hunks for x in h.old_lines) + "\n"
        try:
            apply_to_text(base, op)
        except PatchError:
            pass
        except Exception as exc:
            raise _raised("apply_to_text", exc) from None
    return outcome


def patch_case(corpus: Corpus, seed_i: int, seed: int, n_ops: int = 3) -> Case:
    base = corpus.patches[seed_i % len(corpus.patches)]
    rnd = random.Random(seed)
    text = mutate_patch(base, rnd, n_ops)
    return Case("apply_patch", f"patch: seed patch #{seed_i % len(corpus.patches)} n_ops={n_ops} seed={seed}",
                lambda: check_patch(text), text.encode("utf-8", "surrogatepass"))


# -- query parser


class FtsProbe:
    """Tiny FTS5 tables with the store's tokenizers, to run the parser's expressions."""

    def __init__(self) -> None:
        db = sqlite3.connect(":memory:")
        db.execute("CREATE VIRTUAL TABLE f USING fts5(text, tokenize='unicode61 remove_diacritics 2')")
        db.execute("CREATE VIRTUAL TABLE t USING fts5(text, tokenize='trigram', detail='none')")
        for text in ("retry with backoff in src/net.py", "fetch_data getUserNameById", "éclair café 日本語 💥", "the a or"):
            db.execute("INSERT INTO f(text) VALUES (?)", (text,))
            db.execute("INSERT INTO t(text) VALUES (?)", (text,))
        self.db = db


def risky_like(pattern: str) -> bool:
    """A LIKE pattern that may crash SQLite 3.40's FTS5 trigram index (detail=none) with
    SIGSEGV: a wildcard inside the pattern near non-ASCII text, e.g. ``%àà_àààà%``."""
    inner = pattern.strip("%")
    return ("_" in inner or "%" in inner) and any(ord(c) > 127 for c in inner)


def like_in_subprocess(pattern: str) -> str | None:
    """Run one trigram LIKE in a child process; the signal's name if it died of one."""
    import signal
    import subprocess
    import sys

    code = ("import sqlite3,sys;db=sqlite3.connect(':memory:');"
            "db.execute(\"CREATE VIRTUAL TABLE t USING fts5(text, tokenize='trigram', detail='none')\");"
            "db.execute(\"INSERT INTO t(text) VALUES ('retry with backoff in src/net.py')\");"
            "db.execute('SELECT rowid FROM t WHERE text LIKE ?', (sys.stdin.read(),)).fetchall()")
    p = subprocess.run([sys.executable, "-c", code], input=pattern.encode("utf-8", "surrogatepass"),
                       capture_output=True, timeout=60)
    if p.returncode < 0:
        return signal.Signals(-p.returncode).name
    return None


def check_query(raw: Any, probe: FtsProbe, isolate_risky: bool = True) -> Outcome:
    """parse() never raises, its Query methods work, SQLite accepts every FTS5 expression and
    LIKE pattern. With ``isolate_risky`` a pattern that could crash SQLite itself runs in a
    child process (the crash is reported, not suffered); without, the caller isolates."""
    from hansard.answers.search.query import parse
    from hansard.store.sqlite.search import fts_all, fts_any, fts_exclude, group_expr, term_like

    outcome = Outcome(records=1)
    try:
        q = parse(raw)
    except Exception as exc:
        raise _raised("query.parse", exc) from None
    try:
        exprs = [fts_all(q), fts_any(q), fts_exclude(q), *(group_expr(q, i) for i in range(len(q.groups)))]
        likes = [term_like(t) for t in q.terms() + q.exclude]
        q.highlight_words()
        q.identifiers()
        for t in q.terms():
            t.occurs_in("some text")
    except Exception as exc:
        raise _raised("Query methods", exc) from None
    for e in exprs:
        if e is None:
            continue
        if not isinstance(e, str):
            raise Violation("FTS expression is not a string", repr(e))
        try:
            probe.db.execute("SELECT rowid FROM f WHERE f MATCH ?", (e,)).fetchall()
        except (sqlite3.Error, UnicodeError) as exc:
            raise Violation(f"FTS5 rejects the expression ({type(exc).__name__})", f"{e!r}: {exc}") from None
    for lk in likes:
        if lk is None:
            continue
        if isolate_risky and risky_like(lk):
            sig = like_in_subprocess(lk)
            if sig:
                raise Violation(f"SQLite died of {sig} on the query's trigram LIKE pattern",
                                f"query {raw!r} -> LIKE {lk!r}: FTS5 trigram (detail=none), SQLite "
                                f"{sqlite3.sqlite_version}")
            outcome.skips["like_isolated"] += 1
            continue
        try:
            probe.db.execute("SELECT rowid FROM t WHERE text LIKE ?", (lk,)).fetchall()
        except (sqlite3.Error, UnicodeError) as exc:
            raise Violation(f"LIKE pattern fails ({type(exc).__name__})", f"{lk!r}: {exc}") from None
    outcome.skips["empty" if q.empty else "terms"] += 1
    return outcome


def query_from_pieces(pieces: list[str], seps: list[str]) -> str:
    out = []
    for i, p in enumerate(pieces):
        out.append(p)
        out.append(seps[i % len(seps)] if seps else " ")
    return "".join(out)



# ---------------------------------------------------------------------------------------- end to end


def write_tree(root: Path, corpus: Corpus, seed: int, big_line: int = 0) -> list[str]:
    """A folder of mutated transcript files (and some odd ones) for the real scanner.
    Returns a description of what was written."""
    rnd = random.Random(seed)
    root.mkdir(parents=True, exist_ok=True)
    made: list[str] = []
    targets = [t for t in PARSER_TARGETS if corpus.files[t]]
    for k in range(rnd.randint(1, 4)):
        target = rnd.choice(targets)
        f = rnd.choice(corpus.files[target])
        if not Path(f.path).exists():
            continue  # synthetic (made in memory)
        ctx = MutationContext(corpus.types.get(target, []), corpus.ids.get(target, []), corpus.all_lines())
        datas = [r.data for r in f.records]
        datas = mutate_stream(datas, rnd, ctx, rnd.randint(1, 8)) if target != "gemini:json" else [
            mutate(datas[0], rnd.sample(ALL_OPS, rnd.randint(1, 2)), rnd, ctx)]
        sub = root / f"d{k}"
        sub.mkdir(exist_ok=True)
        name = Path(f.path).name
        eol = b"\r\n" if rnd.random() < 0.1 else b"\n"
        body = eol.join(datas) + (eol if rnd.random() < 0.8 else b"")
        (sub / name).write_bytes(body)
        made.append(f"{sub.name}/{name} <- {f.name} ({len(datas)} records)")
    r = rnd.random()
    if r < 0.1:
        (root / "empty.jsonl").write_bytes(b"")
        made.append("empty.jsonl")
    elif r < 0.2:
        (root / "binary.jsonl").write_bytes(bytes(rnd.randrange(256) for _ in range(4096)))
        made.append("binary.jsonl")
    elif r < 0.3:
        (root / "dir.jsonl").mkdir()
        made.append("dir.jsonl/")
    elif r < 0.4:
        f = rnd.choice(corpus.files["claude_code"])
        deep = b'{"type":"user","sessionId":"deep","uuid":"d1","message":{"role":"user","content":' + \
            b"[" * 10_000 + b"]" * 10_000 + b"}}"
        (root / "deep.jsonl").write_bytes(f.records[0].data + b"\n" + deep + b"\n" + f.records[-1].data + b"\n")
        made.append("deep.jsonl (10,000 nested arrays)")
    if big_line:
        f = corpus.files["claude_code"][0]
        obj = {"type": "user", "sessionId": "big-line", "uuid": f"big-{seed}", "timestamp": "2026-01-01T00:00:00Z",
               "message": {"role": "user", "content": "x" * big_line}}
        (root / "big.jsonl").write_bytes(f.records[0].data + b"\n" + orjson.dumps(obj) + b"\n")
        made.append(f"big.jsonl ({big_line} byte line)")
    return made


def scan_case(corpus: Corpus, seed: int, workdir: Path, big_line: int = 0) -> Case:
    """Mutated files on disk through the real index (twice, with an append and a rewrite in
    between), then a rebuild from the archive. Needs HANSARD_HOME pointing into ``workdir``."""
    from hansard.ingest.run import index, rebuild
    from hansard.store.sqlite.db import connect

    def run() -> Outcome:
        outcome = Outcome()
        tree = workdir / "tree"
        made = write_tree(tree, corpus, seed, big_line)
        rnd = random.Random(seed ^ 0x5EED)
        db = connect()
        try:
            summaries = []
            for step in range(3):
                try:
                    s = index(db, [tree])
                except Exception as exc:
                    raise _raised(f"index (scan {step + 1}; files {made})", exc) from None
                summaries.append(s)
                files = [p for p in tree.rglob("*") if p.is_file()]
                if not files:
                    break
                p = rnd.choice(files)
                if step == 0:  # an agent appends: more (mutated) lines
                    ctx = MutationContext([], [], corpus.all_lines())
                    extra = mutate_stream(rnd.sample(corpus.all_lines(), 3), rnd, ctx, 2)
                    with p.open("ab") as fh:
                        fh.write(b"\n".join(extra) + (b"\n" if rnd.random() < 0.7 else b""))
                else:  # a rewrite that shrinks the file
                    data = p.read_bytes()
                    p.write_bytes(data[: rnd.randint(0, len(data))])
            counted: Counter = Counter()
            for s in summaries:
                if s is not None:
                    counted.update(s.skipped)
            outcome.skips.update(counted)
            outcome.records = sum(s.records for s in summaries if s is not None)
            stored = Counter({r[0]: r[1] for r in db.execute("SELECT reason, COUNT(*) FROM skips GROUP BY reason")})
            for reason, n in stored.items():
                if n > counted.get(reason, 0):
                    raise Violation("skips in the store that no run counted", f"{reason}: stored {n}, counted "
                                    f"{counted.get(reason, 0)}; files {made}")
            ok = db.execute("PRAGMA integrity_check").fetchone()[0]
            if ok != "ok":
                raise Violation("integrity_check", ok)
            try:
                rebuild(db)
            except Exception as exc:
                raise _raised(f"rebuild (files {made})", exc) from None
        finally:
            db.close()
        return outcome

    return Case("scanner", f"scanner: seed={seed} big_line={big_line}", run)


# ---------------------------------------------------------------------------------------- big inputs


def big_line_records(corpus: Corpus, size: int) -> list[tuple[str, str, bytes]]:
    """(target, description, record) with one ``size``-byte line per provider, built on a real
    record: a whole-file text in a tool result, a tool output, a message; plus non-JSON and a
    truncated one."""
    out: list[tuple[str, str, bytes]] = []
    filler = "0123456789abcdef\n" * (size // 17 + 1)
    filler = filler[:size]
    for target in ("claude_code", "codex", "gemini"):
        if not corpus.files[target]:
            continue
        pick = None
        for f in corpus.files[target]:
            for r in f.records:
                obj = _loads(r.data)
                if isinstance(obj, dict) and any(isinstance(v, str) and len(v) > 200 for _c, _k, v in _walk(obj, 2000)):
                    pick = (f, obj)
                    break
            if pick:
                break
        if pick is None:
            continue
        f, obj = pick
        slots = [(c, k) for c, k, v in _walk(obj, 2000) if isinstance(v, str) and len(v) > 200]
        c, k = slots[0]
        c[k] = filler
        data = _dumps(obj)
        out.append((target, f"{target}: {f.name} with a {size}-byte string", data))
        out.append((target, f"{target}: the same line cut in half", data[: len(data) // 2]))
    out.append(("claude_code", f"{size} bytes of non-JSON", b"x" * size))
    out.append(("codex", f"{size} bytes: 10,000 nested arrays then filler", b"[" * 10_000 + b" " * size))
    return out


def deep_records() -> list[tuple[str, bytes]]:
    out = []
    for depth in (255, 256, 300, 1000, 1023, 1024, 1025, 10_000, 100_000):
        out.append((f"{depth} nested arrays", b"[" * depth + b"]" * depth))
        out.append((f"user record, content nested {depth} deep",
                    b'{"type":"user","sessionId":"s","uuid":"u' + str(depth).encode() + b'","message":{"role":"user",'
                    b'"content":' + b"[" * depth + b'"x"' + b"]" * depth + b"}}"))
        out.append((f"tool input nested {depth} deep",
                    b'{"type":"assistant","sessionId":"s","uuid":"a' + str(depth).encode() + b'","message":{"role":'
                    b'"assistant","content":[{"type":"tool_use","id":"t' + str(depth).encode() + b'","name":"Foo",'
                    b'"input":{"x":' + b"[" * depth + b"1" + b"]" * depth + b"}}]}}"))
    return out


# ---------------------------------------------------------------------------------------- specs


def case_from_spec(corpus: Corpus, spec: dict[str, Any], store: MemStore | None = None,
                   workdir: Path | None = None, probe: FtsProbe | None = None) -> Case:
    """Rebuild a case from its JSON spec: the reproducer printed for a failure."""
    kind = spec["kind"]
    if kind == "record":
        return record_case(corpus, spec["target"], spec["file"], spec["line"], spec["ops"], spec["seed"],
                           store=store, big=spec.get("big", 3 * MB))
    if kind == "stream":
        return stream_case(corpus, spec["target"], spec["file"], spec["seed"], spec.get("n_ops", 4), store=store,
                           big=spec.get("big", 3 * MB))
    if kind == "truncate":
        f = corpus.files[spec["target"]][spec["file"]]
        return truncation_case(f, spec["line"], spec["cut"], store=store)
    if kind == "patch":
        return patch_case(corpus, spec["patch"], spec["seed"], spec.get("n_ops", 3))
    if kind == "query":
        text = spec["text"]
        p = probe or FtsProbe()
        return Case("query", f"query: {text!r}"[:200], lambda: check_query(text, p),
                    text.encode("utf-8", "surrogatepass") if isinstance(text, str) else b"")
    if kind == "scanner":
        assert workdir is not None, "scanner cases need a work folder (and HANSARD_HOME inside it)"
        return scan_case(corpus, spec["seed"], workdir, spec.get("big_line", 0))
    if kind == "big":
        target, describe, data = big_line_records(corpus, spec["size"])[spec["index"]]
        f = corpus.files[target][0]
        return Case(target, f"big: {describe}",
                    lambda: feed_stream(target, f.path, [data], state=orjson.loads(f.states[-1]), store=store,
                                        check_every_state=False), data)
    if kind == "deep":
        describe, data = deep_records()[spec["index"]]
        target = spec["target"]
        f = corpus.files[target][0]

        def run() -> Outcome:
            out = feed_stream(target, f.path, [data], store=store, check_every_state=False)
            if not _is_json_object(data) and data.startswith(b"[") and not out.skips:
                raise Violation("deep nesting without a skip", describe)
            return out

        return Case(target, f"deep: {target} {describe}", run, data)
    raise ValueError(f"unknown case kind {kind!r}")
