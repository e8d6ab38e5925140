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


@migration
def m004_search() -> str:
    return (
        """
        -- Keyword search over every message: prose, tool-call summaries and tool output
        -- (tool results are messages). External content: the text is stored once, in
        -- messages, and the triggers below keep the index in step with every insert,
        -- update and delete the writer makes (a re-read deletes and re-inserts rows).
        CREATE VIRTUAL TABLE messages_fts USING fts5(
            text, content='messages', content_rowid='id', tokenize='unicode61 remove_diacritics 2'
        );
        -- unicode61 splits identifiers and paths into words (`fetch_data` -> fetch, data)
        -- and cannot find part of a word (`ch_da`, `UserName` in `getUserNameById`). A
        -- trigram index answers `LIKE '%fetch_data%'` for those. detail=none keeps it
        -- small: SQLite re-checks each LIKE candidate against the stored text. Messages
        -- over 32 KiB (whole-file reads, long logs) stay out of it; unicode61 still has them.
        CREATE VIRTUAL TABLE messages_tri USING fts5(
            text, content='messages', content_rowid='id', tokenize='trigram', detail='none'
        );
        -- Tool inputs in full (every command-line argument, edit strings, paths), which the
        -- tool_use message only summarises. Outputs are searched through their tool_result
        -- messages, so they are not indexed twice.
        CREATE VIRTUAL TABLE tool_calls_fts USING fts5(
            name, input, content='tool_calls', content_rowid='id', tokenize='unicode61 remove_diacritics 2'
        );

        CREATE TRIGGER messages_fts_ai AFTER INSERT ON messages BEGIN
            INSERT INTO messages_fts(rowid, text) VALUES (new.id, new.text);
            INSERT INTO messages_tri(rowid, text) SELECT new.id, new.text WHERE length(new.text) <= 32768;
        END;
        CREATE TRIGGER messages_fts_ad AFTER DELETE ON messages BEGIN
            INSERT INTO messages_fts(messages_fts, rowid, text) VALUES ('delete', old.id, old.text);
            INSERT INTO messages_tri(messages_tri, rowid, text)
                SELECT 'delete', old.id, old.text WHERE length(old.text) <= 32768;
        END;
        CREATE TRIGGER messages_fts_au AFTER UPDATE OF text ON messages BEGIN
            INSERT INTO messages_fts(messages_fts, rowid, text) VALUES ('delete', old.id, old.text);
            INSERT INTO messages_tri(messages_tri, rowid, text)
                SELECT 'delete', old.id, old.text WHERE length(old.text) <= 32768;
            INSERT INTO messages_fts(rowid, text) VALUES (new.id, new.text);
            INSERT INTO messages_tri(rowid, text) SELECT new.id, new.text WHERE length(new.text) <= 32768;
        END;
        CREATE TRIGGER tool_calls_fts_ai AFTER INSERT ON tool_calls BEGIN
            INSERT INTO tool_calls_fts(rowid, name, input) VALUES (new.id, new.name, new.input);
        END;
        CREATE TRIGGER tool_calls_fts_ad AFTER DELETE ON tool_calls BEGIN
            INSERT INTO tool_calls_fts(tool_calls_fts, rowid, name, input) VALUES ('delete', old.id, old.name, old.input);
        END;
        CREATE TRIGGER tool_calls_fts_au AFTER UPDATE OF name, input ON tool_calls BEGIN
            INSERT INTO tool_calls_fts(tool_calls_fts, rowid, name, input) VALUES ('delete', old.id, old.name, old.input);
            INSERT INTO tool_calls_fts(rowid, name, input) VALUES (new.id, new.name, new.input);
        END;

        -- A store indexed before this migration: index what it already holds.
        INSERT INTO messages_fts(messages_fts) VALUES ('rebuild');
        INSERT INTO messages_tri(rowid, text) SELECT id, text FROM messages WHERE length(text) <= 32768;
        INSERT INTO tool_calls_fts(tool_calls_fts) VALUES ('rebuild');

        -- `tool` and `command` filters look up a session's calls by name; ranking finds the
        -- calls of a candidate message.
        CREATE INDEX tool_calls_session_name ON tool_calls(session_id, name);
        CREATE INDEX tool_calls_message ON tool_calls(message_id);
        -- The `file` filter: sessions that edited a path, by its repo-relative form.
        CREATE INDEX edits_rel_path ON edits(rel_path);
        """
    )


