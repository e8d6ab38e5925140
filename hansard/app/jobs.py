"""Background work that the adapters (the CLI, the MCP server) start on behalf of an answer: the
answers themselves never start a process. Today one job: the meaning-search vector builder, a
detached ``hansard embed``, at most one at a time (its lock, ``embed.lock`` in the hansard
home, is taken by the builder and checked here)."""

from __future__ import annotations

import os
import subprocess
import sys


def start_embed() -> bool:
    """Start ``hansard embed`` detached, unless one is running or this is turned off
    (HANSARD_NO_BACKGROUND=1). Returns whether a process was started."""
    if os.environ.get("HANSARD_NO_BACKGROUND"):
        return False
    from hansard.ingest.embed import take_embed_lock

    fd = take_embed_lock()
    if fd is None:
        return False  # a builder is already at work
    os.close(fd)
    subprocess.Popen([sys.executable, "-m", "hansard", "embed", "--quiet"], stdin=subprocess.DEVNULL,
                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    return True
