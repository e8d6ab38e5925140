"""Agent Trace records checked against the specification's own JSON schema (draft 2020-12,
vendored in ``schema/trace-record.json``, see its README), with hansard's own checks of the
formats the schema names, so a record is judged the same whichever optional format packages
are installed: ``uuid`` (any RFC 4122 text form), ``date-time`` (RFC 3339, with its offset) and
``uri`` (a scheme, no spaces).

jsonschema is imported only here, and only by `hansard trace`.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path
from typing import Any

SCHEMA = Path(__file__).resolve().parent / "schema" / "trace-record.json"

_RFC3339 = re.compile(r"^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$")
_URI = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*:[^\s]*$")


def _uuid(v: object) -> bool:
    if not isinstance(v, str):
        return True  # the schema's "type" says what a non-string is
    import uuid

    try:
        uuid.UUID(v)
    except ValueError:
        return False
    return True


def _date_time(v: object) -> bool:
    if not isinstance(v, str):
        return True
    if not _RFC3339.match(v):
        return False
    from datetime import datetime

    try:
        datetime.fromisoformat(v.replace("z", "Z").replace("t", "T"))
    except ValueError:
        return False
    return True


def _uri(v: object) -> bool:
    return not isinstance(v, str) or bool(_URI.match(v))


@lru_cache(maxsize=1)
def _validator() -> Any:
    import json

    from jsonschema import Draft202012Validator, FormatChecker

    checker = FormatChecker(formats=())
    checker.checks("uuid")(_uuid)
    checker.checks("date-time")(_date_time)
    checker.checks("uri")(_uri)
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema, format_checker=checker)


def schema() -> dict[str, Any]:
    """The vendored schema."""
    out: dict[str, Any] = _validator().schema
    return out


def problems(record: Any, limit: int = 3) -> list[str]:
    """Where ``record`` breaks the schema (at most ``limit``, each as ``path: message``); empty
    when it is a valid trace record."""
    out = []
    for err in _validator().iter_errors(record):
        where = "/".join(str(p) for p in err.absolute_path) or "(record)"
        msg = err.message if len(err.message) <= 200 else err.message[:200] + "…"
        out.append(f"{where}: {msg}")
        if len(out) >= limit:
            break
    return out
