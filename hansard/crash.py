"""What the CLI does with an exception it did not expect (a bug): the traceback goes to a log
file, under ``$HANSARD_HOME/logs/`` when that can be written (else the system's temporary
folder), and the person sees one line naming what failed and where the traceback is. Imported
only when a command has already failed."""

from __future__ import annotations

import errno
import os
import time
import traceback

from hansard.errors import DiskFull, HansardError, InternalError, StoreHomeUnusable, StoreReadOnly


def unusable_home(path: str) -> StoreHomeUnusable:
    """The error for a store folder at ``path`` that a file is in the way of (the folder itself,
    or one of its parents, is a file)."""
    block = path
    while block and not os.path.exists(block) and os.path.dirname(block) != block:
        block = os.path.dirname(block)
    return StoreHomeUnusable(f"hansard's folder {path} cannot be made or used: {block} is a file, not a folder; "
                             "point HANSARD_HOME at a folder (or move the file)")


def home_error(exc: BaseException) -> HansardError | None:
    """The typed error for an operating-system error on a path inside the store's folder (a
    file where the folder should be, a read-only or full disk), or None."""
    from hansard import config

    if not isinstance(exc, OSError) or not exc.filename:
        return None
    home = os.path.abspath(str(config.hansard_home()))
    name = os.path.abspath(os.fsdecode(exc.filename))
    if name != home and not name.startswith(home + os.sep) and not home.startswith(name + os.sep):
        return None
    if exc.errno in (errno.EEXIST, errno.ENOTDIR):
        return unusable_home(home)
    if exc.errno in (errno.EROFS, errno.EACCES, errno.EPERM):
        return StoreReadOnly(f"hansard's folder {home} cannot be written ({exc.strerror}: {name})")
    if exc.errno == errno.ENOSPC:
        return DiskFull(f"no space left for hansard's folder {home}")
    return None


def _log_folders() -> list[str]:
    import tempfile

    from hansard import config

    return [os.path.join(str(config.hansard_home()), "logs"), tempfile.gettempdir()]


def report(command: str, exc: BaseException) -> InternalError:
    """Write ``exc``'s traceback to a log file and return the one-line error that names it."""
    text = "".join(traceback.format_exception(exc))
    name = time.strftime("crash-%Y%m%dT%H%M%S", time.gmtime()) + f"-{os.getpid()}.log"
    where = None
    for folder in _log_folders():
        try:
            os.makedirs(folder, mode=0o700, exist_ok=True)
            path = os.path.join(folder, name if folder.endswith("logs") else "hansard-" + name)
            fd = os.open(path, os.O_CREAT | os.O_WRONLY | os.O_EXCL, 0o600)
            with os.fdopen(fd, "w") as fh:
                fh.write(f"hansard {command}\n{text}")
            where = path
            break
        except OSError:
            continue
    said = f"{type(exc).__name__}: {exc}".splitlines()[0][:200]
    kept = f"the traceback is in {where}" if where else "the traceback could not be written anywhere"
    return InternalError(f"`hansard {command}` failed unexpectedly ({said}); {kept}. "
                         "This is a bug: please report it with that file", log=where)