@migration
def m005_memories() -> str:
    return (
        """
        -- One row per guidance file agents read (CLAUDE.md, AGENTS.md, GEMINI.md, Claude's
        -- auto memory). Read-only mirror: hansard never edits, merges or deletes them.
        CREATE TABLE memories (
            id INTEGER PRIMARY KEY,
            memory_id TEXT NOT NULL UNIQUE,   -- public id: stable hash of the path
            path TEXT NOT NULL UNIQUE,        -- absolute path of the file
            kind TEXT NOT NULL,               -- claude_md|claude_local|claude_rules|claude_auto_memory|agents_md|agents_override|gemini_md
            source TEXT NOT NULL,             -- the provider that reads it: claude_code|codex|gemini
            scope TEXT NOT NULL,              -- global | project | unkeyed (auto memory of an unknown project)
            repo_id INTEGER REFERENCES repos(id),  -- project scope: whose guidance it is, when known
            root TEXT,                        -- project scope: the checkout's top folder
            rel_path TEXT,                    -- path inside that folder
            title TEXT,
            version_id INTEGER,               -- the current text: memory_versions.id
            mtime_ns INTEGER, size INTEGER,   -- cheap change check before re-reading
            missing INTEGER NOT NULL DEFAULT 0,  -- the file is gone; its versions stay
            first_seen TEXT, last_seen TEXT
        );
        CREATE INDEX memories_repo ON memories(repo_id);
        -- Every text a memory file ever had: files change, and earlier guidance explains
        -- earlier sessions.
        CREATE TABLE memory_versions (
            id INTEGER PRIMARY KEY,
            memory INTEGER NOT NULL REFERENCES memories(id),
            sha256 TEXT NOT NULL,
            text TEXT NOT NULL,
            seen_at TEXT NOT NULL,
            UNIQUE (memory, sha256)
        );
        -- Search reads the current version only (joined through memories.version_id);
        -- the index holds all, which is small.
        CREATE VIRTUAL TABLE memory_fts USING fts5(
            text, content='memory_versions', content_rowid='id', tokenize='unicode61 remove_diacritics 2'
        );
        CREATE TRIGGER memory_fts_ai AFTER INSERT ON memory_versions BEGIN
            INSERT INTO memory_fts(rowid, text) VALUES (new.id, new.text);
        END;
        CREATE TRIGGER memory_fts_ad AFTER DELETE ON memory_versions BEGIN
            INSERT INTO memory_fts(memory_fts, rowid, text) VALUES ('delete', old.id, old.text);
        END;
        -- Project folders looked through for memory files, so the full walk (git ls-files)
        -- runs now and then, not on every `index`.
        CREATE TABLE memory_roots (
            path TEXT PRIMARY KEY,
            repo_id INTEGER,
            scanned_at REAL NOT NULL          -- unix time of the last full look
        );
        """  # noqa: E501 - the schema text as stored (sqlite_master keeps its comments)
    )


@migration
def m006_vectors() -> str:
    return (
        """
        -- Meaning search (optional extra). One embedding per distinct text and model, keyed
        -- by a hash of the text: a re-read message or a reindex (new row ids) costs no new
        -- embedding. float16, L2-normalised. Built in the background, in batches; keyword
        -- search never waits for it.
        CREATE TABLE vectors (
            model TEXT NOT NULL,              -- embedder id, including its weights' hash
            text_hash BLOB NOT NULL,          -- blake2b-16 of the embedded text
            vector BLOB NOT NULL,
            PRIMARY KEY (model, text_hash)
        ) WITHOUT ROWID;
        -- Which text each message was embedded as. Deleted with its message.
        CREATE TABLE message_vectors (
            message_id INTEGER PRIMARY KEY,   -- messages.id
            text_hash BLOB NOT NULL
        );
        CREATE TRIGGER message_vectors_ad AFTER DELETE ON messages BEGIN
            DELETE FROM message_vectors WHERE message_id = old.id;
        END;
        -- A message whose text changed (Gemini re-appends) is embedded again: the builder
        -- steps back to it.
        CREATE TRIGGER message_vectors_au AFTER UPDATE OF text ON messages BEGIN
            DELETE FROM message_vectors WHERE message_id = old.id;
            UPDATE vector_progress SET through_id = old.id - 1 WHERE through_id >= old.id;
        END;
        -- How far the background builder got, per model: every eligible message with
        -- messages.id <= through_id has a vector. Rows above it are waiting.
        CREATE TABLE vector_progress (
            model TEXT PRIMARY KEY,
            through_id INTEGER NOT NULL DEFAULT 0,
            updated_at TEXT
        );
        """
    )


@migration
def m010_symbol_cache() -> str:
    return (
        """
        -- What the tree-sitter analyzers found in one blob (hansard/code/symbols.py).
        -- A blob id names content exactly, so a row never goes stale; bumping
        -- ANALYZER_VERSION makes new rows and old ones are never read again. Derived, but
        -- not from the archive: reindex need not touch it.
        CREATE TABLE symbol_cache (
            blob_id TEXT NOT NULL,            -- git blob id (what `git hash-object` prints)
            lang TEXT NOT NULL,               -- analyzer language: python, typescript, tsx, go, ...
            analyzer_version INTEGER NOT NULL,
            symbols TEXT NOT NULL,            -- JSON [[name, kind, start, end, short_name, parent]]
            imports TEXT NOT NULL,            -- JSON [[module, line, [names], kind]]
            reason TEXT,                      -- why nothing was found (too_large), else NULL
            PRIMARY KEY (blob_id, lang, analyzer_version)
        ) WITHOUT ROWID;
        """
    )


