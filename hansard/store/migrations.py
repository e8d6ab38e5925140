"""Append-only, named schema migrations. A shipped migration is never edited; a change is a
new function. Each table and column says why it exists.

The store holds two kinds of data. The *archive* (``sources``, ``raw_records``) is the truth:
every record read, verbatim and compressed. Everything else is *derived* and can be rebuilt
from the archive alone by ``hansard reindex``.
"""

from __future__ import annotations

from collections.abc import Callable

# Each migration returns its SQL script; `db.migrate` runs it and records its name in one
# transaction (sqlite3's executescript would otherwise commit half-way).
MIGRATIONS: list[Callable[[], str]] = []
migration = MIGRATIONS.append

# Tables rebuilt by reindex, in delete order.
DERIVED_TABLES = (
    "edit_lines", "edits", "steps", "tool_calls", "messages", "leaf_titles", "sessions", "skips",
)


@migration
def m001_archive() -> str:
    return (
        """
        -- One row per transcript file ever read. The file may vanish (Claude deletes
        -- transcripts after 30 days); the row and its records stay.
        CREATE TABLE sources (
            id INTEGER PRIMARY KEY,
            path TEXT NOT NULL UNIQUE,
            provider TEXT,                 -- sniffed from content, never from the name
            inode INTEGER, size INTEGER, mtime_ns INTEGER,
            "offset" INTEGER NOT NULL DEFAULT 0,   -- bytes consumed: complete lines only
            generation INTEGER NOT NULL DEFAULT 0, -- bumps when the file shrank or was rewritten
            head_hash TEXT,                -- hash of the first bytes: detects a rewrite that did not shrink
            parser_state TEXT,             -- JSON; resumes the parser at "offset"
            missing INTEGER NOT NULL DEFAULT 0,
            first_seen TEXT, last_scanned TEXT
        );
        -- Every record verbatim (zlib), keyed by file, generation and byte offset. Old
        -- generations are kept: a rewritten Gemini file loses nothing.
        CREATE TABLE raw_records (
            source_id INTEGER NOT NULL REFERENCES sources(id),
            generation INTEGER NOT NULL,
            "offset" INTEGER NOT NULL,
            length INTEGER NOT NULL,
            data BLOB NOT NULL,
            PRIMARY KEY (source_id, generation, "offset")
        ) WITHOUT ROWID;
        -- One row per `hansard index` run, for `status`.
        CREATE TABLE runs (
            id INTEGER PRIMARY KEY,
            started_at TEXT NOT NULL, finished_at TEXT,
            files INTEGER, records INTEGER, bytes INTEGER, skipped INTEGER,
            sessions INTEGER, messages INTEGER, edits INTEGER, kind TEXT
        );
        """
    )


