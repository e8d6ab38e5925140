"""The documented bounds of every MCP tool argument, checked before a tool runs.

Always true of an argument that reaches a tool: it has the JSON type its schema declares (an
integral float such as ``5.0`` counts as an integer, nothing else is coerced), a string is
valid Unicode (no lone UTF-16 surrogate, no NUL but in ``text``) and at most as long as its
declaration allows (``maxLength`` in the tool's schema, from ``hansard.app.commands``; else
``DEFAULT_MAX_CHARS``), an integer lies in ``INT_MIN..INT_MAX``, a list has at most
``MAX_ITEMS`` items, and a search query has at most ``MAX_QUERY_TERMS`` terms. Anything else is
``invalid_argument`` naming the field and the limit, never the value (a 50 MB argument is not
echoed back). docs/commands.md lists each bound beside its parameter.
"""

from __future__ import annotations

from typing import Any

from hansard.errors import InvalidArgument

# A JSON-RPC message (one line on stdin) larger than this is refused unread.
MAX_MESSAGE_BYTES = 64 * 1024 * 1024
# Search cost grows faster than the query's length; past a few hundred terms no ranking is
# better for the extra words.
MAX_QUERY_TERMS = 256
MAX_ITEMS = 16
# SQLite integers are 64-bit; every integer argument here is a count, an index or an offset.
INT_MIN, INT_MAX = -(2**31), 2**31 - 1
DEFAULT_MAX_CHARS = 4096
QUERY_FIELDS = frozenset({"query"})
# Only a captured delivery is stored as given; everywhere else a NUL reaches the OS or SQLite.
NUL_ALLOWED = frozenset({"text"})


def lone_surrogate(s: str) -> bool:
    """Does ``s`` hold a UTF-16 surrogate code point (valid in JSON escapes, not in Unicode)?"""
    if s.isascii():
        return False
    try:
        s.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def find_surrogate(value: Any, where: str = "") -> str | None:
    """The path of the first string holding a lone surrogate inside ``value``, or None.
    Iterative: a message nested deeper than Python recurses is still walked."""
    stack: list[tuple[Any, str]] = [(value, where)]
    while stack:
        v, at = stack.pop()
        if isinstance(v, str):
            if lone_surrogate(v):
                return at or "(value)"
        elif isinstance(v, dict):
            for k, item in v.items():
                if isinstance(k, str) and lone_surrogate(k):
                    return f"{at}.{k!a}" if at else repr(k)
                stack.append((item, f"{at}.{k}" if at else str(k)))
        elif isinstance(v, list):
            stack.extend((item, f"{at}[{i}]") for i, item in enumerate(v))
    return None


def _bad(field: str, message: str) -> InvalidArgument:
    return InvalidArgument(f"{field}: {message}", field=field)


def _types(schema: dict[str, Any]) -> list[dict[str, Any]]:
    """The alternatives a property's schema allows (pydantic writes ``X | None`` as anyOf)."""
    return list(schema["anyOf"]) if "anyOf" in schema else [schema]


_JSON_NAMES = {str: "a string", bool: "a boolean", int: "an integer", float: "a number", list: "an array",
               dict: "an object", type(None): "null"}


def _check_value(field: str, value: Any, alts: list[dict[str, Any]]) -> Any:
    """``value`` as the tool receives it, or InvalidArgument."""
    wanted = []
    for alt in alts:
        t = alt.get("type")
        if "enum" in alt or "const" in alt:
            allowed = alt.get("enum", [alt.get("const")])
            if isinstance(value, str) and value in allowed:
                return value
            wanted.append("one of " + ", ".join(map(str, allowed)))
            continue
        wanted.append(t or "any")
        if t is None:
            return value
        if t == "null" and value is None:
            return value
        if t == "string" and isinstance(value, str):
            limit = int(alt.get("maxLength") or DEFAULT_MAX_CHARS)
            if len(value) > limit:
                raise _bad(field, f"at most {limit:,} characters (got {len(value):,})")
            if lone_surrogate(value):
                raise _bad(field, "holds a lone UTF-16 surrogate escape; send valid Unicode text")
            if "\0" in value and field not in NUL_ALLOWED:
                raise _bad(field, "holds a NUL character (no path, id or search word has one)")
            if field in QUERY_FIELDS:
                terms = len(value.split())
                if terms > MAX_QUERY_TERMS:
                    raise _bad(field, f"at most {MAX_QUERY_TERMS} terms (got {terms:,}); search with fewer words")
            return value
        if t == "boolean" and isinstance(value, bool):
            return value
        if t == "integer" and not isinstance(value, bool) and isinstance(value, (int, float)):
            if isinstance(value, float) and not (value.is_integer()):
                continue
            if not INT_MIN <= value <= INT_MAX:
                raise _bad(field, f"must be between {INT_MIN:,} and {INT_MAX:,}")
            return int(value)
        if t == "number" and not isinstance(value, bool) and isinstance(value, (int, float)):
            return value
        if t == "array" and isinstance(value, list):
            if len(value) > MAX_ITEMS:
                raise _bad(field, f"at most {MAX_ITEMS} items (got {len(value):,})")
            items = _types(alt.get("items") or {})
            return [_check_value(field, v, items) for v in value]
        if t == "object" and isinstance(value, dict):
            return value
    got = _JSON_NAMES.get(type(value), type(value).__name__)
    raise _bad(field, f"must be {' or '.join(dict.fromkeys(wanted))}, not {got}")


def check_arguments(schema: dict[str, Any], arguments: dict[str, Any]) -> dict[str, Any]:
    """``arguments`` checked against a tool's input schema and the bounds above; the checked
    values (integral floats as integers). Unknown arguments are dropped, as the SDK does."""
    props: dict[str, Any] = schema.get("properties") or {}
    missing = [name for name in schema.get("required") or () if name not in arguments]
    if missing:
        raise _bad(missing[0], "is required")
    out: dict[str, Any] = {}
    for name, value in arguments.items():
        spec = props.get(name)
        if spec is None:
            continue
        out[name] = _check_value(name, value, _types(spec))
    return out
