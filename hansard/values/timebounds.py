"""Time bounds (``since``/``until``) and the one timestamp format the store uses.

Every since/until in hansard (search filters, session lists, code_history, work_context) is
read here, so one value names one instant everywhere:

- a date ``YYYY-MM-DD`` is that whole day on the local clock: ``since`` starts at local
  midnight, ``until`` includes the whole day (it ends at the next local midnight);
- a date-time must carry its UTC offset (``2026-04-24T15:00+02:00`` or ``...Z``). A naive one
  is refused (:class:`~hansard.errors.NaiveDateTime`): guessing its zone would silently move
  the window. ``until`` includes the second it names;
- anything else is refused (:class:`~hansard.errors.InvalidDate`).

Both errors are ``invalid_argument`` errors. Stored times are UTC text
(``2026-04-24T19:03:55.497Z``), which sorts as text.
"""

from __future__ import annotations

import datetime as dt
import re
import time

_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
# The finest precision of a stored timestamp: an inclusive end is this much before the
# exclusive one.
_TICK = dt.timedelta(milliseconds=1)
# A commit's time has whole seconds; an edit in the same second may still precede it.
CLOCK_SLACK_S = 1.0


def parse_ts(ts: str | None) -> float | None:
    """Seconds since the epoch of a stored ISO timestamp; None when absent or unreadable."""
    if not ts:
        return None
    try:
        return dt.datetime.fromisoformat(ts.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None


def utc_stamp(epoch: float | None = None) -> str:
    """``2026-04-24T19:03:55Z``: now (or ``epoch``) as the store writes run, audit and memory times."""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(epoch))


def _local_midnight(d: dt.date) -> dt.datetime:
    # A naive local time -> aware, with the offset in force on that date (DST-correct).
    return dt.datetime(d.year, d.month, d.day).astimezone()


def _parse(value: str | None, *, end: bool, name: str) -> dt.datetime | None:
    """The bound as an aware instant: ``since`` inclusive, ``until`` exclusive."""
    from hansard.errors import InvalidDate, NaiveDateTime

    if value is None or str(value).strip() == "":
        return None
    v = str(value).strip()
    if _DATE.match(v):
        try:
            d = dt.date.fromisoformat(v)
        except ValueError as exc:
            raise InvalidDate(f"{name}: {v!r} is not a valid date ({exc})", argument=name) from None
        return _local_midnight(d + dt.timedelta(days=1) if end else d)
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
        t = t.replace(microsecond=0) + dt.timedelta(seconds=1)
    return t


def since_text(value: str | None, name: str = "since") -> str | None:
    """The stored-time text a timestamp must be at or after (``stored >= bound``)."""
    t = _parse(value, end=False, name=name)
    return None if t is None else _text(t)


def until_text(value: str | None, name: str = "until") -> str | None:
    """The stored-time text a timestamp must be before (``stored < bound``)."""
    t = _parse(value, end=True, name=name)
    return None if t is None else _text(t)


def until_epoch(value: str | None, name: str = "until") -> float | None:
    """The last instant ``until`` includes, as Unix time (``ts <= bound``): the same instant
    :func:`until_text` ends before, less the store's finest tick."""
    t = _parse(value, end=True, name=name)
    return None if t is None else (t - _TICK).timestamp()


def _text(t: dt.datetime) -> str:
    """Second precision, no zone suffix: compares correctly with stored values that carry
    milliseconds and a ``Z`` (a shorter common prefix sorts first)."""
    return t.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%S")


def local_time(ts: str | None) -> str | None:
    """A stored UTC timestamp on the local clock, with its offset."""
    if not ts:
        return None
    try:
        t = dt.datetime.fromisoformat(ts.replace("Z", "+00:00"))
    except ValueError:
        return None
    if t.tzinfo is None:
        t = t.replace(tzinfo=dt.UTC)
    return t.astimezone().isoformat(timespec="seconds")
