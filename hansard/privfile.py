"""Files only their owner may read, written whole or not at all: a temporary file beside the
target (0600, a name no other writer picks), synced, then renamed over it. A reader sees the
old content or the new, never half of either."""

from __future__ import annotations

import os
import secrets


def write_private(path: str | os.PathLike[str], data: bytes) -> None:
    path = os.fspath(path)
    head, name = os.path.split(path)
    tmp = os.path.join(head, f".{name}.{secrets.token_hex(4)}.tmp")
    fd = os.open(tmp, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
