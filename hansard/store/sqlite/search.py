"""The search index over SQLite: FTS5 over messages and tool inputs, trigram for identifiers
and paths, and the vectors of meaning search.

Ranking, in order:

1. *coverage*: how many of the query's term groups a message matches. A message that covers
   every term always ranks above one that covers only some.
2. *relevance*: bm25 from the unicode61 index (tool inputs count for the message that made
   the call), relative to the best candidate, times a small weight for the kind of message
   (a person's request and the agent's answer say more than a tool's output).

Candidates come from three cheap queries, each with the filters applied in SQL and a LIMIT:
all terms (AND), any term (OR, only when there are several groups), and a trigram substring
look-up per identifier term. Coverage is then checked per group on that small candidate set.

Teammates' sessions (rows of id below zero, hansard.store.sqlite.team) are searched only when
the filters ask for them (``include_team``); their messages are then looked up in their own
range of ids, so that a window over this machine's newest rows never leaves them out.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from hansard.store.sqlite.db import like_escape, marks
from hansard.store.sqlite.sessions import roles_sql
from hansard.store.types import INTENT_CHARS, Candidate, SearchFilters, intent_key

if TYPE_CHECKING:
    from hansard.store.types import Query, Term

_WORDS = re.compile(r"[^\W_]+", re.UNICODE)

# Weights on relevance by (role, kind): never enough to beat coverage.
KIND_WEIGHT = {
    ("user", "text"): 1.25, ("assistant", "text"): 1.15, ("system", "compaction_summary"): 1.0,
    ("assistant", "thinking"): 0.9, ("assistant", "tool_use"): 1.0, ("tool", "tool_result"): 0.8,
}
DEFAULT_WEIGHT = 0.7  # meta records: injected command output, caveats


# -- the user's query as FTS5 and trigram expressions --------------------------------------
# Every term reaches FTS5 as a quoted string, so no user text is ever FTS5 syntax.


def term_fts(t: Term) -> str | None:
    """The FTS5 string for one term, or None when unicode61 would see no token."""
    if not t.words:
        return None
    q = '"' + t.text.replace('"', '""') + '"'
    return q + "*" if t.prefix else q


def term_like(t: Term) -> str | None:
    """A LIKE pattern for the trigram index (substring, case-insensitive), or None when the
    term has no stretch long enough for trigrams. The pattern is the term's longest stretch
    without ``%`` or ``_`` (:meth:`Term.substring`): SQLite 3.40's trigram index crashes on a
    LIKE wildcard inside non-ASCII text, and an ESCAPE clause would bypass the index. Callers
    keep only rows that contain the whole term (``instr``)."""
    piece = t.substring()
    return f"%{piece}%" if piece else None


def group_expr(q: Query, i: int) -> str | None:
    parts = [f for f in (term_fts(t) for t in q.groups[i]) if f]
    if not parts:
        return None
    return parts[0] if len(parts) == 1 else "(" + " OR ".join(parts) + ")"


def _not(q: Query) -> str:
    return "".join(f" NOT {n}" for n in (term_fts(t) for t in q.exclude) if n)


def fts_all(q: Query) -> str | None:
    """Every group must match (the 'covers all terms' tier)."""
    exprs = [e for e in (group_expr(q, i) for i in range(len(q.groups))) if e]
    if not exprs:
        return None
    core = exprs[0] if len(exprs) == 1 else "(" + " AND ".join(exprs) + ")"
    return core + _not(q)


def fts_any(q: Query) -> str | None:
    """Any group may match (partial coverage)."""
    exprs = [e for e in (group_expr(q, i) for i in range(len(q.groups))) if e]
    if not exprs:
        return None
    core = exprs[0] if len(exprs) == 1 else "(" + " OR ".join(exprs) + ")"
    return core + _not(q)


def fts_exclude(q: Query) -> str | None:
    neg = [f for f in (term_fts(t) for t in q.exclude) if f]
    return " OR ".join(neg) if neg else None


def _session_sql(f: SearchFilters) -> tuple[list[str], list[Any]]:
    """The conditions on ``s`` (sessions) alone: whose, repository and provider."""
    where: list[str] = [] if f.include_team else ["s.id > 0"]
    args: list[Any] = []
    if f.repo_ids is not None:
        where.append(f"s.repo_id IN ({marks(len(f.repo_ids))})")
        args += f.repo_ids
    if f.provider:
        where.append("s.provider=?")
        args.append(f.provider)
    return where, args


def filters_sql(f: SearchFilters) -> tuple[str, list[Any]]:
    """Conditions on ``m`` (messages) and ``s`` (sessions), joined with AND."""
    where, args = _session_sql(f)
    if f.since:
        where.append("COALESCE(m.timestamp, s.started_at) >= ?")
        args.append(f.since)
    if f.until:
        where.append("COALESCE(m.timestamp, s.started_at) < ?")
        args.append(f.until)
    rs, ra = roles_sql(f.roles)
    if rs:
        where.append(rs)
        args += ra
    if f.tool_names:
        names = list(f.tool_names)
        qs = marks(len(names))
        where.append(
            f"(EXISTS (SELECT 1 FROM tool_calls t WHERE t.message_id=m.id AND t.name IN ({qs}) COLLATE NOCASE)"
            f" OR (m.kind='tool_result' AND EXISTS (SELECT 1 FROM tool_calls t WHERE t.session_id=m.session_id"
            f" AND t.name IN ({qs}) COLLATE NOCASE AND (t.output_message_id=m.id OR t.output=m.text))))"
        )
        args += names + names
    if f.command:
        qs = marks(len(f.shell_tools))
        cmd = ("instr(COALESCE(json_extract(t.input,'$.command'), json_extract(t.input,'$.cmd'), t.input), ?) > 0")
        where.append(
            f"EXISTS (SELECT 1 FROM tool_calls t WHERE t.session_id=m.session_id AND t.name IN ({qs})"
            f" AND {cmd} AND (t.message_id=m.id OR t.output_message_id=m.id OR (m.kind='tool_result' AND t.output=m.text)))"
        )
        args += list(f.shell_tools) + [f.command]
    for ids in (f.file_sessions, f.commit_sessions):
        if ids is not None:
            where.append(f"s.id IN ({_in(sorted(ids))})")
    if not f.include_subagents:
        where.append("s.parent_session_id IS NULL")
    if not f.include_web_chats and f.web_providers:
        where.append(f"s.provider NOT IN ({marks(len(f.web_providers))})")
        args += list(f.web_providers)
    if f.exclude_session_ids:
        qs = marks(len(f.exclude_session_ids))
        where.append(f"s.session_id NOT IN ({qs})"
                     f" AND (s.parent_session_id IS NULL OR s.parent_session_id NOT IN ({qs}))")
        args += f.exclude_session_ids * 2
    return (" AND ".join(where) or "1=1"), args


def _fetch(db: sqlite3.Connection, sql: str, args: Sequence[Any]) -> list[sqlite3.Row]:
    try:
        return db.execute(sql, args).fetchall()
    except sqlite3.OperationalError as exc:
        # The expression is built from quoted strings only; this is a safety net so that
        # user text can never surface as an FTS error.
        if "fts5" in str(exc).lower() or "syntax" in str(exc).lower():
            return []
        raise


def keyword_candidates(db: sqlite3.Connection, q: Query, f: SearchFilters, k: int) -> tuple[list[Candidate], int, bool]:
    """The ranked candidates (best first), the number of sessions with a matching message
    (capped or estimated), and whether that number is exact."""
    if q.empty or f.impossible:
        return [], 0, True
    where, wargs = filters_sql(f)
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
        f" JOIN sessions s ON s.id=m.session_id WHERE messages_fts MATCH ? AND f.rowid BETWEEN ? AND ? AND {where}"
        " ORDER BY b LIMIT ?"
    )
    tool_sql = (
        "SELECT t.message_id, bm25(tool_calls_fts) AS b FROM tool_calls_fts tf JOIN tool_calls t ON t.id=tf.rowid"
        " JOIN messages m ON m.id=t.message_id JOIN sessions s ON s.id=m.session_id"
        f" WHERE tool_calls_fts MATCH ? AND tf.rowid BETWEEN ? AND ? AND {where} ORDER BY b LIMIT ?"
    )
    all_expr, any_expr = fts_all(q), fts_any(q)
    max_msg = db.execute("SELECT MAX(id) FROM messages").fetchone()[0] or 0
    max_call = db.execute("SELECT MAX(id) FROM tool_calls").fetchone()[0] or 0
    estimate: int | None = None

    def ranked(sql: str, table: str, expr: str, top: int, max_id: int) -> list[sqlite3.Row]:
        nonlocal estimate
        lo, est = _window(db, table, expr, max_id)
        rows = _fetch(db, sql, (expr, max(lo, 1), max(max_id, 1), *wargs, top))
        team_est = None
        if f.include_team:
            hi, team_est = _team_window(db, table, expr)
            if hi is not None:
                rows += _fetch(db, sql, (expr, TEAM_LOW, hi, *wargs, top))
        if (est is not None or team_est is not None) and table == "messages_fts":
            estimate = max(estimate or 0, (est or 0) + (team_est or 0))
        return rows

    if all_expr:
        add(ranked(msg_sql, "messages_fts", all_expr, k, max_msg), "text", True)
        add(ranked(tool_sql, "tool_calls_fts", all_expr, k, max_call), "tool_input", True)
    if G > 1 and any_expr and len(cands) < k:
        add(ranked(msg_sql, "messages_fts", any_expr, k, max_msg), "text", False)
        add(ranked(tool_sql, "tool_calls_fts", any_expr, k // 2, max_call), "tool_input", False)
    for _, term in q.identifiers():
        like = term_like(term)
        if like is None:
            continue
        for below_zero in (False, True) if f.include_team else (False,):
            rows = _fetch(
                db,
                # The trigram look-up runs first, on its own (a join lets the planner scan
                # messages and LIKE every row); the filters then apply to its newest matches.
                "SELECT m.id FROM messages m JOIN sessions s ON s.id=m.session_id WHERE m.id IN"
                " (SELECT rowid FROM messages_tri WHERE text LIKE ? AND instr(lower(text), ?) > 0"
                f" AND rowid {'<' if below_zero else '>'} 0 ORDER BY rowid DESC LIMIT ?)"
                f" AND {where} ORDER BY m.id DESC LIMIT ?",
                (like, term.text.lower(), k * 10, *wargs, k),
            )
            add(rows, "trigram", False)
    if not cands:
        return [], 0, True
    partial = [c.id for c in cands.values() if c.coverage < G]
    texts = _texts(db, sorted(set(partial) | (set(cands) if q.exclude else set())))
    _check_coverage(db, q, cands, partial, texts)
    _apply_exclusions(q, cands, texts)
    seen = _sessions_of(db, list(cands))
    if estimate is not None:
        total, exact = _estimate_sessions(db, estimate, len(cands), seen), False
    else:
        total, exact = _count(db, q, where, wargs, seen)
    return rank(db, list(cands.values()), G) if cands else [], max(total, seen), exact


def _sessions_of(db: sqlite3.Connection, ids: Sequence[int]) -> int:
    """How many sessions the messages ``ids`` belong to."""
    n: set[int] = set()
    for i in range(0, len(ids), 500):
        n |= {r[0] for r in db.execute(f"SELECT DISTINCT session_id FROM messages WHERE id IN ({_in(ids[i:i + 500])})")}
    return len(n)


def _estimate_sessions(db: sqlite3.Connection, messages: int, ranked: int, sessions: int) -> int:
    """Matching sessions, estimated from the estimated matching messages and how many
    sessions the ranked ones fell into; never more sessions than the store holds."""
    most = db.execute("SELECT MAX(id) FROM sessions").fetchone()[0] or 0
    return min(most, max(sessions, int(messages * sessions / max(ranked, 1))))


def _in(ids: Sequence[int]) -> str:
    return ",".join(str(int(i)) for i in ids)


def _tokens(text: str) -> list[str]:
    """Roughly what ``unicode61 remove_diacritics 2`` makes of ``text``: case-folded words
    without their accents."""
    import unicodedata

    folded = unicodedata.normalize("NFKD", text.casefold())
    return _WORDS.findall("".join(ch for ch in folded if not unicodedata.combining(ch)))


def _matches(tokens: list[str], vocab: set[str], t: Term) -> bool:
    """Whether ``t`` (as FTS5 reads it: the phrase of its words, the last a prefix when ``t``
    is one) occurs in ``tokens`` (``vocab``: the same as a set)."""
    words = _tokens(t.text)
    if not words:
        return False
    n = len(words)
    if not t.prefix and any(w not in vocab for w in words):
        return False
    if n == 1:
        return words[0] in vocab if not t.prefix else any(v.startswith(words[0]) for v in vocab)
    last = len(tokens) - n
    start = 0
    while True:
        try:
            i = tokens.index(words[0], start)
        except ValueError:
            return False
        if i > last:
            return False
        if tokens[i + 1:i + n - 1] == words[1:-1] and (
                tokens[i + n - 1].startswith(words[-1]) if t.prefix else tokens[i + n - 1] == words[-1]):
            return True
        start = i + 1


def _texts(db: sqlite3.Connection, ids: Sequence[int]) -> dict[int, tuple[str, list[str], set[str]]]:
    """Each message's text (lower-cased, for identifier substrings) and the tokens of its text
    and of its tool calls' names and inputs (what the two FTS tables index for it)."""
    out: dict[int, tuple[str, list[str], set[str]]] = {}
    for i in range(0, len(ids), 500):
        chunk = _in(ids[i:i + 500])
        calls: dict[int, list[str]] = {}
        for mid, name, inp in db.execute(f"SELECT message_id, name, input FROM tool_calls WHERE message_id IN ({chunk})"):
            calls.setdefault(mid, []).append(f"{name or ''} {inp or ''}")
        for mid, text in db.execute(f"SELECT id, text FROM messages WHERE id IN ({chunk})"):
            text = text or ""
            toks = _tokens(text + " \n " + " \n ".join(calls.get(mid, [])))
            out[mid] = (text.lower(), toks, set(toks))
    return out


