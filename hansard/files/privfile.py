"""Files hansard writes, whole or not at all and never through a link.

Always true of a file written here: its bytes go to a temporary file beside the target that
this call created new (``O_CREAT | O_EXCL | O_NOFOLLOW``, under a random name: a file or a
symlink planted at that name is refused, never followed or overwritten), are synced, and the
temporary file is then renamed over the target. A rename replaces whatever has the target's
name, a symlink included, and never writes where a link points; a reader sees the old content
or the new, never half of either. Every folder hansard writes into that someone else can put
names in (``trace export --out``, the demo's folder, an agent's config folder) is written this
way; the folders beside the store are too.
"""

from __future__ import annotations

import os
import secrets

_FLAGS = os.O_CREAT | os.O_EXCL | os.O_WRONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)


def write_file(path: str | os.PathLike[str], data: bytes, mode: int = 0o644) -> None:
    """``data`` as the file at ``path``, created with ``mode`` (less the umask)."""
    path = os.fspath(path)
    head, name = os.path.split(path)
    tmp = os.path.join(head, f".{name}.{secrets.token_hex(6)}.tmp")
    fd = os.open(tmp, _FLAGS, mode)
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


def write_private(path: str | os.PathLike[str], data: bytes) -> None:
    """``write_file`` for a file only its owner may read (0600)."""
    write_file(path, data, 0o600)