@migration
def m020_audit() -> str:
    return (
        """
        -- One row per MCP tool call: who asked, what happened, how long it took. The query
        -- text is kept only when the user opted in (`hansard mcp serve --audit-queries`).
        CREATE TABLE audit (
            id INTEGER PRIMARY KEY,
            at TEXT NOT NULL,
            tool TEXT NOT NULL,
            caller TEXT,                   -- the calling session, when known
            outcome TEXT NOT NULL,         -- answered | refused | failed
            error_code TEXT,
            duration_ms REAL NOT NULL,
            result_count INTEGER,
            query TEXT
        );
        CREATE INDEX audit_at ON audit(at DESC);
        """
    )


@migration
def m021_redactions() -> str:
    return (
        """
        -- Secrets withheld from the derived tables (hansard/ingest/redact.py), per source file (for
        -- its current generation) and per index run; `status` reports the total. The archive
        -- keeps the original bytes. -1: the source was indexed before redaction existed, so
        -- its derived rows may hold secrets; the next `hansard index` rebuilds them from the
        -- archive (ingest/run.py).
        ALTER TABLE sources ADD COLUMN redactions INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE runs ADD COLUMN redactions INTEGER;
        UPDATE sources SET redactions = -1
            WHERE id IN (SELECT source_id FROM messages UNION SELECT source_id FROM tool_calls
                         UNION SELECT source_id FROM edits UNION SELECT source_id FROM sessions);
        """
    )


@migration
def m022_trigram_prose_only() -> str:
    return (
        """
        -- The trigram index was most of the indexing time (it writes ~3 index entries per
        -- character). Tool output (logs, file reads) leaves it: its words are still in
        -- messages_fts, which finds `fetch_data` as the phrase "fetch data"; only part-of-a-
        -- word look-ups (`ch_da`) are limited to prompts, replies and tool-call summaries.
        DROP TRIGGER messages_fts_ai;
        DROP TRIGGER messages_fts_ad;
        DROP TRIGGER messages_fts_au;
        CREATE TRIGGER messages_fts_ai AFTER INSERT ON messages BEGIN
            INSERT INTO messages_fts(rowid, text) VALUES (new.id, new.text);
            INSERT INTO messages_tri(rowid, text) SELECT new.id, new.text
                WHERE length(new.text) <= 32768 AND new.role <> 'tool';
        END;
        CREATE TRIGGER messages_fts_ad AFTER DELETE ON messages BEGIN
            INSERT INTO messages_fts(messages_fts, rowid, text) VALUES ('delete', old.id, old.text);
            INSERT INTO messages_tri(messages_tri, rowid, text)
                SELECT 'delete', old.id, old.text WHERE length(old.text) <= 32768 AND old.role <> 'tool';
        END;
        CREATE TRIGGER messages_fts_au AFTER UPDATE OF text, role ON messages BEGIN
            INSERT INTO messages_fts(messages_fts, rowid, text) VALUES ('delete', old.id, old.text);
            INSERT INTO messages_tri(messages_tri, rowid, text)
                SELECT 'delete', old.id, old.text WHERE length(old.text) <= 32768 AND old.role <> 'tool';
            INSERT INTO messages_fts(rowid, text) VALUES (new.id, new.text);
            INSERT INTO messages_tri(rowid, text) SELECT new.id, new.text
                WHERE length(new.text) <= 32768 AND new.role <> 'tool';
        END;
        DELETE FROM messages_tri;
        INSERT INTO messages_tri(rowid, text) SELECT id, text FROM messages WHERE length(text) <= 32768 AND role <> 'tool';
        """
    )