def _check_coverage(db: sqlite3.Connection, q: Query, cands: dict[int, Candidate], ids: list[int],
                    texts: dict[int, tuple[str, list[str], set[str]]]) -> None:
    """How many term groups each of ``ids`` matches, read from the candidates' own text and tool
    calls: asking the full-text index per row costs a whole posting list per common word."""
    for i in ids:
        low, toks, vocab = texts.get(i, ("", [], set()))
        cands[i].coverage = sum(
            1 for g in q.groups
            if any(_matches(toks, vocab, t) or (t.identifier and t.text.lower() in low) for t in g))


def _apply_exclusions(q: Query, cands: dict[int, Candidate],
                      texts: dict[int, tuple[str, list[str], set[str]]]) -> None:
    for i in list(cands):
        low, toks, vocab = texts.get(i, ("", [], set()))
        if any(_matches(toks, vocab, t) or (t.identifier and t.text.lower() in low) for t in q.exclude):
            cands.pop(i)
    for i in [i for i, c in cands.items() if c.coverage == 0]:
        cands.pop(i)  # a trigram look-alike (`_` is a LIKE wildcard) that matched nothing


COUNT_CAP = 1000
# bm25 costs per matching row. A query of common words can match most of a million
# messages; then only the newest stretch of rows expected to hold about RANK_CAP matches is
# ranked (recency is the natural tie-break when the words say little), and ``total`` is an
# estimate. The density comes from counting matches among the newest PROBE_ROWS rows.
RANK_CAP = 1500
PROBE_ROWS = 10000
TEAM_LOW = -(2 ** 63)  # the lowest row id: a teammate's rows are those below zero


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


