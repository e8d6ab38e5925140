"""Filter arguments shared by search and transcript reads: time bounds, roles, repositories.

Times in the store are ISO-8601 UTC strings (``2026-04-24T19:03:55.497Z``), which sort as
text. A bound is turned into the same form once, so a filter is a string comparison.

- A date-only value (``2026-04-24``) covers that whole day on the local clock: ``since``
  starts at local midnight, ``until`` ends at the next local midnight.
- A date-time must carry its UTC offset (``2026-04-24T15:00+02:00`` or ``...Z``). A naive
  one is refused (:class:`NaiveDateTime`): guessing its zone would silently move the window.
"""

from __future__ import annotations

import datetime as dt
import os
import re
import sqlite3
from collections.abc import Iterable, Sequence

from hansard.errors import InvalidArgument, InvalidDate, NaiveDateTime

ROLES = ("user", "assistant", "tool", "system")
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def _utc_text(t: dt.datetime) -> str:
    """Second precision, no zone suffix: compares correctly with stored values that carry
    milliseconds and a ``Z`` (a shorter common prefix sorts first)."""
    return t.astimezone(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S")


def _local_midnight(d: dt.date) -> dt.datetime:
    # A naive local time -> aware, with the offset in force on that date (DST-correct).
    return dt.datetime(d.year, d.month, d.day).astimezone()


def parse_bound(value: str | None, *, end: bool, name: str) -> str | None:
    """``since``/``until`` -> the UTC text to compare with. ``since`` is inclusive
    (stored >= bound); ``until`` is exclusive (stored < bound)."""
    if value is None or str(value).strip() == "":
        return None
    v = str(value).strip()
    if _DATE.match(v):
        try:
            d = dt.date.fromisoformat(v)
        except ValueError as exc:
            raise InvalidDate(f"{name}: {v!r} is not a valid date ({exc})", argument=name) from None
        start = _local_midnight(d)
        if end:
            start = _local_midnight(d + dt.timedelta(days=1))
        return _utc_text(start)
    try:
        t = dt.datetime.fromisoformat(v.replace(" ", "T", 1) if " " in v and "T" not in v else v)
    except ValueError:
        raise InvalidDate(
            f"{name}: {v!r} is not a date (YYYY-MM-DD) or a date-time with a UTC offset "
            "(YYYY-MM-DDTHH:MM+HH:MM or ...Z)", argument=name,
        ) from None
    if t.tzinfo is None or t.utcoffset() is None:
        raise NaiveDateTime(
            f"{name}: {v!r} has no UTC offset. Add one (e.g. {v}Z or {v}+02:00), "
            "or give a date alone for the whole local day", argument=name,
        )
    if end:
        # Inclusive of the second named: stored < bound + 1s, at second precision.
        t = t.replace(microsecond=0) + dt.timedelta(seconds=1)
    return _utc_text(t)


def local_time(ts: str | None) -> str | None:
    """A stored UTC timestamp on the local clock, with its offset."""
    if not ts:
        return None
    try:
        t = dt.datetime.fromisoformat(ts.replace("Z", "+00:00"))
    except ValueError:
        return None
    if t.tzinfo is None:
        t = t.replace(tzinfo=dt.timezone.utc)
    return t.astimezone().isoformat(timespec="seconds")


def parse_roles(roles: str | Sequence[str] | None) -> tuple[str, ...] | None:
    """A list, or a comma-separated string. ``user`` means the person's own messages:
    role user, without the injected ``meta`` records (command output, caveats)."""
    if roles is None:
        return None
    items = roles.split(",") if isinstance(roles, str) else list(roles)
    out = tuple(dict.fromkeys(r.strip().lower() for r in items if r and r.strip()))
    if not out:
        return None
    bad = [r for r in out if r not in ROLES]
    if bad:
        raise InvalidArgument(f"unknown role(s) {', '.join(bad)}; use {', '.join(ROLES)}", argument="roles")
    return out


def roles_sql(roles: Iterable[str] | None, alias: str = "m") -> tuple[str, list[str]]:
    if not roles:
        return "", []
    parts = []
    args: list[str] = []
    for r in roles:
        if r == "user":
            parts.append(f"({alias}.role='user' AND {alias}.kind!='meta')")
        else:
            parts.append(f"{alias}.role=?")
            args.append(r)
    return "(" + " OR ".join(parts) + ")", args


def clamp(value: int | None, default: int, lo: int, hi: int, name: str) -> int:
    if value is None:
        return default
    try:
        v = int(value)
    except (TypeError, ValueError):
        raise InvalidArgument(f"{name} must be a whole number, not {value!r}", argument=name) from None
    if v < lo:
        raise InvalidArgument(f"{name} must be at least {lo}", argument=name)
    return min(v, hi)


def resolve_repo(db: sqlite3.Connection, repo: str | None) -> list[int] | None:
    """``repo`` -> the repos rows it names: a path inside a checkout (matched by path, then by
    root commit), a folder name, or part of the remote URL. [] when nothing matches.
    Never writes: a repository hansard has not seen simply has no sessions."""
    if repo is None or str(repo).strip() == "":
        return None
    r = str(repo).strip()
    ids: list[int] = []
    p = os.path.abspath(os.path.expanduser(r))
    if os.path.exists(p):
        from hansard.git.identity import find_toplevel

        tops = find_toplevel(p if os.path.isdir(p) else os.path.dirname(p))
        if tops is not None:
            for top in dict.fromkeys(tops):
                ids += [x[0] for x in db.execute("SELECT id FROM repos WHERE path=?", (top,))]
            if not ids:
                try:
                    from hansard.git.identity import identify

                    ident = identify(tops[1])
                except Exception:  # noqa: BLE001 - git missing or broken: match by name below
                    ident = None
                if ident is not None and ident.root_commit:
                    ids += [x[0] for x in db.execute("SELECT id FROM repos WHERE root_commit=?", (ident.root_commit,))]
            if ids:
                return sorted(set(ids))
    name = r.rstrip("/")
    rows = db.execute(
        "SELECT id FROM repos WHERE path=? OR path LIKE ? ESCAPE '\\' OR remote=? OR remote LIKE ? ESCAPE '\\'",
        (name, "%/" + _like_escape(name), name, "%/" + _like_escape(name)),
    ).fetchall()
    return sorted({x[0] for x in rows})


def _like_escape(s: str) -> str:
    return s.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def now_utc_text() -> str:
    return dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