@migration
def m023_fts_in_bulk() -> str:
    return (
        """
        -- Row-by-row FTS triggers made FTS5 flush a tiny segment per message; indexing each
        -- file's new rows in one statement at the end of its transaction (store/fts.py)
        -- costs a third less. The watermark is the last row id in the full-text indexes:
        -- rows above it are not indexed yet, so the delete/update triggers leave them alone,
        -- and a deletion that lowers the largest id lowers the watermark (SQLite may hand
        -- that id out again).
        CREATE TABLE fts_watermark (name TEXT PRIMARY KEY, last_id INTEGER NOT NULL);
        INSERT INTO fts_watermark VALUES
            ('messages', COALESCE((SELECT MAX(id) FROM messages), 0)),
            ('tool_calls', COALESCE((SELECT MAX(id) FROM tool_calls), 0));
        DROP TRIGGER messages_fts_ai;
        DROP TRIGGER messages_fts_ad;
        DROP TRIGGER messages_fts_au;
        DROP TRIGGER tool_calls_fts_ai;
        DROP TRIGGER tool_calls_fts_ad;
        DROP TRIGGER tool_calls_fts_au;
        CREATE TRIGGER messages_fts_ad AFTER DELETE ON messages BEGIN
            INSERT INTO messages_fts(messages_fts, rowid, text)
                SELECT 'delete', old.id, old.text
                WHERE old.id <= (SELECT last_id FROM fts_watermark WHERE name='messages');
            INSERT INTO messages_tri(messages_tri, rowid, text)
                SELECT 'delete', old.id, old.text
                WHERE old.id <= (SELECT last_id FROM fts_watermark WHERE name='messages')
                  AND length(old.text) <= 32768 AND old.role <> 'tool';
            UPDATE fts_watermark SET last_id = MIN(last_id, COALESCE((SELECT MAX(id) FROM messages), 0))
                WHERE name='messages';
        END;
        CREATE TRIGGER messages_fts_au AFTER UPDATE OF text, role ON messages
        WHEN old.id <= (SELECT last_id FROM fts_watermark WHERE name='messages') BEGIN
            INSERT INTO messages_fts(messages_fts, rowid, text) VALUES ('delete', old.id, old.text);
            INSERT INTO messages_tri(messages_tri, rowid, text)
                SELECT 'delete', old.id, old.text WHERE length(old.text) <= 32768 AND old.role <> 'tool';
            INSERT INTO messages_fts(rowid, text) VALUES (new.id, new.text);
            INSERT INTO messages_tri(rowid, text) SELECT new.id, new.text
                WHERE length(new.text) <= 32768 AND new.role <> 'tool';
        END;
        CREATE TRIGGER tool_calls_fts_ad AFTER DELETE ON tool_calls BEGIN
            INSERT INTO tool_calls_fts(tool_calls_fts, rowid, name, input)
                SELECT 'delete', old.id, old.name, old.input
                WHERE old.id <= (SELECT last_id FROM fts_watermark WHERE name='tool_calls');
            UPDATE fts_watermark SET last_id = MIN(last_id, COALESCE((SELECT MAX(id) FROM tool_calls), 0))
                WHERE name='tool_calls';
        END;
        CREATE TRIGGER tool_calls_fts_au AFTER UPDATE OF name, input ON tool_calls
        WHEN old.id <= (SELECT last_id FROM fts_watermark WHERE name='tool_calls') BEGIN
            INSERT INTO tool_calls_fts(tool_calls_fts, rowid, name, input) VALUES ('delete', old.id, old.name, old.input);
            INSERT INTO tool_calls_fts(rowid, name, input) VALUES (new.id, new.name, new.input);
        END;
        """
    )


@migration
def m024_passage_vectors() -> str:
    return (
        """
        -- Meaning search embeds passages, not whole messages: a long message is cut into
        -- passages of a few hundred characters, each embedded on its own, so a match names
        -- the passage that matched and a long answer's other topics do not blur it.
        -- Replaces message_vectors (one vector per message); the builder starts over, and
        -- every passage whose text was embedded before (a short message) reuses its vector.
        DROP TRIGGER IF EXISTS message_vectors_ad;
        DROP TRIGGER IF EXISTS message_vectors_au;
        DROP TABLE IF EXISTS message_vectors;
        CREATE TABLE passage_vectors (
            message_id INTEGER NOT NULL,      -- messages.id
            start INTEGER NOT NULL,           -- [start, end): characters of messages.text
            "end" INTEGER NOT NULL,
            text_hash BLOB NOT NULL,          -- vectors.text_hash of the passage's text
            PRIMARY KEY (message_id, start)
        ) WITHOUT ROWID;
        CREATE TRIGGER passage_vectors_ad AFTER DELETE ON messages BEGIN
            DELETE FROM passage_vectors WHERE message_id = old.id;
        END;
        CREATE TRIGGER passage_vectors_au AFTER UPDATE OF text ON messages BEGIN
            DELETE FROM passage_vectors WHERE message_id = old.id;
            UPDATE vector_progress SET through_id = old.id - 1 WHERE through_id >= old.id;
        END;
        DELETE FROM vector_progress;
        """
    )


