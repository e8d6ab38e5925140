"""What other tools recorded about a line, shown beside hansard's own answer: git-ai's
authorship notes (``refs/notes/ai``, the Git AI Standard, schema ``authorship/3.0.0`` and the
earlier 7-hex-hash logs).

A note is attached to one commit and names, per file, which of that commit's lines each AI
session wrote (line numbers of the file as that commit has it) and, in its JSON metadata,
each session's agent (tool, conversation id, model). A line blamed to a commit with a note
gets ``recorded``: ``{"by": "git-ai", "kind": "agent", "agent": ..., "session_id": ...,
"model": ..., "commit": ...}`` when the note names it, ``{"by": "git-ai", "kind": "human",
"commit": ...}`` when the note names other lines of the commit but not this one. A commit
without a note records nothing.

hansard never picks between the two: where the record and its own evidence disagree (one says
a person wrote the line and the other an agent, or they name different sessions), the line
says ``disagrees_with: ["git-ai"]`` and its confidence is halved. An ``unknown`` line claims
nothing, so nothing disagrees with it.

Reading costs nothing when the repository has no ``refs/notes/ai`` (a look at git's files), and
otherwise one `git cat-file --batch` for the notes of the blamed commits. Nothing is written.

Agent Trace records (``hansard trace import``, kept in the store; ``annotate_agent_trace``) are
read the same way: a line blamed to commit C, at line L of path P in C, gets ``recorded: {"by":
"agent-trace", "kind": "agent|mixed|human|unknown", "commit", "model", "session_id" (when the
conversation's url is hansard's own), "url", "tool", "record"}`` from the newest record about C
whose range of P holds L (the specification's own way to read a line, its section 6.5). A line no
range holds records nothing: a record claims only the lines it names. ``mixed`` disagrees only
with ``human``, ``unknown`` with nothing. Where git-ai recorded the line too, ``recorded`` stays
git-ai's and a disagreeing record still adds ``agent-trace`` to ``disagrees_with``.

Two more records, each in its own function below, each only on lines no record before it
describes (git-ai's lines first): qwen-code's per-file notes (``annotate_attribution``) and
agents' commit trailers (``annotate_trailers``, commit-level, never a disagreement).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from hansard.recorders.git_ai import RECORDER

if TYPE_CHECKING:
    from hansard.answers.restored import FileHistory
    from hansard.answers.why.line import LineAnswer
    from hansard.git.blame import Blame, BlameLine

NOTES_REF = RECORDER.notes_ref or ""
BY = RECORDER.name

AGENT_KINDS = ("agent", "agent_modified")
# A note larger than this is not read (git-ai embeds conversations; the line ranges come first).
NOTE_MAX = 32 << 20
# What one answer reads of notes in all: distinct note blobs, each read once.
NOTES_TOTAL = 64 << 20


def notes_tip(top: str) -> str | None:
    from hansard.git.refs import ref_from_files

    return ref_from_files(top, NOTES_REF)


def read_notes(top: str, tip: str, shas: list[str], parse: Callable[[bytes], Any] | None = None,
               unread: list[int] | None = None) -> dict[str, Any]:
    """commit -> its parsed note, for the commits among ``shas`` that have one, in one
    `git cat-file --batch` (a note is at ``<sha>`` in the notes tree, or fanned out as
    ``<sha[:2]>/<sha[2:]>`` or ``<sha[:2]>/<sha[2:4]>/<sha[4:]>`` once there are many).
    ``parse``: the notes' parser, git-ai's by default.

    Bounded from the sizes git gives before anything is read: a note blob is read and parsed
    once however many commits name it, one over ``NOTE_MAX`` is not read, and the distinct notes
    of one answer stop at ``NOTES_TOTAL``; each commit whose note was left unread adds one to
    ``unread[0]``."""
    from hansard.git.objects import CatFile

    if parse is None:
        from hansard.recorders.git_ai.notes import parse_note

        parse = parse_note
    out: dict[str, Any] = {}
    if not shas:
        return out
    with CatFile(top) as cat:
        asks = [f"{tip}:{p}" for s in shas for p in (s, f"{s[:2]}/{s[2:]}", f"{s[:2]}/{s[2:4]}/{s[4:]}")]
        infos = cat.info_many(asks)
        blob_of: dict[str, str] = {}
        sizes: dict[str, int] = {}
        for i, sha in enumerate(shas):
            info = next((x for x in infos[3 * i:3 * i + 3] if x is not None and x[1] == "blob"), None)
            if info is not None:
                blob_of[sha], sizes[info[0]] = info[0], info[2]
        wanted: dict[str, None] = {}
        total = 0
        for sha in shas:
            oid = blob_of.get(sha)
            if oid is None or oid in wanted or sizes[oid] > NOTE_MAX or total + sizes[oid] > NOTES_TOTAL:
                continue
            total += sizes[oid]
            wanted[oid] = None
        got = dict(zip(wanted, cat.get_many(list(wanted), max_bytes=NOTE_MAX), strict=True))
    parsed: dict[str, Any] = {}
    for oid, g in got.items():
        if g is not None and g[0] == "blob":
            note = parse(g[1])
            if note is not None:
                parsed[oid] = note
    del got
    for sha, oid in blob_of.items():
        if oid in parsed:
            out[sha] = parsed[oid]
    if unread is not None:
        unread[0] += sum(1 for oid in blob_of.values() if oid not in wanted)
    return out


def _blamed(bl: Blame) -> tuple[dict[int, BlameLine], set[str]]:
    """Each line's blame by its line number in the file, and the commits blamed (without the
    zero id of lines not committed yet): what every record below is looked up by."""
    by_line = {b.final_line: b for b in bl.lines}
    return by_line, {b.sha for b in by_line.values() if b.sha and b.sha.strip("0")}


def annotate(top: str, bl: Blame, answers: list[LineAnswer], unread: list[int] | None = None) -> list[LineAnswer]:
    """``answers`` with what git-ai recorded about each line (see the module docstring);
    ``unread[0]`` counts the commits whose note was over the budget (``read_notes``)."""
    tip = notes_tip(top)
    if tip is None or not answers:
        return answers
    by_line, shas = _blamed(bl)
    notes = read_notes(top, tip, sorted(shas), unread=unread)
    if not notes:
        return answers
    out = []
    for a in answers:
        b = by_line.get(a.line)
        note = notes.get(b.sha) if b is not None else None
        if note is None or b is None:
            out.append(a)
            continue
        h = note.who(b.orig_path, b.orig_line)
        rec: dict[str, Any] = {"by": BY, "commit": b.sha}
        if h is None:
            rec["kind"] = "human"
        else:
            rec.update({"kind": "agent", **note.prompts.get(h, {})})
        out.append(_compare(a, rec))
    return out


def _compare(a: LineAnswer, rec: dict[str, Any], by: str = BY) -> LineAnswer:
    ours_agent = a.kind in AGENT_KINDS
    if a.kind in ("human", "pasted"):
        differs = rec["kind"] == "agent" or (a.kind == "human" and rec["kind"] == "mixed")
    elif ours_agent:
        differs = rec["kind"] == "human" or (
            bool(rec.get("session_id")) and bool(a.session_id) and rec["session_id"] != a.session_id)
    else:
        differs = False  # unknown or uncommitted: hansard claims nothing the record could contradict
    shown = rec if a.recorded is None else a.recorded  # one record shown: the first recorder's
    if not differs:
        return a.replace(recorded=shown)
    return a.replace(recorded=shown, disagrees_with=(*a.disagrees_with, by), confidence=a.confidence / 2)


def annotate_agent_trace(store: Any, bl: Blame, answers: list[LineAnswer]) -> list[LineAnswer]:
    """``answers`` with what imported Agent Trace records say of each line (see the module
    docstring). One indexed query, and none when no record was ever imported."""
    from hansard.trace import BY as TRACE
    from hansard.trace import KIND_OF_TYPE

    traces = store.agent_traces
    if not answers or not traces.any():
        return answers
    by_line, shas = _blamed(bl)
    at: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for r in traces.ranges_at(shas):  # newest record first
        at.setdefault((r["revision"], r["path"]), []).append(r)
    if not at:
        return answers
    out = []
    for a in answers:
        b = by_line.get(a.line)
        hit = None if b is None else next(
            (r for r in at.get((b.sha, b.orig_path), ()) if r["start_line"] <= b.orig_line <= r["end_line"]), None)
        if hit is None or b is None:
            out.append(a)
            continue
        rec: dict[str, Any] = {"by": TRACE, "commit": b.sha, "kind": KIND_OF_TYPE.get(hit["type"], "unknown")}
        rec.update({k: hit[f] for k, f in (("model", "model"), ("session_id", "session_id"), ("url", "url"),
                                            ("tool", "tool"), ("record", "id")) if hit[f]})
        out.append(_compare(a, rec, TRACE))
    return out


# --- qwen-code's attribution notes (refs/notes/ai-attribution) --------------------------------

def attribution_tip(top: str) -> str | None:
    from hansard.git.refs import ref_from_files
    from hansard.recorders.qwen_code import RECORDER as QWEN

    return ref_from_files(top, QWEN.notes_ref or "")


def annotate_attribution(top: str, bl: Blame, answers: list[LineAnswer], unread: list[int] | None = None
                         ) -> list[LineAnswer]:
    """``answers`` with what qwen-code's note on a line's commit records about the line's file:
    ``recorded: {"by": "qwen-code", "kind": "file_share", "agent": "qwen_code", "ai_percent":
    …, "ai_chars": …, "human_chars": …, "generator": …, "commit": …}``, on lines no line-level
    record (git-ai's) already describes. The note names no line, so it contradicts hansard
    only where it is certain about the whole file: every changed character the agent's (a
    line hansard calls a person's disagrees) or none of them (a line hansard calls an agent's
    disagrees); ``disagrees_with: ["qwen-code"]`` and the confidence halved, as for git-ai.
    Costs nothing without the ref (a look at git's files), else one `git cat-file --batch`."""
    tip = attribution_tip(top)
    if tip is None or not answers:
        return answers
    from hansard.recorders.qwen_code import RECORDER as QWEN
    from hansard.recorders.qwen_code.notes import parse_note

    by_line, shas = _blamed(bl)
    notes = read_notes(top, tip, sorted(shas), parse_note, unread=unread)
    if not notes:
        return answers
    out = []
    for a in answers:
        b = by_line.get(a.line)
        note = notes.get(b.sha) if b is not None and a.recorded is None else None
        share = note.share(b.orig_path) if note is not None and b is not None else None
        if share is None or b is None or note is None:
            out.append(a)
            continue
        rec: dict[str, Any] = {"by": QWEN.name, "kind": "file_share", "agent": "qwen_code", "ai_percent": share.percent,
                               "ai_chars": share.ai_chars, "human_chars": share.human_chars, "commit": b.sha}
        if note.generator:
            rec["generator"] = note.generator
        if a.kind in ("human", "pasted"):
            differs = share.ai_chars > 0 and share.human_chars == 0
        elif a.kind in AGENT_KINDS:
            differs = share.ai_chars == 0 and share.human_chars > 0
        else:
            differs = False
        out.append(a.replace(recorded=rec, disagrees_with=(QWEN.name,), confidence=a.confidence / 2) if differs
                   else a.replace(recorded=rec))
    return out


# --- agent commit trailers (Claude-Session:, Co-authored-by:) ----------------------------------

def annotate_trailers(history: FileHistory, bl: Blame, answers: list[LineAnswer]) -> list[LineAnswer]:
    """``answers`` with what a line's commit's agent trailers record (hansard.agents.trailers),
    on lines no other record describes: ``recorded: {"by": "trailer", "kind": "commit",
    "agent": …, "co_authored_by": [...], "model": …, "session_url": …, "commit": …}``. A
    trailer speaks of the whole commit, so it never disagrees with a line's answer and never
    changes it (a line hansard calls a person's stays one: the person may have written it in
    the agent's commit). The trailers come from the file's own `git log`, already read for the
    answer (git's trailer parser, no process of its own); a line blamed to a commit outside the
    file's history records nothing."""
    from hansard.agents.trailers.coauthors import parse

    if not answers:
        return answers
    by_line, shas = _blamed(bl)
    got = {c.sha: t for c in history.commits() if c.sha in shas and c.trailers and (t := parse(c.trailers)) is not None}
    if not got:
        return answers
    out = []
    for a in answers:
        b = by_line.get(a.line)
        t = got.get(b.sha) if b is not None and a.recorded is None else None
        out.append(a if t is None or b is None else a.replace(recorded=t.recorded(b.sha)))
    return out


def annotate_all(store: Any, top: str, history: FileHistory, bl: Blame, answers: list[LineAnswer],
                 unread: dict[str, int] | None = None) -> list[LineAnswer]:
    """``answers`` with every other tool's record, in the order the module docstring gives
    (each later one only where no earlier one describes the line): git-ai's notes, imported
    Agent Trace records, qwen-code's notes, agents' commit trailers. ``unread`` receives, per
    recorder, how many commits' notes were over the budget and left unread (none: no entry)."""
    from hansard.recorders.qwen_code import RECORDER as QWEN

    left = [0]
    answers = annotate(top, bl, answers, left)
    answers = annotate_agent_trace(store, bl, answers)
    qwen_left = [0]
    answers = annotate_attribution(top, bl, answers, qwen_left)
    if unread is not None:
        unread.update((k, n) for k, n in ((BY, left[0]), (QWEN.name, qwen_left[0])) if n)
    return annotate_trailers(history, bl, answers)
