"""Agent Trace (github.com/cursor/agent-trace, CC BY 4.0): a vendor-neutral JSON record of
which conversation wrote which line ranges of a commit's files, which Cursor and other tools
write. Records reach hansard as files a person names (`hansard trace import FILE|DIR`), not from
git; they are read by :mod:`hansard.trace.read` (the specification's schema, vendored, in
``hansard/trace/schema``) and kept in the store, and `hansard trace export` writes them from
hansard's own answers.

Like the other recorders, a record is *recorded* evidence: `why` shows it beside a line's answer
(``recorded: {"by": "agent-trace", …}``) and says where it disagrees (``disagrees_with``), and
never decides a line on its strength."""

from __future__ import annotations

from hansard.agents.record import Recorder

RECORDER = Recorder(name="agent-trace", display="Agent Trace records", reader="hansard.trace.read:parse_record")