@migration
def m025_why_cache() -> str:
    triggers = []
    # Every write that can change a `why` answer bumps the generation, in the same transaction:
    # a source read further or again (its items were written with it), a run recorded after
    # linking, a repository or path map added, an edit or session linked, re-dated or cleared.
    for table, events in (
        ("sources", ("INSERT", "UPDATE", "DELETE")),
        ("runs", ("INSERT",)),
        ("repos", ("INSERT", "UPDATE", "DELETE")),
        ("path_maps", ("INSERT", "UPDATE", "DELETE")),
        ("sessions", ("UPDATE OF repo_id, cwd", "DELETE")),
        ("edits", ("UPDATE OF repo_id, rel_path, timestamp, status", "DELETE")),
    ):
        for event in events:
            name = f"generation_{table}_{event.split()[0].lower()}"
            triggers.append(f"CREATE TRIGGER {name} AFTER {event} ON {table} BEGIN"
                            " UPDATE store_generation SET n = n + 1; END;")
    return (
        """
        -- How many times the evidence may have changed: part of every why_cache key, so an
        -- answer cached before a transcript was indexed (or a repository linked) is never served.
        CREATE TABLE store_generation (n INTEGER NOT NULL);
        INSERT INTO store_generation (n) VALUES (0);
        -- `hansard why` answers, keyed by a hash of everything the answer depends on: the
        -- revision (HEAD's commit), the file's path and bytes, the question's line range, the
        -- hansard version and the store generation. The JSON document, zlib-compressed. A
        -- cache only: it can be emptied at any time.
        CREATE TABLE why_cache (
            key TEXT PRIMARY KEY,
            generation INTEGER NOT NULL,   -- store_generation.n when the answer was computed
            answer BLOB NOT NULL,
            used_at INTEGER NOT NULL       -- unix seconds when it was remembered: the oldest go first
        );
        """
        + "\n".join(triggers)
    )


@migration
def m026_intent_vectors() -> str:
    return (
        """
        -- Session intent vectors: what each session was for (the person's requests, compaction
        -- summaries, its last answer), embedded by a sentence encoder stronger than the passage
        -- embedder; a paraphrase query is matched against these at session level. Vectors live
        -- in `vectors` under the encoder's model id; the builder's mark is the vector_progress
        -- row 'intent:' || model (moved back by passage_vectors_au when a message's text changes).
        CREATE TABLE intent_vectors (
            model TEXT NOT NULL,
            message_id INTEGER NOT NULL,      -- messages.id
            session_id INTEGER NOT NULL,      -- sessions.id
            text_hash BLOB NOT NULL,          -- vectors.text_hash of the embedded text
            PRIMARY KEY (model, message_id)
        ) WITHOUT ROWID;
        CREATE TRIGGER intent_vectors_ad AFTER DELETE ON messages BEGIN
            DELETE FROM intent_vectors WHERE message_id = old.id;
        END;
        CREATE TRIGGER intent_vectors_au AFTER UPDATE OF text ON messages BEGIN
            DELETE FROM intent_vectors WHERE message_id = old.id;
        END;
        """
    )


@migration
def m027_tool_output_in_message() -> str:
    return """
        -- A tool call's output is nearly always the text of its tool-result message, word for
        -- word (every one on the bench corpus, an eighth of the store: docs/performance.md). The writer then
        -- stores it once: output NULL and output_message_id naming that message (same source, so
        -- both go together). Read it as db.OUTPUT_SQL. Rows written before keep their output.
        -- Unique (a message is one call's output), so the index stays while a bulk run has
        -- the others dropped: a rewound or rewritten message finds its call through it.
        ALTER TABLE tool_calls ADD COLUMN output_message_id INTEGER;
        CREATE UNIQUE INDEX tool_calls_output_message ON tool_calls(output_message_id)
            WHERE output_message_id IS NOT NULL;
    """


@migration
def m028_fts_hashsize() -> str:
    return """
        -- FTS5 keeps a transaction's new terms in memory and writes them out as a segment when
        -- they pass 'hashsize' (1 MB by default), to be merged with the others later. A reindex
        -- or a first index fills the indexes in statements of tens of MB: at 16 MB a segment,
        -- the merging left to do costs a third less (messages_fts over the bench corpus's 135 MB
        -- of text: 1.9 s of CPU against 2.5 to 3.1 s). A small transaction never gets near it.
        INSERT INTO messages_fts(messages_fts, rank) VALUES ('hashsize', 16777216);
        INSERT INTO messages_tri(messages_tri, rank) VALUES ('hashsize', 16777216);
        INSERT INTO tool_calls_fts(tool_calls_fts, rank) VALUES ('hashsize', 16777216);
    """


