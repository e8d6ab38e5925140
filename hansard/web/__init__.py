"""`hansard ui`: a local, read-only web page over one repository: the
repository's stats as charts, a file with its lines' sessions in a gutter and the conversation
that wrote a line beside it, a session's transcript, and search.

Always true: the server listens on 127.0.0.1 only, answers GET and HEAD alone, and serves a
request only when it carries the random token (in the URL, or the cookie the first page sets)
and names this server as its Host; every string from a transcript, git or a file reaches the
page HTML-escaped (``hansard.web.html``); the page names no session that ran in another
repository and serves only redacted text, the same rules as `hansard mcp serve --scope repo`.
Only ``hansard.web.core`` calls hansard's core; ``app`` routes are thin adapters over it.
"""
