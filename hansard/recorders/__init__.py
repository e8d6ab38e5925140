"""The registry of recorders: tools that record in git who wrote a commit or which of its lines
(notes refs, commit trailers, Agent Trace records), not whole sessions. None is an agent: each
is read beside the agents, and what it records is shown beside `why`'s answers
(hansard.answers.why.recorded), never decides one.

Each module named in ``RECORDERS`` exports ``RECORDER`` (a hansard.agents.record.Recorder). The
agents' commit trailers are read in ``hansard.agents.trailers``: their table of the identities
each agent signs commits with names agents, which only the agents' room does.
"""

from __future__ import annotations

import importlib
from functools import cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from hansard.agents.record import Recorder

RECORDERS = ("hansard.recorders.git_ai", "hansard.recorders.qwen_code", "hansard.agents.trailers",
             "hansard.recorders.agent_trace")


@cache
def recorders() -> tuple[Recorder, ...]:
    return tuple(importlib.import_module(mod).RECORDER for mod in RECORDERS)