@migration
def m029_trigram_without_system_instructions() -> str:
    return """
        -- The agents' own system instructions (Codex's developer and permissions text, 10 to
        -- 20 kB repeated in every session; kind 'meta', role 'system') were three fifths of
        -- what the trigram index read on the bench corpus, and a part-of-a-word match in them
        -- says nothing about a session. They leave it as tool output did (m022); their words
        -- stay in messages_fts. A compaction summary (role 'system', kind
        -- 'compaction_summary') stays. store/fts.py inserts by the same condition.
        DROP TRIGGER messages_fts_ad;
        DROP TRIGGER messages_fts_au;
        INSERT INTO messages_tri(messages_tri, rowid, text)
            SELECT 'delete', id, text FROM messages
            WHERE id <= (SELECT last_id FROM fts_watermark WHERE name='messages')
              AND length(text) <= 32768 AND role = 'system' AND kind = 'meta';
        CREATE TRIGGER messages_fts_ad AFTER DELETE ON messages BEGIN
            INSERT INTO messages_fts(messages_fts, rowid, text)
                SELECT 'delete', old.id, old.text
                WHERE old.id <= (SELECT last_id FROM fts_watermark WHERE name='messages');
            INSERT INTO messages_tri(messages_tri, rowid, text)
                SELECT 'delete', old.id, old.text
                WHERE old.id <= (SELECT last_id FROM fts_watermark WHERE name='messages')
                  AND length(old.text) <= 32768 AND old.role <> 'tool'
                  AND NOT (old.role = 'system' AND old.kind = 'meta');
            UPDATE fts_watermark SET last_id = MIN(last_id, COALESCE((SELECT MAX(id) FROM messages), 0))
                WHERE name='messages';
        END;
        CREATE TRIGGER messages_fts_au AFTER UPDATE OF text, role, kind ON messages
        WHEN old.id <= (SELECT last_id FROM fts_watermark WHERE name='messages') BEGIN
            INSERT INTO messages_fts(messages_fts, rowid, text) VALUES ('delete', old.id, old.text);
            INSERT INTO messages_tri(messages_tri, rowid, text)
                SELECT 'delete', old.id, old.text
                WHERE length(old.text) <= 32768 AND old.role <> 'tool' AND NOT (old.role = 'system' AND old.kind = 'meta');
            INSERT INTO messages_fts(rowid, text) VALUES (new.id, new.text);
            INSERT INTO messages_tri(rowid, text) SELECT new.id, new.text
                WHERE length(new.text) <= 32768 AND new.role <> 'tool' AND NOT (new.role = 'system' AND new.kind = 'meta');
        END;
    """


@migration
def m030_commit_facts() -> str:
    return """
        -- Which sessions made which commit (hansard.link.commits.ties), kept per repository so
        -- that `why` reads them instead of working them out from every shell call and git on
        -- each question. Written only by the link step (hansard.link.commits.kept).
        CREATE TABLE commit_prints (
            repo_id    INTEGER NOT NULL,
            call_row   INTEGER NOT NULL,   -- tool_calls.id of the shell call it was read from
            session_id TEXT NOT NULL,      -- sessions.session_id
            ts         REAL,               -- the call's time, seconds since the epoch
            kind       TEXT NOT NULL,      -- 'printed' (a [branch sha] line) or 'rewrite' (amend/rebase/cherry-pick)
            short      TEXT NOT NULL,      -- the printed commit id ('' for a rewrite)
            summary    TEXT NOT NULL       -- the printed summary ('' for a rewrite)
        );
        CREATE INDEX commit_prints_repo ON commit_prints(repo_id, call_row);
        CREATE TABLE commit_ties (
            repo_id    INTEGER NOT NULL,
            sha        TEXT NOT NULL,      -- full commit id in the repository's history
            session_id TEXT NOT NULL,
            rule       TEXT NOT NULL,      -- printed | fixup | rewrite | patch_id
            PRIMARY KEY (repo_id, sha, session_id, rule)
        ) WITHOUT ROWID;
        -- What the kept facts of a repository were computed from: HEAD's commit, and the shell
        -- calls read (the highest tool_calls.id and how many), so a new commit or a new session
        -- is noticed and anything else is not worked out again.
        CREATE TABLE commit_facts (
            repo_id     INTEGER PRIMARY KEY,
            head        TEXT NOT NULL,
            calls_upto  INTEGER NOT NULL,
            calls       INTEGER NOT NULL,
            commits     INTEGER NOT NULL,  -- commits in HEAD's history then
            seconds     REAL NOT NULL,     -- what the last refresh cost
            computed_at TEXT NOT NULL,
            diffs_head  TEXT,              -- the HEAD whose history's diffs the index put in commit_diffs
            generation  INTEGER            -- store_generation.n when the shell calls were last counted
        );
        -- `git patch-id --stable` of a commit: a function of its id, kept once computed.
        CREATE TABLE patch_ids (
            sha      TEXT PRIMARY KEY,
            patch_id TEXT                   -- NULL: the commit has no change of its own
        ) WITHOUT ROWID;
    """


@migration
def m031_git_sources() -> str:
    return """
        -- Sessions other tools keep in git (Entire checkpoints), read by hansard.ingest.git_sources.
        -- What each store of refs was last read at, keyed by the repository's root commit (its
        -- identity on every machine) and the store (a branch such as
        -- refs/heads/entire/checkpoints/v1, or refs/entire/checkpoints for one ref per checkpoint):
        -- unchanged refs are not read again.
        CREATE TABLE git_source_refs (
            repo_root TEXT NOT NULL,
            store     TEXT NOT NULL,
            tips      TEXT NOT NULL,       -- hash of the store's (ref, tip) pairs
            read_at   TEXT NOT NULL,
            PRIMARY KEY (repo_root, store)
        ) WITHOUT ROWID;
        -- Which sessions a checkpoint kept: what an `Entire-Checkpoint:` trailer ties its commit
        -- to (hansard.link.commits.kept). Read from git, not from the archive, so a reindex
        -- leaves it alone.
        CREATE TABLE checkpoint_sessions (
            repo_root  TEXT NOT NULL,
            checkpoint TEXT NOT NULL,      -- Entire's 12-hex checkpoint id
            session_id TEXT NOT NULL,      -- sessions.session_id, as the agent's parser read it
            PRIMARY KEY (repo_root, checkpoint, session_id)
        ) WITHOUT ROWID;
    """


