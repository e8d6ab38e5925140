"""The team store: PostgreSQL, shared by every member of a team.

It holds what members chose to share and nothing else: for the repositories each member opted
in, their sessions, messages, tool calls, applied edits with their line hashes, already
redacted on the member's machine. Never the raw archive. Rows are keyed by member (git
``user.email`` and a machine id) and by repository identity (root commit), never by a path of
one machine. psycopg is imported only here and in :mod:`hansard.team`, so local commands of a
member with no team configured never load it.
"""
