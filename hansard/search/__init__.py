"""Search over the store: secondary indexes on the same tables, same ``message_index``.

Core functions (plain dicts in, JSON-ready dicts out; argument names are the MCP contract):

- ``sessions.search_past_sessions(db, query, repo, provider, since, until, roles, tool, command, file,
  commit, include_subagents, include_web_chats, include_team_sessions, team, hits_per_session,
  group_revisions, mode, limit, *, exclude_session_id=None)``
- ``transcript.get_past_session(db, session_id, around, roles, limit, next, group_revisions,
  max_message_chars, content_offset, max_chars)``
- ``memories.search_memories(db, query, repo, provider, source)``
- ``memories.get_memory(db, memory_id, line, offset)``

Modules: ``query`` (user text -> safe FTS5), ``filters`` (time bounds, roles, repos),
``keyword`` (FTS5 + trigram ranking), ``meaning`` (optional embeddings), ``hybrid`` (RRF),
``text`` (excerpts, revision keys), ``status`` (index freshness), ``render`` (CLI text).
Nothing here is imported by ``hansard.cli`` at start-up; each command imports what it uses.
"""