@migration
def m032_stats_cache() -> str:
    return """
        -- `hansard stats`: one file's why answer at a revision, summarised (lines by kind, session,
        -- message and commit), so a second run after a new commit answers again only the files
        -- whose content changed (hansard.answers.stats). A cache only: it can be emptied at any time.
        CREATE TABLE stats_cache (
            key        TEXT PRIMARY KEY,   -- hash of the path, its blob id, the summary's rules version and the schema
            generation INTEGER NOT NULL,   -- store_generation.n when it was computed: other generations are dropped
            path       TEXT NOT NULL,      -- repository-relative, for people reading the table
            blob       TEXT NOT NULL,      -- the file's git blob id at the revision
            summary    BLOB NOT NULL,      -- zlib-compressed JSON (hansard.answers.stats.summarise)
            used_at    INTEGER NOT NULL    -- unix seconds when it was remembered
        );
    """


@migration
def m033_edit_lines_covering() -> str:
    return """
        -- The hash index holds every column `why` reads of a matching line (edit_id and ordinal
        -- come with the table's key), so a lookup never visits the table: a common line matches
        -- thousands of edit lines, each a random read of the table before (hansard.store.sqlite.
        -- evidence; on entireio/cli's 108,000 edit lines, 21 lines' lookup from 13 to 1 ms warm).
        DROP INDEX edit_lines_hash;
        CREATE INDEX edit_lines_hash ON edit_lines(hash, side, trivial, exact);
    """


@migration
def m034_agent_trace() -> str:
    # Importing or replacing a record changes `why` answers (its `recorded`): the store generation,
    # part of every why_cache key, is bumped in the same transaction.
    triggers = "\n".join(
        f"CREATE TRIGGER generation_agent_trace_records_{e.lower()} AFTER {e} ON agent_trace_records BEGIN"
        " UPDATE store_generation SET n = n + 1; END;" for e in ("INSERT", "UPDATE", "DELETE"))
    return """
        -- Agent Trace records other tools wrote (`hansard trace import`, hansard.trace.read):
        -- recorded evidence that `why` shows beside its own, never evidence it decides by. Read
        -- from files the user named, not from the archive, so a reindex leaves them alone. Every
        -- string is stored redacted.
        CREATE TABLE agent_trace_records (
            id          TEXT PRIMARY KEY,  -- the record's own id (a UUID): importing it again replaces it
            digest      TEXT NOT NULL,     -- sha256 of the record as read: the same record again changes nothing
            revision    TEXT NOT NULL,     -- vcs.revision, a git commit id (lower case)
            tool        TEXT,              -- tool.name: who wrote the record
            tool_version TEXT,
            recorded_at TEXT NOT NULL,     -- the record's timestamp, as written
            source      TEXT,              -- the file it was imported from, as named
            imported_at TEXT NOT NULL,
            record      BLOB NOT NULL      -- the record as JSON (redacted), zlib-compressed
        ) WITHOUT ROWID;
        -- One line range of a record: lines start_line..end_line of path at the record's revision
        -- (line numbers of the file as that commit has it).
        CREATE TABLE agent_trace_ranges (
            record_id   TEXT NOT NULL REFERENCES agent_trace_records(id) ON DELETE CASCADE,
            revision    TEXT NOT NULL,     -- the record's, repeated: ranges are looked up by (revision, path)
            path        TEXT NOT NULL,     -- repository-relative, as the record writes it
            start_line  INTEGER NOT NULL,  -- 1-based, start_line <= end_line
            end_line    INTEGER NOT NULL,
            type        TEXT NOT NULL,     -- the contributor type: ai, human, mixed or unknown
            model       TEXT,              -- contributor.model_id
            url         TEXT,              -- the conversation's url
            session_id  TEXT               -- the session a hansard:// url names
        );
        CREATE INDEX agent_trace_ranges_at ON agent_trace_ranges (revision, path);
        CREATE INDEX agent_trace_ranges_record ON agent_trace_ranges (record_id);
    """ + triggers


