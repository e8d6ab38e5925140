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


# Every table whose rows a member writes. Each carries ``member_role``, the PostgreSQL role that
# wrote the row (``current_user``, never a value the client sends).
MEMBER_TABLES = ("members", "repos", "sessions", "messages", "tool_calls", "edits", "edit_lines", "memories",
                 "passage_vectors")


@migration
def t005_members_are_roles() -> str:
    own = "\n".join(f"""
        ALTER TABLE {t} ADD COLUMN member_role TEXT NOT NULL DEFAULT current_user;
        ALTER TABLE {t} ENABLE ROW LEVEL SECURITY;
        ALTER TABLE {t} FORCE ROW LEVEL SECURITY;
        CREATE POLICY member_rows ON {t}
            USING (member_role = current_user OR member_role = ANY ((SELECT hansard_teammates())::text[]))
            WITH CHECK (member_role = current_user);
        CREATE TRIGGER {t}_own_rows BEFORE UPDATE OR DELETE ON {t} FOR EACH ROW
            WHEN (OLD.member_role IS DISTINCT FROM session_user::text)
            EXECUTE FUNCTION hansard_refuse();""" for t in MEMBER_TABLES)
    return """
        -- A team is a group role (NOLOGIN); its members are login roles granted it, made by
        -- `hansard team add-member` (the database owner), which records each member's email.
        -- Neither table is written by members; each member reads its own rows of them.
        CREATE TABLE teams (name TEXT PRIMARY KEY, grp TEXT NOT NULL UNIQUE);
        CREATE TABLE team_members (
            role TEXT PRIMARY KEY,
            team TEXT NOT NULL REFERENCES teams(name),
            email TEXT NOT NULL,
            added_at TIMESTAMPTZ NOT NULL DEFAULT now(),
            UNIQUE (role, email)
        );
        ALTER TABLE teams ENABLE ROW LEVEL SECURITY;
        CREATE POLICY my_teams ON teams FOR SELECT USING (pg_has_role(current_user, grp, 'MEMBER'));
        ALTER TABLE team_members ENABLE ROW LEVEL SECURITY;
        CREATE POLICY my_registration ON team_members FOR SELECT USING (role = current_user);

        -- The roles that share a team (a group role of `teams`) with the current user. Every
        -- policy reads it as `= ANY ((SELECT hansard_teammates())::text[])`: an InitPlan, run once per
        -- table of a statement (not per row), and the planner sees one call, not the joins
        -- (inlined, they made planning a why query five times slower); plpgsql keeps its plan.
        CREATE FUNCTION hansard_teammates() RETURNS text[] LANGUAGE plpgsql STABLE AS $$
        BEGIN
            RETURN ARRAY(SELECT r.rolname::text FROM teams t JOIN pg_roles g ON g.rolname = t.grp
                JOIN pg_auth_members am ON am.roleid = g.oid JOIN pg_roles r ON r.oid = am.member
                WHERE pg_has_role(current_user, g.oid, 'MEMBER'));
        END $$;
        -- A teammate's row is visible (so an UPDATE or DELETE of it reaches this trigger rather
        -- than silently matching nothing): changing it is refused, loudly.
        CREATE FUNCTION hansard_refuse() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            RAISE EXCEPTION 'hansard: a member changes only its own rows (% of a row of % in %)',
                lower(TG_OP), OLD.member_role, TG_TABLE_NAME USING ERRCODE = 'insufficient_privilege';
        END $$;
""" + own + """
        -- Uniqueness is per member now: nobody learns of, or collides with, another team's rows.
        ALTER TABLE members DROP CONSTRAINT members_email_machine_key,
            ADD UNIQUE (member_role, email, machine), ADD UNIQUE (id, member_role);
        ALTER TABLE repos DROP CONSTRAINT repos_root_commit_key,
            ADD UNIQUE (member_role, root_commit), ADD UNIQUE (id, member_role);
        ALTER TABLE sessions ADD UNIQUE (id, member_role);
        ALTER TABLE messages ADD UNIQUE (id, member_role);
        ALTER TABLE edits ADD UNIQUE (id, member_role);
        -- A member row's email is the one the owner registered for that role (rows from before
        -- members were roles are left as they are: they belong to the owner who migrated).
        ALTER TABLE members ADD FOREIGN KEY (member_role, email) REFERENCES team_members(role, email) NOT VALID;
        -- Every reference carries member_role: a row can only point at rows of its own writer.
        ALTER TABLE sessions DROP CONSTRAINT sessions_member_id_fkey, DROP CONSTRAINT sessions_repo_id_fkey,
            ADD FOREIGN KEY (member_id, member_role) REFERENCES members(id, member_role),
            ADD FOREIGN KEY (repo_id, member_role) REFERENCES repos(id, member_role);
        ALTER TABLE messages DROP CONSTRAINT messages_session_row_fkey,
            ADD FOREIGN KEY (session_row, member_role) REFERENCES sessions(id, member_role) ON DELETE CASCADE;
        ALTER TABLE tool_calls DROP CONSTRAINT tool_calls_session_row_fkey,
            ADD FOREIGN KEY (session_row, member_role) REFERENCES sessions(id, member_role) ON DELETE CASCADE;
        ALTER TABLE edits DROP CONSTRAINT edits_session_row_fkey, DROP CONSTRAINT edits_repo_id_fkey,
            ADD FOREIGN KEY (session_row, member_role) REFERENCES sessions(id, member_role) ON DELETE CASCADE,
            ADD FOREIGN KEY (repo_id, member_role) REFERENCES repos(id, member_role);
        ALTER TABLE edit_lines DROP CONSTRAINT edit_lines_edit_id_fkey,
            ADD FOREIGN KEY (edit_id, member_role) REFERENCES edits(id, member_role) ON DELETE CASCADE;
        ALTER TABLE memories DROP CONSTRAINT memories_member_id_fkey, DROP CONSTRAINT memories_repo_id_fkey,
            ADD FOREIGN KEY (member_id, member_role) REFERENCES members(id, member_role),
            ADD FOREIGN KEY (repo_id, member_role) REFERENCES repos(id, member_role);
        ALTER TABLE passage_vectors DROP CONSTRAINT passage_vectors_message_id_fkey,
            ADD FOREIGN KEY (message_id, member_role) REFERENCES messages(id, member_role) ON DELETE CASCADE;
    """