def _team_window(db: sqlite3.Connection, table: str, expr: str) -> tuple[int | None, int | None]:
    """The team's rows as ``_window`` ranks this machine's: (the highest row id to rank, from the
    lowest, or None when the team has none; estimated total matches or None when every one is
    ranked). A team row's id is its id in the team store negated, so the newest are the lowest."""
    base = table.removesuffix("_fts")
    (n_team,) = db.execute(f"SELECT COUNT(*) FROM {base} WHERE id < 0").fetchone()
    if not n_team:
        return None, None
    if n_team <= PROBE_ROWS:
        return -1, None
    edge = db.execute(f"SELECT id FROM {base} WHERE id < 0 ORDER BY id LIMIT 1 OFFSET ?", (PROBE_ROWS,)).fetchone()[0]
    rows = _fetch(db, f"SELECT COUNT(*) FROM (SELECT 1 FROM {table} WHERE {table} MATCH ? AND rowid < ? LIMIT ?)",
                  (expr, edge, RANK_CAP + 1))
    density = (rows[0][0] if rows else 0) / PROBE_ROWS
    est = int(density * n_team)
    if est <= 2 * RANK_CAP:
        return -1, None
    span = min(n_team - 1, int(RANK_CAP / max(density, 1e-9)))
    hi = db.execute(f"SELECT id FROM {base} WHERE id < 0 ORDER BY id LIMIT 1 OFFSET ?", (span,)).fetchone()[0]
    return int(hi), est