@migration
def m035_shell_writes() -> str:
    return """
        -- The shell calls of a repository's sessions that could have written a file (a segment
        -- redirects, tees, or runs a program that is not plainly a read: hansard.facts.shell),
        -- kept by the link step (hansard.link.commits.kept) so that `why` asks which of them name
        -- a file without reading every shell call's input on each question. What they stand for
        -- is in shell_write_state: the repository's shell calls read (highest id, count).
        CREATE TABLE shell_writes (
            repo_id  INTEGER NOT NULL,
            call_row INTEGER NOT NULL,     -- tool_calls.id
            ts       REAL NOT NULL,        -- the call's time, seconds since the epoch (untimed calls are left out)
            command  TEXT NOT NULL,        -- the command line; the call's input JSON when it had none
            parsed   INTEGER NOT NULL,     -- 1: command is a command line; 0: the raw input (any mention counts)
            PRIMARY KEY (repo_id, call_row)
        ) WITHOUT ROWID;
        CREATE TABLE shell_write_state (
            repo_id    INTEGER PRIMARY KEY,
            calls_upto INTEGER NOT NULL,
            calls      INTEGER NOT NULL,
            generation INTEGER             -- store_generation.n when the calls were last counted
        );
    """


@migration
def m036_run_skip_reasons() -> str:
    return """
        -- What an index run skipped, by reason (JSON {reason: count}): the files it could not
        -- use (not a transcript, a checkpoint's missing transcript, unreadable) and the records,
        -- so that `status` says what the run said; the skips table keeps the records only.
        ALTER TABLE runs ADD COLUMN skip_reasons TEXT;
    """


@migration
def m037_origins() -> str:
    return """
        -- Where each session was read (hansard.agents.origin): NULL is this machine (an agent home,
        -- a file given to `hansard index`); otherwise what carried it. Derived from the source's
        -- key, so a reindex writes it again.
        ALTER TABLE sessions ADD COLUMN origin TEXT;       -- repository | repository_file | import
        ALTER TABLE sessions ADD COLUMN origin_repo TEXT;  -- repository: its root commit; repository_file: the work tree
        ALTER TABLE sessions ADD COLUMN origin_ref TEXT;   -- the refs read (a checkpoint branch) or the file
        -- A carried session's ids are kept apart (``<id>@<ns>``): the id its records claim.
        ALTER TABLE sessions ADD COLUMN claimed_id TEXT;
        CREATE INDEX sessions_claimed ON sessions(claimed_id) WHERE claimed_id IS NOT NULL;
        -- Sessions read from a repository's refs before their ids were kept apart may have been
        -- merged into this machine's, and their edits placed through path maps of their own:
        -- the next `hansard index` rebuilds the derived rows from the archive (as m021 does).
        UPDATE sources SET redactions = -1 WHERE path LIKE 'git:%' OR path LIKE '%/.specstory/history/%';
        -- What the checkpoints kept is read from git, not rebuilt: its sessions take the ids they
        -- are now stored under (the refs are not read again while their tips stand still), and
        -- the commit facts joined from them are worked out again.
        UPDATE checkpoint_sessions SET session_id = session_id || '@' || substr(repo_root, 1, 12)
            WHERE session_id NOT LIKE '%@%';
        DELETE FROM commit_ties;
        DELETE FROM commit_prints;
        DELETE FROM commit_facts;
    """


@migration
def m038_team_rows() -> str:
    return """
        -- Teammates' sessions and project memories, pulled from the team store through this
        -- member's role (hansard.team.pull) into these same tables, so that every question reads
        -- them as it reads this machine's. A row of id below zero in sessions, messages,
        -- tool_calls, edits (and the edit_lines of such an edit), memories and memory_versions is
        -- the team's: its id there, negated. The archive holds none of them (a teammate's
        -- transcripts stay on their machine): a reindex keeps them as they are, a push never
        -- sends them.
        ALTER TABLE sessions ADD COLUMN member TEXT;       -- a teammate's: the email the owner registered for them
        ALTER TABLE sessions ADD COLUMN member_name TEXT;  -- the name they give themselves
        ALTER TABLE memories ADD COLUMN member TEXT;
        ALTER TABLE memories ADD COLUMN member_name TEXT;
        -- Every session of the team's that the last pull saw, kept or not.
        CREATE TABLE team_sessions (
            team_row     INTEGER PRIMARY KEY,  -- the team store's sessions.id (this store's row: -team_row)
            session_id   TEXT NOT NULL,
            content_hash TEXT NOT NULL,        -- the pushed digest: an unchanged session is not pulled again
            member       TEXT NOT NULL,
            member_name  TEXT,
            kept         INTEGER NOT NULL      -- 0: left out, this store has a session of that id
        );
        -- Which team the rows are from and when they were pulled (one row at most).
        CREATE TABLE team_state (
            one       INTEGER PRIMARY KEY CHECK (one = 1),
            team      TEXT,                    -- the team's name
            url       TEXT NOT NULL,           -- the server (no password), with member and machine: rows of
            member    TEXT NOT NULL,           -- another team or member are dropped, not mixed
            machine   TEXT NOT NULL,
            roots     TEXT NOT NULL,           -- the opted-in repositories pulled (root commits, sorted, comma-joined)
            pulled_at TEXT,                    -- the last pull that finished (UTC)
            tried_at  TEXT NOT NULL,           -- the last attempt, finished or not
            error     TEXT                     -- why the last attempt failed (NULL: it did not)
        );
    """