# The text searches a member runs through the owner's rights (``t006_search_definer``), each
# with its argument types: EXECUTE is the team group roles' alone (``roles.create_team``).
SEARCH_FUNCTIONS = ("hansard_messages_matching(text, text[], text, text, text, text, integer)",
                    "hansard_messages_containing(text, text, text[], text, text, text, text, integer)",
                    "hansard_tool_calls_containing(text, text[], integer, text, text)")


@migration
def t006_search_definer() -> str:
    # Under a policy PostgreSQL evaluates no leaky qual before the policy's, and neither `@@` on
    # a tsvector nor LIKE/ILIKE is leakproof: as a member, team search and why's look into
    # teammates' shell commands read every row of the table and never their GIN index.
    # Whatever the policy's shape, only a qual the planner folds to
    # true leaves the text match free to be an index condition. So the owner (whom FORCE
    # holds) reads every row by a policy of its own, and these functions, owned by it, run
    # the match with its rights and keep the rows the *caller* reads (``session_user``: its
    # own and its teammates', as ``member_rows`` says) in the same statement, before any
    # LIMIT: an id of another team's row never leaves them, nor does its count. They return
    # ids only; the caller reads the rows under its own policy, which re-checks each one.
    funcs = ", ".join(f"'{f}'" for f in SEARCH_FUNCTIONS)
    return """
        -- The roles whose rows the session's user reads: its own and its teammates'
        -- (`member_rows` of t005, for the user who logged in; in a function of the owner's,
        -- current_user is the owner).
        CREATE FUNCTION hansard_readable() RETURNS text[] LANGUAGE plpgsql STABLE AS $$
        BEGIN
            RETURN ARRAY(SELECT session_user::text UNION SELECT r.rolname::text FROM teams t
                JOIN pg_roles g ON g.rolname = t.grp JOIN pg_auth_members am ON am.roleid = g.oid
                JOIN pg_roles r ON r.oid = am.member WHERE pg_has_role(session_user, g.oid, 'MEMBER'));
        END $$;

        -- Messages the caller reads, in repositories of these root commits, not of the
        -- member-machine (me_email, me_machine), within [since, until], whose words match the
        -- tsquery: at most lim of them (any: the caller takes the best), each with its rank for
        -- the tsquery and its time. Each statement is planned for its arguments (EXECUTE ...
        -- USING a constant text: nothing is spliced in): a word on half the rows is found
        -- faster by reading rows until lim match than through the index.
        CREATE FUNCTION hansard_messages_matching(tsq text, roots text[], me_email text, me_machine text,
                                                  since text, until text, lim integer)
        RETURNS TABLE (id bigint, score real, at text) LANGUAGE plpgsql STABLE SECURITY DEFINER AS $$
        BEGIN
            RETURN QUERY EXECUTE 'SELECT m.id, ts_rank(m.tsv, to_tsquery(''simple'', $1)), m.timestamp
            FROM messages m JOIN sessions s ON s.id = m.session_row
                JOIN members mb ON mb.id = s.member_id JOIN repos r ON r.id = s.repo_id
            WHERE m.tsv @@ to_tsquery(''simple'', $1) AND m.member_role = ANY ($7)
                AND r.root_commit = ANY ($2) AND NOT (mb.email = $3 AND mb.machine = $4)
                AND ($5::text IS NULL OR m.timestamp >= $5) AND ($6::text IS NULL OR m.timestamp <= $6)
            LIMIT $8' USING tsq, roots, me_email, me_machine, since, until, hansard_readable(), lim;
        END $$;
        -- The same for a text holding the ILIKE pattern (backslash escapes), ranked for the
        -- tsquery when there is one (0 otherwise).
        CREATE FUNCTION hansard_messages_containing(pattern text, tsq text, roots text[], me_email text,
                                                    me_machine text, since text, until text, lim integer)
        RETURNS TABLE (id bigint, score real, at text) LANGUAGE plpgsql STABLE SECURITY DEFINER AS $$
        BEGIN
            RETURN QUERY EXECUTE 'SELECT m.id, CASE WHEN $9::text IS NULL THEN 0.0::real
                ELSE ts_rank(m.tsv, to_tsquery(''simple'', $9)) END, m.timestamp
            FROM messages m JOIN sessions s ON s.id = m.session_row
                JOIN members mb ON mb.id = s.member_id JOIN repos r ON r.id = s.repo_id
            WHERE m.text ILIKE $1 AND m.member_role = ANY ($7)
                AND r.root_commit = ANY ($2) AND NOT (mb.email = $3 AND mb.machine = $4)
                AND ($5::text IS NULL OR m.timestamp >= $5) AND ($6::text IS NULL OR m.timestamp <= $6)
            LIMIT $8' USING pattern, roots, me_email, me_machine, since, until, hansard_readable(), lim, tsq;
        END $$;
        -- Ids of the caller's readable calls to these tools, in the repository of a row it
        -- reads (by root commit), not of (me_email, me_machine), whose input is LIKE pattern.
        CREATE FUNCTION hansard_tool_calls_containing(pattern text, tools text[], repo integer, me_email text,
                                                      me_machine text)
        RETURNS SETOF bigint LANGUAGE plpgsql STABLE SECURITY DEFINER AS $$
        BEGIN
            RETURN QUERY EXECUTE 'SELECT t.id FROM tool_calls t JOIN sessions s ON s.id = t.session_row
                JOIN members mb ON mb.id = s.member_id JOIN repos r ON r.id = s.repo_id
            WHERE t.input LIKE $1 AND t.name = ANY ($2) AND t.member_role = ANY ($6)
                AND r.root_commit IN (SELECT y.root_commit FROM repos y WHERE y.id = $3 AND y.member_role = ANY ($6))
                AND NOT (mb.email = $4 AND mb.machine = $5)' USING pattern, tools, repo, me_email, me_machine,
                hansard_readable();
        END $$;

        DO $$
        DECLARE f text; t text;
        BEGIN
            FOREACH f IN ARRAY ARRAY[""" + funcs + """] LOOP
                -- A function run with the owner's rights resolves names in this schema only.
                EXECUTE format('ALTER FUNCTION %s SET search_path = %I, pg_temp', f, current_schema());
                EXECUTE format('REVOKE EXECUTE ON FUNCTION %s FROM PUBLIC', f);
            END LOOP;
            FOREACH t IN ARRAY ARRAY['members', 'repos', 'sessions', 'messages', 'tool_calls'] LOOP
                EXECUTE format('CREATE POLICY owner_reads ON %I FOR SELECT TO %I USING (true)', t, current_user);
            END LOOP;
        END $$;
    """


@migration
def t007_session_origins() -> str:
    return """
        -- Where the member's hansard read each session (hansard.agents.origin): NULL is that member's
        -- machine; 'repository' a repository's checkpoint refs (origin_ref names them), or
        -- 'repository_file' a history file of its work tree. claimed_id: the id such a session claims
        -- (its own is kept apart). Shown beside the member on every answer that names the session.
        ALTER TABLE sessions ADD COLUMN origin TEXT;
        ALTER TABLE sessions ADD COLUMN origin_ref TEXT;
        ALTER TABLE sessions ADD COLUMN claimed_id TEXT;
    """