def _count(db: sqlite3.Connection, q: Query, where: str, wargs: list[Any], seen: int) -> tuple[int, bool]:
    """Sessions with a matching message, among the first COUNT_CAP + 1 matching messages so a
    common word costs little: exact when no more messages match, else a lower bound."""
    expr = fts_any(q)
    if not expr:
        return seen, True
    rows = _fetch(
        db,
        "SELECT COUNT(*), COUNT(DISTINCT sid) FROM (SELECT m.session_id AS sid FROM messages_fts f"
        f" JOIN messages m ON m.id=f.rowid JOIN sessions s ON s.id=m.session_id WHERE messages_fts MATCH ? AND {where}"
        " LIMIT ?)",
        (expr, *wargs, COUNT_CAP + 1),
    )
    n, sessions = (rows[0][0], rows[0][1]) if rows else (0, 0)
    return sessions, n <= COUNT_CAP


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


# Messages meaning search embeds: conversation only; tool output is left to keyword search.
ELIGIBLE = ("m.kind IN ('text','compaction_summary','thinking') AND m.role IN ('user','assistant','system')"
            " AND length(m.text) >= 8")

# What a session was for: the person's requests, compaction summaries, the session's last
# answer (its summary of what was done) and its `git commit` calls (the intent tier embeds
# their messages, hansard/answers/search/intent.py intent_text). A handful of texts per session.
INTENT = ("length(m.text) >= 8 AND ((m.role='user' AND m.kind='text') OR m.kind='compaction_summary'"
          " OR (m.role='assistant' AND m.kind='text' AND m.id = (SELECT MAX(x.id) FROM messages x"
          " WHERE x.session_id=m.session_id AND x.role='assistant' AND x.kind='text'))"
          " OR (m.kind='tool_use' AND m.text LIKE '%git commit%'))")

