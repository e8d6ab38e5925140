"""Append-only, named schema migrations of the team store, as in the SQLite store: a shipped
migration is never edited; a change is a new function. ``hansard_migrations`` records the
names applied; a server that has names this hansard does not know was migrated by a newer
hansard, and is refused (``StoreTooNew``) rather than written with an older idea of its
tables."""

from __future__ import annotations

from collections.abc import Callable

MIGRATIONS: list[Callable[[], str]] = []
migration = MIGRATIONS.append


@migration
def t001_team() -> str:
    return """
        CREATE EXTENSION IF NOT EXISTS pg_trgm;
        -- A member is one person on one machine: git user.email and a random machine id.
        CREATE TABLE members (
            id SERIAL PRIMARY KEY,
            email TEXT NOT NULL,
            machine TEXT NOT NULL,
            name TEXT,
            first_push TIMESTAMPTZ NOT NULL DEFAULT now(),
            last_push TIMESTAMPTZ,
            UNIQUE (email, machine)
        );
        -- A repository by identity (its root commit), the same on every clone.
        CREATE TABLE repos (
            id SERIAL PRIMARY KEY,
            root_commit TEXT NOT NULL UNIQUE,
            remote TEXT,
            name TEXT
        );
        CREATE TABLE sessions (
            id BIGSERIAL PRIMARY KEY,
            member_id INTEGER NOT NULL REFERENCES members(id),
            repo_id INTEGER NOT NULL REFERENCES repos(id),
            session_id TEXT NOT NULL,
            provider TEXT NOT NULL,
            cwd TEXT, started_at TEXT, last_at TEXT,
            title TEXT, first_prompt TEXT,
            parent_session_id TEXT, resumed_from TEXT, git_branch TEXT, version TEXT,
            message_count INTEGER NOT NULL DEFAULT 0,
            -- sha256 of everything pushed for the session: an unchanged session is not sent again.
            content_hash TEXT NOT NULL,
            redactions INTEGER NOT NULL DEFAULT 0,
            pushed_at TIMESTAMPTZ NOT NULL DEFAULT now(),
            UNIQUE (member_id, session_id)
        );
        CREATE INDEX sessions_repo_recent ON sessions(repo_id, last_at DESC);
        CREATE INDEX sessions_sid ON sessions(session_id);

        CREATE TABLE messages (
            id BIGSERIAL PRIMARY KEY,
            session_row BIGINT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
            message_index INTEGER NOT NULL,
            role TEXT NOT NULL, kind TEXT NOT NULL,
            text TEXT NOT NULL,
            timestamp TEXT,
            tsv TSVECTOR GENERATED ALWAYS AS (to_tsvector('simple', left(text, 200000))) STORED,
            UNIQUE (session_row, message_index)
        );
        CREATE INDEX messages_tsv ON messages USING GIN (tsv);
        CREATE INDEX messages_trgm ON messages USING GIN (text gin_trgm_ops);

        CREATE TABLE tool_calls (
            id BIGSERIAL PRIMARY KEY,
            session_row BIGINT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
            message_index INTEGER,
            call_id TEXT NOT NULL, name TEXT NOT NULL,
            input TEXT, output TEXT, exit_code INTEGER, status TEXT,
            timestamp TEXT, cwd TEXT
        );
        CREATE INDEX tool_calls_session ON tool_calls(session_row);
        CREATE INDEX tool_calls_name ON tool_calls(name);

        -- Applied edits only: nothing else is ever evidence.
        CREATE TABLE edits (
            id BIGSERIAL PRIMARY KEY,
            session_row BIGINT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
            repo_id INTEGER NOT NULL REFERENCES repos(id),
            message_index INTEGER,
            call_id TEXT NOT NULL, seq INTEGER NOT NULL,
            tool TEXT, kind TEXT,
            rel_path TEXT NOT NULL,
            timestamp TEXT,
            user_modified BOOLEAN NOT NULL DEFAULT false,
            hunks TEXT,                 -- JSON, as in the local store
            after_text TEXT
        );
        CREATE INDEX edits_session ON edits(session_row);
        CREATE INDEX edits_path ON edits(repo_id, rel_path);

        CREATE TABLE edit_lines (
            edit_id BIGINT NOT NULL REFERENCES edits(id) ON DELETE CASCADE,
            side CHAR(1) NOT NULL,
            ordinal INTEGER NOT NULL,
            hash BIGINT NOT NULL,
            exact BIGINT NOT NULL,
            trivial BOOLEAN NOT NULL,
            PRIMARY KEY (edit_id, side, ordinal)
        );
        CREATE INDEX edit_lines_hash ON edit_lines(hash, side);
    """


@migration
def t002_memories() -> str:
    return """
        -- The current text of each project guidance file (CLAUDE.md, AGENTS.md, auto memory...)
        -- of an opted-in repository, redacted on the member's machine; one row per member-machine
        -- and file. Global memories (a person's own) are never pushed.
        CREATE TABLE memories (
            id BIGSERIAL PRIMARY KEY,
            member_id INTEGER NOT NULL REFERENCES members(id),
            repo_id INTEGER NOT NULL REFERENCES repos(id),
            memory_id TEXT NOT NULL,
            kind TEXT NOT NULL, source TEXT NOT NULL,
            rel_path TEXT, title TEXT,
            text TEXT NOT NULL,
            sha256 TEXT NOT NULL,
            seen_at TEXT,
            tsv TSVECTOR GENERATED ALWAYS AS (to_tsvector('simple', left(text, 200000))) STORED,
            UNIQUE (member_id, memory_id)
        );
        CREATE INDEX memories_repo ON memories(repo_id);
        CREATE INDEX memories_tsv ON memories USING GIN (tsv);
    """


@migration
def t003_passage_vectors() -> str:
    return """
        -- Meaning search over team sessions: the passages of each conversation message, embedded
        -- on the pushing member's machine from the redacted text the server holds (float16, as
        -- locally), keyed by the embedder's id (model and weights). Searched by brute force.
        CREATE TABLE passage_vectors (
            message_id BIGINT NOT NULL REFERENCES messages(id) ON DELETE CASCADE,
            model TEXT NOT NULL,
            start INTEGER NOT NULL,
            "end" INTEGER NOT NULL,
            vector BYTEA NOT NULL,
            PRIMARY KEY (message_id, model, start)
        );
        CREATE INDEX passage_vectors_model ON passage_vectors(model);
    """


@migration
def t004_tool_call_inputs() -> str:
    return """
        -- why's commit-level pass looks for a path in teammates' shell commands (input LIKE
        -- '%path%'): a trigram index answers it without reading every tool call.
        CREATE INDEX tool_calls_input_trgm ON tool_calls USING GIN (input gin_trgm_ops);
    """
