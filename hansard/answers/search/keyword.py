"""Keyword search: FTS5 over messages and tool inputs, trigram for identifiers and paths.

Ranking, in order:

1. *coverage*: how many of the query's term groups a message matches. A message that covers
   every term always ranks above one that covers only some.
2. *relevance*: bm25 from the unicode61 index (tool inputs count for the message that made
   the call), relative to the best candidate, times a small weight for the kind of message
   (a person's request and the agent's answer say more than a tool's output).

Candidates come from three cheap queries, each with the filters applied in SQL and a LIMIT:
all terms (AND), any term (OR, only when there are several groups), and a trigram substring
look-up per identifier term. Coverage is then checked per group on that small candidate set.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from hansard.answers.search.filters import roles_sql
from hansard.answers.search.query import Query

# Weights on relevance by (role, kind): never enough to beat coverage.
KIND_WEIGHT = {
    ("user", "text"): 1.25, ("assistant", "text"): 1.15, ("system", "compaction_summary"): 1.0,
    ("assistant", "thinking"): 0.9, ("assistant", "tool_use"): 1.0, ("tool", "tool_result"): 0.8,
}
DEFAULT_WEIGHT = 0.7  # meta records: injected command output, caveats

SHELL_TOOLS = ("Bash", "exec_command", "shell", "local_shell", "shell_command", "run_shell_command", "BashOutput",
               "container.exec", "unified_exec")
TOOL_ALIASES = {
    "shell": SHELL_TOOLS, "bash": SHELL_TOOLS,
    "edit": ("Edit", "MultiEdit", "Write", "NotebookEdit", "apply_patch", "replace", "write_file", "edit_file"),
    "read": ("Read", "read_file", "read_many_files", "view", "NotebookRead"),
    "search": ("Grep", "Glob", "grep", "glob", "search_file_content", "find_files"),
    "web": ("WebFetch", "WebSearch", "web_fetch", "google_web_search", "web_search"),
    "task": ("Task", "Agent"),
}
WEB_PROVIDERS = ("claude_web", "chatgpt")


@dataclass
class Filters:
    repo_ids: list[int] | None = None
    provider: str | None = None
    since: str | None = None
    until: str | None = None
    roles: tuple[str, ...] | None = None
    tool: str | None = None
    command: str | None = None
    file_sessions: set[int] | None = None     # resolved `file` filter
    commit_sessions: set[int] | None = None   # resolved `commit` filter
    include_subagents: bool = False
    include_web_chats: bool = False
    include_team_sessions: bool = False
    team: str | None = None
    exclude_session_ids: list[str] = field(default_factory=list)

    @property
    def impossible(self) -> bool:
        return (self.repo_ids == [] or self.file_sessions == set() or self.commit_sessions == set())

    def sql(self) -> tuple[str, list]:
        """Conditions on ``m`` (messages) and ``s`` (sessions), joined with AND."""
        where: list[str] = []
        args: list = []
        if self.repo_ids is not None:
            where.append(f"s.repo_id IN ({','.join('?' * len(self.repo_ids))})")
            args += self.repo_ids
        if self.provider:
            where.append("s.provider=?")
            args.append(self.provider)
        if self.since:
            where.append("COALESCE(m.timestamp, s.started_at) >= ?")
            args.append(self.since)
        if self.until:
            where.append("COALESCE(m.timestamp, s.started_at) < ?")
            args.append(self.until)
        rs, ra = roles_sql(self.roles)
        if rs:
            where.append(rs)
            args += ra
        if self.tool:
            names = tool_names(self.tool)
            marks = ",".join("?" * len(names))
            where.append(
                f"(EXISTS (SELECT 1 FROM tool_calls t WHERE t.message_id=m.id AND t.name IN ({marks}) COLLATE NOCASE)"
                f" OR (m.kind='tool_result' AND EXISTS (SELECT 1 FROM tool_calls t WHERE t.session_id=m.session_id"
                f" AND t.name IN ({marks}) COLLATE NOCASE AND t.output=m.text)))"
            )
            args += names + names
        if self.command:
            marks = ",".join("?" * len(SHELL_TOOLS))
            cmd = ("instr(COALESCE(json_extract(t.input,'$.command'), json_extract(t.input,'$.cmd'), t.input), ?) > 0")
            where.append(
                f"EXISTS (SELECT 1 FROM tool_calls t WHERE t.session_id=m.session_id AND t.name IN ({marks})"
                f" AND {cmd} AND (t.message_id=m.id OR (m.kind='tool_result' AND t.output=m.text)))"
            )
            args += list(SHELL_TOOLS) + [self.command]
        for ids in (self.file_sessions, self.commit_sessions):
            if ids is not None:
                where.append(f"s.id IN ({','.join(str(int(i)) for i in sorted(ids))})")
        if not self.include_subagents:
            where.append("s.parent_session_id IS NULL")
        if not self.include_web_chats:
            where.append(f"s.provider NOT IN ({','.join('?' * len(WEB_PROVIDERS))})")
            args += list(WEB_PROVIDERS)
        if self.team:
            where.append("s.extra IS NOT NULL AND json_extract(s.extra, '$.team') = ?")
            args.append(self.team)
        elif not self.include_team_sessions:
            where.append("(s.extra IS NULL OR json_extract(s.extra, '$.team') IS NULL)")
        if self.exclude_session_ids:
            marks = ",".join("?" * len(self.exclude_session_ids))
            where.append(f"s.session_id NOT IN ({marks})"
                         f" AND (s.parent_session_id IS NULL OR s.parent_session_id NOT IN ({marks}))")
            args += self.exclude_session_ids * 2
        return (" AND ".join(where) or "1=1"), args


def tool_names(tool: str) -> list[str]:
    t = tool.strip()
    return list(TOOL_ALIASES.get(t.lower(), (t,)))


@dataclass
class Candidate:
    id: int                      # messages.id
    bm25: float = 0.0            # negative; lower is better; 0 = unknown
    coverage: int = 0
    via: set[str] = field(default_factory=set)  # text | tool_input | trigram
    score: float = 0.0


def _fetch(db: sqlite3.Connection, sql: str, args: Sequence) -> list[sqlite3.Row]:
    try:
        return db.execute(sql, args).fetchall()
    except sqlite3.OperationalError as exc:
        # The expression is built from quoted strings only; this is a safety net so that
        # user text can never surface as an FTS error.
        if "fts5" in str(exc).lower() or "syntax" in str(exc).lower():
            return []
        raise


def keyword_candidates(db: sqlite3.Connection, q: Query, f: Filters, k: int) -> tuple[list[Candidate], int, bool]:
    """The ranked candidates (best first), the total number of matching messages (capped),
    and whether that total is exact."""
    if q.empty or f.impossible:
        return [], 0, True
    where, wargs = f.sql()
    G = len(q.groups)
    cands: dict[int, Candidate] = {}

    def add(rows: Iterable[sqlite3.Row], via: str, full: bool) -> None:
        for r in rows:
            c = cands.get(r[0])
            if c is None:
                c = cands[r[0]] = Candidate(r[0])
            c.via.add(via)
            b = r[1] if len(r) > 1 and r[1] is not None else 0.0
            if b < c.bm25:
                c.bm25 = b
            if full:
                c.coverage = G

    msg_sql = (
        "SELECT f.rowid, bm25(messages_fts) AS b FROM messages_fts f JOIN messages m ON m.id=f.rowid"
        f" JOIN sessions s ON s.id=m.session_id WHERE messages_fts MATCH ? AND f.rowid >= ? AND {where} ORDER BY b LIMIT ?"
    )
    tool_sql = (
        "SELECT t.message_id, bm25(tool_calls_fts) AS b FROM tool_calls_fts tf JOIN tool_calls t ON t.id=tf.rowid"
        " JOIN messages m ON m.id=t.message_id JOIN sessions s ON s.id=m.session_id"
        f" WHERE tool_calls_fts MATCH ? AND tf.rowid >= ? AND {where} ORDER BY b LIMIT ?"
    )
    all_expr, any_expr = q.fts_all(), q.fts_any()
    max_msg = db.execute("SELECT MAX(id) FROM messages").fetchone()[0] or 0
    max_call = db.execute("SELECT MAX(id) FROM tool_calls").fetchone()[0] or 0
    estimate: int | None = None

    def ranked(sql: str, table: str, expr: str, top: int, max_id: int) -> list[sqlite3.Row]:
        nonlocal estimate
        lo, est = _window(db, table, expr, max_id)
        if est is not None and table == "messages_fts":
            estimate = max(estimate or 0, est)
        return _fetch(db, sql, (expr, lo, *wargs, top))

    if all_expr:
        add(ranked(msg_sql, "messages_fts", all_expr, k, max_msg), "text", True)
        add(ranked(tool_sql, "tool_calls_fts", all_expr, k, max_call), "tool_input", True)
    if G > 1 and any_expr and len(cands) < k:
        add(ranked(msg_sql, "messages_fts", any_expr, k, max_msg), "text", False)
        add(ranked(tool_sql, "tool_calls_fts", any_expr, k // 2, max_call), "tool_input", False)
    idents = q.identifiers()
    for _, term in idents:
        rows = _fetch(
            db,
            # The trigram look-up runs first, on its own (a join lets the planner scan
            # messages and LIKE every row); the filters then apply to its newest matches.
            "SELECT m.id FROM messages m JOIN sessions s ON s.id=m.session_id WHERE m.id IN"
            " (SELECT rowid FROM messages_tri WHERE text LIKE ? AND instr(lower(text), ?) > 0"
            " ORDER BY rowid DESC LIMIT ?)"
            f" AND {where} ORDER BY m.id DESC LIMIT ?",
            (term.like(), term.text.lower(), k * 10, *wargs, k),
        )
        add(rows, "trigram", False)
    if not cands:
        return [], 0, True
    _check_coverage(db, q, cands, [c.id for c in cands.values() if c.coverage < G])
    _apply_exclusions(db, q, cands)
    if estimate is not None:
        total, exact = estimate, False
    else:
        total, exact = _count(db, q, where, wargs, len(cands))
    return rank(db, list(cands.values()), G) if cands else [], max(total, len(cands)), exact


def _in(ids: Sequence[int]) -> str:
    return ",".join(str(int(i)) for i in ids)


def _check_coverage(db: sqlite3.Connection, q: Query, cands: dict[int, Candidate], ids: list[int]) -> None:
    if not ids:
        return
    covered: dict[int, set[int]] = {i: set() for i in ids}
    for gi in range(len(q.groups)):
        expr = q.group_expr(gi)
        hit: set[int] = set()
        if expr:
            hit |= {r[0] for r in _fetch(db, f"SELECT rowid FROM messages_fts WHERE messages_fts MATCH ? AND rowid IN ({_in(ids)})",
                                         (expr,))}
            hit |= {r[0] for r in _fetch(
                db,
                "SELECT t.message_id FROM tool_calls t WHERE t.message_id IN (" + _in(ids) + ")"
                " AND t.id IN (SELECT rowid FROM tool_calls_fts WHERE tool_calls_fts MATCH ?"
                " AND rowid IN (SELECT id FROM tool_calls WHERE message_id IN (" + _in(ids) + ")))",
                (expr,),
            )}
        for term in q.groups[gi]:
            if term.identifier:
                needle = term.text.lower()
                rest = [i for i in ids if i not in hit]
                if rest:
                    hit |= {r[0] for r in db.execute(
                        f"SELECT id FROM messages WHERE id IN ({_in(rest)}) AND instr(lower(text), ?) > 0", (needle,))}
        for i in hit:
            if i in covered:
                covered[i].add(gi)
    for i, gs in covered.items():
        cands[i].coverage = len(gs)


def _apply_exclusions(db: sqlite3.Connection, q: Query, cands: dict[int, Candidate]) -> None:
    neg = q.fts_exclude()
    drop: set[int] = set()
    if neg:
        drop |= {r[0] for r in _fetch(
            db, f"SELECT rowid FROM messages_fts WHERE messages_fts MATCH ? AND rowid IN ({_in(list(cands))})", (neg,))}
    for t in q.exclude:
        if t.identifier:
            drop |= {r[0] for r in db.execute(
                f"SELECT id FROM messages WHERE id IN ({_in(list(cands))}) AND instr(lower(text), ?) > 0", (t.text.lower(),))}
    for i in drop:
        cands.pop(i, None)
    for i in [i for i, c in cands.items() if c.coverage == 0]:
        cands.pop(i)  # a trigram look-alike (`_` is a LIKE wildcard) that matched nothing


COUNT_CAP = 1000
# bm25 costs per matching row. A query of common words can match most of a million
# messages; then only the newest stretch of rows expected to hold about RANK_CAP matches is
# ranked (recency is the natural tie-break when the words say little), and ``total`` is an
# estimate. The density comes from counting matches among the newest PROBE_ROWS rows.
RANK_CAP = 1500
PROBE_ROWS = 10000


def _window(db: sqlite3.Connection, table: str, expr: str, max_id: int) -> tuple[int, int | None]:
    """(lowest rowid to rank, estimated total matches or None when everything is ranked)."""
    if max_id <= PROBE_ROWS:
        return 0, None
    lo = max_id - PROBE_ROWS
    rows = _fetch(db, f"SELECT COUNT(*) FROM (SELECT 1 FROM {table} WHERE {table} MATCH ? AND rowid > ? LIMIT ?)",
                  (expr, lo, RANK_CAP + 1))
    n = rows[0][0] if rows else 0
    density = n / PROBE_ROWS
    est = int(density * max_id)
    if est <= 2 * RANK_CAP:
        return 0, None
    span = int(RANK_CAP / max(density, 1e-9))
    return max(0, max_id - span), est


def _count(db: sqlite3.Connection, q: Query, where: str, wargs: list, seen: int) -> tuple[int, bool]:
    """Matching messages, counted up to COUNT_CAP so a common word costs little."""
    expr = q.fts_any()
    if not expr:
        return seen, True
    rows = _fetch(
        db,
        "SELECT COUNT(*) FROM (SELECT 1 FROM messages_fts f JOIN messages m ON m.id=f.rowid"
        f" JOIN sessions s ON s.id=m.session_id WHERE messages_fts MATCH ? AND {where} LIMIT ?)",
        (expr, *wargs, COUNT_CAP + 1),
    )
    n = rows[0][0] if rows else 0
    return min(n, COUNT_CAP), n <= COUNT_CAP


def rank(db: sqlite3.Connection, cands: list[Candidate], groups: int) -> list[Candidate]:
    if not cands:
        return []
    kinds = {r[0]: (r[1], r[2]) for r in db.execute(
        f"SELECT id, role, kind FROM messages WHERE id IN ({_in([c.id for c in cands])})")}
    best = min((c.bm25 for c in cands if c.bm25 < 0), default=-1.0)
    for c in cands:
        rel = (c.bm25 / best) if c.bm25 < 0 else 0.3  # trigram-only hits: modest relevance
        rel *= KIND_WEIGHT.get(kinds.get(c.id, ("", "")), DEFAULT_WEIGHT)
        c.score = c.coverage / max(groups, 1) + min(rel, 1.0) / (groups + 1) / 1.0001
    # coverage first (integer), then relevance, then newest
    cands.sort(key=lambda c: (-c.coverage, -c.score, -c.id))
    return cands