class SqliteSearchIndex:
    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    # -- keyword -----------------------------------------------------------------------

    def keyword_candidates(self, q: Query, f: SearchFilters, k: int) -> tuple[list[Candidate], int, bool]:
        """The ranked candidates (best first), the number of sessions with a matching message
        (counted up to a cap, or estimated on a very common word), and whether it is exact. ``q`` is a parsed query
        (:class:`hansard.store.types.Query`)."""
        return keyword_candidates(self.db, q, f, k)

    def recent_candidates(self, f: SearchFilters, k: int, per_session: int) -> list[Candidate]:
        """No query words: the newest messages that pass the filters, newest sessions first.
        Walks sessions by ``last_at`` (indexed), so "recent sessions in repo X" stays cheap."""
        db = self.db
        where, args = filters_sql(f)
        if f.impossible:
            return []
        swhere, sargs = _session_sql(f)
        if f.since:
            swhere.append("s.last_at >= ?")
            sargs.append(f.since)
        out: list[Candidate] = []
        found = 0
        cur = db.execute(f"SELECT s.id FROM sessions s WHERE {' AND '.join(swhere) or '1=1'} ORDER BY s.last_at DESC LIMIT 5000",
                         sargs)
        for (sid,) in cur.fetchall():
            rows = db.execute(
                f"SELECT m.id FROM messages m JOIN sessions s ON s.id=m.session_id WHERE m.session_id=? AND {where}"
                " ORDER BY m.message_index DESC LIMIT ?",
                (sid, *args, per_session),
            ).fetchall()
            if rows:
                found += 1
                out += [Candidate(r[0]) for r in rows]
            if found >= 20 or len(out) >= k:
                break
        return out

    def hit_rows(self, ids: Sequence[int]) -> dict[int, sqlite3.Row]:
        """Messages by id with their session and repository: the fields a hit shows."""
        rows = {}
        for i in range(0, len(ids), 500):
            chunk = ids[i:i + 500]
            for r in self.db.execute(
                "SELECT m.id, m.message_index, m.role, m.kind, m.timestamp, substr(m.text, 1, 20000) AS text,"
                " length(m.text) AS n, s.id AS sid, s.session_id, s.title, s.first_prompt, s.provider, s.started_at,"
                " s.cwd, r.path AS repo, s.origin, s.origin_repo, s.origin_ref, s.claimed_id, s.member, s.member_name"
                " FROM messages m JOIN sessions s ON s.id=m.session_id"
                f" LEFT JOIN repos r ON r.id=s.repo_id WHERE m.id IN ({_in(chunk)})"
            ):
                rows[r["id"]] = r
        return rows

    def file_sessions(self, forms: Iterable[str]) -> set[int]:
        """Session rows that edited a file named by any of ``forms`` (repo-relative or recorded
        path), or made a tool call whose input names it."""
        db = self.db
        ids: set[int] = set()
        for form in forms:
            ids |= {r[0] for r in db.execute(
                "SELECT session_id FROM edits WHERE rel_path=? OR path=? OR path LIKE ? ESCAPE '\\'",
                (form, form, "%/" + like_escape(form)),
            )}
            expr = '"' + form.replace('"', '""') + '"'
            try:
                rows = db.execute(
                    "SELECT t.session_id, t.input FROM tool_calls_fts tf JOIN tool_calls t ON t.id=tf.rowid"
                    " WHERE tool_calls_fts MATCH ? LIMIT 20000", (expr,)
                ).fetchall()
            except sqlite3.OperationalError:
                rows = []
            ids |= {r[0] for r in rows if r[1] and form in r[1].replace("\\/", "/")}
        return ids

    def commit_sessions(self, sha: str) -> set[int]:
        """Session rows tied to a commit (a lower-case hex prefix): started on it, or whose
        messages name it."""
        db = self.db
        ids = {r[0] for r in db.execute("SELECT id FROM sessions WHERE git_commit LIKE ? ESCAPE '\\'",
                                        (like_escape(sha) + "%",))}
        if len(sha) >= 7:
            ids |= {r[0] for r in db.execute(
                "SELECT DISTINCT m.session_id FROM messages m WHERE m.id IN"
                " (SELECT rowid FROM messages_tri WHERE text LIKE ? LIMIT 20000)", ("%" + sha[:12] + "%",))}
        return ids

    def passing(self, ids: Sequence[int], f: SearchFilters) -> set[int]:
        """The message ids among ``ids`` that pass the filters."""
        where, args = filters_sql(f)
        keep: set[int] = set()
        for i in range(0, len(ids), 500):
            # CROSS JOIN keeps messages the outer loop: by session first, the planner would walk
            # every message of every session that passes the filters to find these few.
            keep |= {r[0] for r in self.db.execute(
                f"SELECT m.id FROM messages m CROSS JOIN sessions s ON s.id=m.session_id"
                f" WHERE m.id IN ({_in(ids[i:i + 500])}) AND {where}", args)}
        return keep

    # -- vectors (meaning search) --------------------------------------------------------

    def vector_mark(self, model: str) -> tuple[int | None, int]:
        """(the highest message id the model's builder has passed, or None before it started;
        the highest message id)."""
        row = self.db.execute("SELECT through_id FROM vector_progress WHERE model=?", (model,)).fetchone()
        last = self.db.execute("SELECT MAX(id) FROM messages").fetchone()[0] or 0
        return (row[0] if row else None), last

    def vector_pending(self, model: str) -> tuple[int, int]:
        """(messages embedded, messages eligible): a cheap upper-bound estimate by id."""
        through = self.vector_mark(model)[0] or 0
        done = self.db.execute("SELECT COUNT(DISTINCT message_id) FROM passage_vectors").fetchone()[0]
        left = self.db.execute(f"SELECT COUNT(*) FROM messages m WHERE m.id > ? AND {ELIGIBLE}", (through,)).fetchone()[0]
        return done, done + left

    def vector_stamp(self, model: str) -> tuple[str, str | None, int, int]:
        """(the store file, when the model's builder last wrote vectors, the highest embedded
        message id, the builder's mark if below that): changes whenever a batch of vectors is
        written or a message's text changes under its vectors (the update trigger steps the mark
        back). A mark moved past messages with nothing to embed leaves it alone. Index look-ups
        only: counting the passages would read the whole table on every search. A deleted
        message's passages need no reload: they no longer pass ``passing``."""
        row = self.db.execute("SELECT updated_at, through_id FROM vector_progress WHERE model=?", (model,)).fetchone()
        top = self.db.execute("SELECT MAX(message_id) FROM passage_vectors").fetchone()[0] or 0
        path = self.db.execute("PRAGMA database_list").fetchone()[2]
        return path, (row[0] if row else None), top, min(row[1], top) if row else 0

    def vectors(self, model: str) -> tuple[list[tuple[int, int, int]], list[bytes]]:
        """Every embedded passage as (message id, start, end) and its float16 vector, by
        message id and start."""
        spans, blobs = [], []
        for mid, start, end, blob in self.db.execute(
            "SELECT p.message_id, p.start, p.\"end\", v.vector FROM passage_vectors p"
            " JOIN vectors v ON v.model=? AND v.text_hash=p.text_hash ORDER BY p.message_id, p.start", (model,)
        ):
            spans.append((mid, start, end))
            blobs.append(blob)
        return spans, blobs

    @contextmanager
    def snapshot(self) -> Iterator[None]:
        """The reads inside see one state of the store (a read transaction; WAL writers go on),
        unless the caller is already inside a transaction."""
        if self.db.in_transaction:
            yield
            return
        self.db.execute("BEGIN")
        try:
            yield
        finally:
            self.db.execute("COMMIT")

    def passage_count(self) -> int:
        return int(self.db.execute("SELECT COUNT(*) FROM passage_vectors").fetchone()[0])

    def vector_dim(self, model: str) -> int | None:
        """How many float16 values a vector of ``model`` holds (None before the first)."""
        row = self.db.execute("SELECT length(vector) / 2 FROM vectors WHERE model=? LIMIT 1", (model,)).fetchone()
        return row[0] if row else None

    def passage_keys(self) -> list[tuple[int, int, int, bytes]]:
        """Every embedded passage as (message id, start, end, text hash), by message id and
        start: the primary key's order, no vector read (a fraction of :meth:`vectors`'s time)."""
        cur = self.db.cursor()
        cur.row_factory = None  # plain tuples: a sqlite3.Row per passage costs more than the read
        return cur.execute(
            "SELECT message_id, start, \"end\", text_hash FROM passage_vectors ORDER BY message_id, start").fetchall()

    def passages_with_vectors(self, model: str) -> Iterator[tuple[int, int, int, bytes, bytes | None]]:
        """Every embedded passage as :meth:`passage_keys` orders them, with its float16 vector
        of ``model`` (None when the text has none under this model), one row at a time."""
        cur = self.db.cursor()
        cur.row_factory = None
        yield from cur.execute(
            "SELECT p.message_id, p.start, p.\"end\", p.text_hash, v.vector FROM passage_vectors p"
            " LEFT JOIN vectors v ON v.model=? AND v.text_hash=p.text_hash ORDER BY p.message_id, p.start", (model,))

    def vectors_by_hash(self, model: str, hashes: Sequence[bytes]) -> dict[bytes, bytes]:
        """text hash -> float16 vector of ``model``, for those of ``hashes`` the store has."""
        out: dict[bytes, bytes] = {}
        cur = self.db.cursor()
        cur.row_factory = None
        for i in range(0, len(hashes), 500):
            chunk = hashes[i:i + 500]
            out.update(cur.execute(
                f"SELECT text_hash, vector FROM vectors WHERE model=? AND text_hash IN ({marks(len(chunk))})",
                (model, *chunk)).fetchall())
        return out

    def to_embed(self, model: str, max_chars: int, batch: int) -> list[tuple[int, str]]:
        """The next eligible messages above the model's mark: (id, first ``max_chars`` characters)."""
        self.db.execute("INSERT OR IGNORE INTO vector_progress (model, through_id) VALUES (?, 0)", (model,))
        through = self.vector_mark(model)[0] or 0
        return [tuple(r) for r in self.db.execute(
            f"SELECT m.id, substr(m.text, 1, ?) FROM messages m WHERE m.id > ? AND {ELIGIBLE} ORDER BY m.id LIMIT ?",
            (max_chars, through, batch),
        )]

    def known_texts(self, model: str, hashes: Sequence[bytes]) -> set[bytes]:
        have: set[bytes] = set()
        for i in range(0, len(hashes), 500):
            chunk = hashes[i:i + 500]
            have |= {r[0] for r in self.db.execute(
                f"SELECT text_hash FROM vectors WHERE model=? AND text_hash IN ({marks(len(chunk))})",
                (model, *chunk))}
        return have

    def add_vectors(self, model: str, vectors: Sequence[tuple[bytes, bytes]],
                    passages: Sequence[tuple[int, int, int, bytes]], through: int, at: str) -> None:
        """One batch in one short transaction: new (text hash, vector) pairs, the passages
        (message id, start, end, text hash) of the batch's messages, and the model's mark moved
        to ``through`` (the batch's last message)."""
        from hansard.store.sqlite.db import transaction

        with transaction(self.db):
            self.db.executemany("INSERT OR IGNORE INTO vectors (model, text_hash, vector) VALUES (?,?,?)",
                                [(model, h, v) for h, v in vectors])
            self.db.executemany("DELETE FROM passage_vectors WHERE message_id=?", sorted({(p[0],) for p in passages}))
            self.db.executemany("INSERT INTO passage_vectors (message_id, start, \"end\", text_hash) VALUES (?,?,?,?)",
                                passages)
            self.db.execute("UPDATE vector_progress SET through_id=?, updated_at=? WHERE model=?", (through, at, model))

    # -- session intent vectors (the strong encoder, a handful of texts per session) ----------

    def intent_to_embed(self, model: str, max_chars: int, batch: int) -> list[tuple[int, int, str]]:
        """The next intent texts above the intent mark of ``model``: (message id, session, first
        ``max_chars`` characters). Intent texts say what a session was for: the person's
        requests, compaction summaries, and the session's last answer."""
        key = intent_key(model)
        self.db.execute("INSERT OR IGNORE INTO vector_progress (model, through_id) VALUES (?, 0)", (key,))
        through = self.vector_mark(key)[0] or 0
        return [tuple(r) for r in self.db.execute(
            f"SELECT m.id, m.session_id, substr(m.text, 1, ?) FROM messages m WHERE m.id > ? AND {INTENT}"
            " ORDER BY m.id LIMIT ?", (max_chars, through, batch),
        )]

    def add_intent_vectors(self, model: str, vectors: Sequence[tuple[bytes, bytes]],
                           texts: Sequence[tuple[int, int, bytes]], through: int, at: str) -> None:
        """One batch in one short transaction: new (text hash, vector) pairs under ``model``,
        the batch's intent texts (message id, session, text hash), and the mark moved to ``through``."""
        from hansard.store.sqlite.db import transaction

        with transaction(self.db):
            self.db.executemany("INSERT OR IGNORE INTO vectors (model, text_hash, vector) VALUES (?,?,?)",
                                [(model, h, v) for h, v in vectors])
            self.db.executemany("INSERT OR REPLACE INTO intent_vectors (model, message_id, session_id, text_hash)"
                                " VALUES (?,?,?,?)", [(model, *t) for t in texts])
            self.db.execute("UPDATE vector_progress SET through_id=?, updated_at=? WHERE model=?",
                            (through, at, intent_key(model)))

    def intent_stamp(self, model: str) -> tuple[str, int, int]:
        """(the store file, intent rows of ``model``, highest embedded message id)."""
        row = self.db.execute("SELECT COUNT(*), COALESCE(MAX(message_id), 0) FROM intent_vectors WHERE model=?",
                              (model,)).fetchone()
        path = self.db.execute("PRAGMA database_list").fetchone()[2]
        return path, row[0], row[1]

    def intent_vectors(self, model: str) -> tuple[list[tuple[int, int, int]], list[bytes]]:
        """Every intent text of ``model`` as (message id, session, length of the embedded text)
        and its float16 vector, by message id."""
        rows, blobs = [], []
        for mid, sid, n, blob in self.db.execute(
            "SELECT i.message_id, i.session_id, min(length(m.text), ?), v.vector FROM intent_vectors i"
            " JOIN messages m ON m.id=i.message_id"
            " JOIN vectors v ON v.model=i.model AND v.text_hash=i.text_hash WHERE i.model=? ORDER BY i.message_id",
            (INTENT_CHARS, model),
        ):
            rows.append((mid, sid, n))
            blobs.append(blob)
        return rows, blobs

    def message_sessions(self, ids: Sequence[int]) -> dict[int, int]:
        """messages.id -> its session (sessions.id)."""
        out: dict[int, int] = {}
        ids = list(ids)
        for i in range(0, len(ids), 500):
            chunk = ids[i:i + 500]
            out.update(self.db.execute(f"SELECT id, session_id FROM messages WHERE id IN ({marks(len(chunk))})",
                                       chunk).fetchall())
        return out

    def skip_vectors_to(self, model: str, at: str) -> None:
        """Nothing eligible above the mark: move it past the ineligible rows for good.
        ``updated_at`` stays when vectors were last written (``at`` only fills it the first
        time): it is what ``vector_stamp`` compares, and moving the mark writes no vector."""
        from hansard.store.sqlite.db import transaction

        last = self.db.execute("SELECT MAX(id) FROM messages").fetchone()[0] or 0
        with transaction(self.db):
            self.db.execute("UPDATE vector_progress SET through_id=MAX(through_id, ?), updated_at=COALESCE(updated_at, ?)"
                            " WHERE model=?", (last, at, model))