@migration
def m002_sessions() -> str:
    return (
        """
        CREATE TABLE repos (
            id INTEGER PRIMARY KEY,
            root_commit TEXT,              -- identity: survives moves and other machines
            remote TEXT,
            path TEXT UNIQUE               -- newest known checkout on this machine
        );
        CREATE INDEX repos_root ON repos(root_commit);
        -- Directory -> repository, so each distinct cwd asks git once.
        CREATE TABLE dirs (
            dir TEXT PRIMARY KEY,
            repo_id INTEGER REFERENCES repos(id),
            toplevel TEXT
        );
        -- `hansard config map OLD NEW`: sessions recorded at another path or machine.
        CREATE TABLE path_maps (old_prefix TEXT PRIMARY KEY, new_prefix TEXT NOT NULL);

        CREATE TABLE sessions (
            id INTEGER PRIMARY KEY,
            session_id TEXT NOT NULL UNIQUE,     -- the provider's id (subagents: agent-<id>)
            provider TEXT NOT NULL,
            source_id INTEGER REFERENCES sources(id),  -- file the session was first read from
            cwd TEXT, started_at TEXT, last_at TEXT,
            title TEXT, title_rank INTEGER NOT NULL DEFAULT 0,
            parent_session_id TEXT, agent_id TEXT, spawn_call_id TEXT,
            git_branch TEXT, git_commit TEXT, git_remote TEXT, version TEXT,
            resumed_from TEXT,
            extra TEXT,
            repo_id INTEGER REFERENCES repos(id),
            message_count INTEGER NOT NULL DEFAULT 0,  -- next message_index
            first_prompt TEXT,
            resolved INTEGER NOT NULL DEFAULT 0    -- 1 once the link step looked for its repo
        );
        CREATE INDEX sessions_unresolved ON sessions(resolved) WHERE resolved = 0;
        -- `hansard sessions` lists newest first, filtered by repo/provider: answered from here.
        CREATE INDEX sessions_recent ON sessions(last_at DESC);
        CREATE INDEX sessions_repo_recent ON sessions(repo_id, last_at DESC);
        CREATE INDEX sessions_parent ON sessions(parent_session_id);

        -- message_index is the single numbering every tool uses: 0-based, per session,
        -- assigned in arrival order and never reused.
        CREATE TABLE messages (
            id INTEGER PRIMARY KEY,
            session_id INTEGER NOT NULL REFERENCES sessions(id),
            message_index INTEGER NOT NULL,
            provider TEXT NOT NULL,
            key TEXT NOT NULL,             -- provider id (uuid) or record hash: dedupes replays
            role TEXT NOT NULL, kind TEXT NOT NULL,
            text TEXT NOT NULL,
            timestamp TEXT, cwd TEXT, model TEXT,
            source_id INTEGER NOT NULL, "offset" INTEGER NOT NULL,
            UNIQUE (session_id, message_index)
        );
        -- Replayed prefixes of resumed sessions carry the same uuid: keep the first.
        CREATE UNIQUE INDEX messages_key ON messages(provider, key);
        CREATE INDEX messages_source ON messages(source_id);

        CREATE TABLE tool_calls (
            id INTEGER PRIMARY KEY,
            session_id INTEGER NOT NULL REFERENCES sessions(id),
            message_id INTEGER REFERENCES messages(id),
            provider TEXT NOT NULL,
            call_id TEXT NOT NULL,
            name TEXT NOT NULL,
            input TEXT,                    -- JSON
            status TEXT,                   -- ok|error|rejected|interrupted; NULL: no result yet
            output TEXT, exit_code INTEGER,
            timestamp TEXT, result_timestamp TEXT, cwd TEXT,
            source_id INTEGER NOT NULL
        );
        CREATE UNIQUE INDEX tool_calls_key ON tool_calls(provider, call_id);
        CREATE INDEX tool_calls_session ON tool_calls(session_id);
        CREATE INDEX tool_calls_source ON tool_calls(source_id);

        -- One row per file per tool call. Only status='applied' is ever evidence.
        CREATE TABLE edits (
            id INTEGER PRIMARY KEY,
            session_id INTEGER NOT NULL REFERENCES sessions(id),
            message_id INTEGER REFERENCES messages(id),
            provider TEXT NOT NULL,
            call_id TEXT NOT NULL, seq INTEGER NOT NULL,
            tool TEXT, kind TEXT, status TEXT NOT NULL,
            path TEXT NOT NULL,            -- as the transcript wrote it
            cwd TEXT,                      -- of that record: resolves relative paths
            move_to TEXT,
            timestamp TEXT,
            user_modified INTEGER NOT NULL DEFAULT 0,
            hunks TEXT,                    -- JSON list of [old_start, old_lines, new_start, new_lines, lines]
            before_text BLOB, after_text BLOB,  -- zlib, when the transcript had whole files
            repo_id INTEGER REFERENCES repos(id),  -- resolved by the link step
            rel_path TEXT,                 -- repo-relative, resolved with the record's cwd
            resolved INTEGER NOT NULL DEFAULT 0,   -- 1 once the link step looked (found or not)
            source_id INTEGER NOT NULL
        );
        CREATE UNIQUE INDEX edits_key ON edits(provider, call_id, seq);
        CREATE INDEX edits_session ON edits(session_id);
        CREATE INDEX edits_path ON edits(repo_id, rel_path);
        CREATE INDEX edits_source ON edits(source_id);
        CREATE INDEX edits_unresolved ON edits(resolved) WHERE resolved = 0;

        -- Normalised hash of every line an edit added (+) or removed (-): the evidence index.
        CREATE TABLE edit_lines (
            edit_id INTEGER NOT NULL REFERENCES edits(id),
            side TEXT NOT NULL,            -- '+' or '-'
            ordinal INTEGER NOT NULL,      -- position among the edit's added/removed lines
            new_lineno INTEGER,            -- post-edit line number, when the transcript had it
            hash INTEGER NOT NULL,         -- textnorm.line_hash: whitespace-free form
            exact INTEGER NOT NULL,        -- textnorm.exact_hash: tells "formatted" matches apart
            trivial INTEGER NOT NULL,
            PRIMARY KEY (edit_id, side, ordinal)
        ) WITHOUT ROWID;
        CREATE INDEX edit_lines_hash ON edit_lines(hash, side);

        CREATE TABLE steps (
            id INTEGER PRIMARY KEY,
            session_id INTEGER NOT NULL REFERENCES sessions(id),
            call_id TEXT, snapshot INTEGER NOT NULL, steps TEXT NOT NULL, timestamp TEXT,
            source_id INTEGER NOT NULL
        );
        CREATE INDEX steps_session ON steps(session_id);
        CREATE INDEX steps_source ON steps(source_id);

        -- Claude `summary` records title the session holding leaf_uuid, often another file.
        CREATE TABLE leaf_titles (
            leaf_uuid TEXT NOT NULL, title TEXT NOT NULL, from_session TEXT,
            source_id INTEGER NOT NULL,
            PRIMARY KEY (leaf_uuid, title)
        );
        CREATE INDEX leaf_titles_source ON leaf_titles(source_id);

        -- Records that could not be used, with why: shown by `index` and `status`.
        CREATE TABLE skips (
            source_id INTEGER NOT NULL, "offset" INTEGER NOT NULL,
            reason TEXT NOT NULL, detail TEXT
        );
        CREATE INDEX skips_source ON skips(source_id);
        """
    )


@migration
def m003_commit_cache() -> str:
    return (
        """
        -- What a commit changed in a file never changes: cache it by commit id, so `why`
        -- asks git once per (commit, path) across runs. A rewrite makes new ids; old rows
        -- are simply never asked for again.
        CREATE TABLE commit_diffs (
            sha TEXT NOT NULL,
            path TEXT NOT NULL,
            old_path TEXT,
            hunks TEXT NOT NULL,           -- JSON, as edits.hunks
            PRIMARY KEY (sha, path)
        ) WITHOUT ROWID;
        """
    )
