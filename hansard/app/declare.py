"""A command declared once: its parameters (name, type, default, help, how the CLI spells it,
its bounds) and its answer's result type, from which the CLI's argparse options, the MCP tool's
input schema and result type, and the tables of docs/commands.md are all produced.

Always true: a declaration is plain data, built from ``__slots__`` classes and the types of
``typing`` (loaded on every CLI start anyway), so declaring every command costs `hansard why` no
import; the result type is named as ``"module:attribute"`` and imported only where it is needed
(the MCP server's schema, the docs). A parameter's ``name`` is the answer's keyword and the MCP
tool's argument; the CLI may spell it otherwise (``flag``) or take it as a positional argument.
A text the declaration cannot know without the agent registry (an agent's name in a help text)
is a function, called only when that text is shown.
"""

from __future__ import annotations

import types
from typing import TYPE_CHECKING, Any, Literal, Union, get_args, get_origin

if TYPE_CHECKING:
    import argparse
    import inspect
    from collections.abc import Callable, Sequence

    Text = str | Callable[[], str]


class _Required:
    """The default of a parameter that must be given."""

    def __repr__(self) -> str:
        return "REQUIRED"


REQUIRED: Any = _Required()
HIDDEN = "==SUPPRESS=="  # argparse's help of an option it accepts but does not list

Only = Literal["cli", "mcp"]
Kind = Literal["repo", "path", "session"]


def text(t: Text | None) -> str:
    """A help text, called when it is a function."""
    return "" if t is None else t if isinstance(t, str) else t()


class Param:
    """One parameter.

    ``type`` is a runtime type: ``str``, ``int``, ``float``, ``bool``, ``Literal[...]``,
    ``list[str]``, each optionally ``| None``. ``flag`` is the CLI's spelling (default
    ``--name-with-dashes``; a ``bool`` whose default is True is turned off by its flag, whose
    help then reads "do not" and the help);
    ``positional`` makes it a CLI argument (optional when it has a default; a list takes every
    word); ``words``: the CLI's words joined by spaces into one text; ``split``: the CLI's value
    split at this separator into a list; ``among``: the values a text (or each item of a list)
    may take, the ``Literal`` of the MCP schema and the docs (built only there, not on every
    CLI start); ``choices``: the CLI's allowed values, from a function
    when only the agent registry knows them; ``max_chars``: the longest text (each item's, for a
    list) an MCP call may pass; ``bounds``: an integer's least and greatest values; ``only``
    keeps it to one adapter; ``kind`` says what a value names, for the MCP server's scope:
    ``repo`` a path inside the repository the question is about, ``path`` a file of it,
    ``session`` a session id or prefix."""

    __slots__ = ("name", "type", "default", "help", "flag", "positional", "metavar", "only", "max_chars", "bounds",
                 "among", "choices", "words", "split", "kind")

    def __init__(self, name: str, type: Any, default: Any = REQUIRED, help: Text = "", *,
                 flag: str | None = None, positional: bool = False, metavar: str | None = None,
                 only: Only | None = None, max_chars: int | None = None, bounds: tuple[int, int] | None = None,
                 among: tuple[str, ...] | None = None, choices: Callable[[], Sequence[str]] | None = None,
                 words: bool = False, split: str | None = None, kind: Kind | None = None) -> None:
        self.name = name
        self.type = type
        self.default = default
        self.help = help
        self.flag = flag
        self.positional = positional
        self.metavar = metavar
        self.only = only
        self.max_chars = max_chars
        self.bounds = bounds
        self.among = among
        self.choices = choices
        self.words = words
        self.split = split
        self.kind = kind

    @property
    def required(self) -> bool:
        return self.default is REQUIRED

    def cli_flag(self) -> str:
        return self.flag or "--" + self.name.replace("_", "-")

    def full_type(self) -> Any:
        """The type with ``among`` as a ``Literal`` (of a list's items, for a list)."""
        if self.among is None:
            return self.type
        t, optional = _base(self.type)
        lit: Any = Literal.__getitem__(self.among)
        full: Any = list[lit] if get_origin(t) is list else lit
        return full | None if optional else full


# Per-request options an adapter offers around an answer, not the question's parameters: what
# they mean is the application layer's (hansard.app.house).
OPTIONS: dict[str, tuple[str, str]] = {
    "json": ("--json", "print the answer as JSON"),
    "sync": ("--no-sync", "do not run the incremental index first"),
    "cache": ("--no-cache", "answer afresh: neither read nor keep a cached answer"),
}


class Command:
    """One command. ``name`` is the CLI's words (``memory search`` is ``search`` under
    ``memory``); ``help`` the CLI's one line; ``tool`` the MCP tool's name (None: no tool) and
    ``about`` its description (what an agent reads); ``result`` the answer's result type as
    ``"module:attribute"`` (None: the command prints text only); ``options`` the per-request
    options the CLI offers (``OPTIONS``), ``option_help`` this command's own words for one;
    ``cli``: whether the CLI has it.

    An answer the application asks on its own (``hansard.app.house.Request.ask``, every adapter
    then serving it with no code of its own) names its function as ``answer``
    (``"module:function"``, called with the store and the declared parameters); ``text`` the
    function that writes its result for a terminal (default: its JSON); ``where`` the parameter
    naming the repository it is about (with the ``sync`` option, the store is brought up to date
    first, and that repository registered and its commit facts kept); ``local``: it reads this
    machine's store alone, not the team's."""

    __slots__ = ("name", "help", "params", "result", "tool", "about", "options", "option_help", "cli", "answer",
                 "text", "where", "local")

    def __init__(self, name: str, help: Text, params: tuple[Param, ...] = (), *,
                 result: str | None = None, tool: str | None = None, about: Text = "",
                 options: tuple[str, ...] = (), option_help: dict[str, str] | None = None, cli: bool = True,
                 answer: str | None = None, text: str | None = None, where: str | None = None,
                 local: bool = False) -> None:
        self.name = name
        self.help = help
        self.params = params
        self.result = result
        self.tool = tool
        self.about = about
        self.options = options
        self.option_help = option_help or {}
        self.cli = cli
        self.answer = answer
        self.text = text
        self.where = where
        self.local = local

    def of(self, adapter: Only) -> tuple[Param, ...]:
        return tuple(p for p in self.params if p.only in (None, adapter))

    @property
    def words(self) -> list[str]:
        return self.name.split()

    def option(self, name: str) -> tuple[str, str]:
        flag, about = OPTIONS[name]
        return flag, self.option_help.get(name, about)


def resolve(ref: str) -> Any:
    """The object a ``"module:attribute"`` names."""
    import importlib

    module, _, attr = ref.partition(":")
    return getattr(importlib.import_module(module), attr)


def _base(t: Any) -> tuple[Any, bool]:
    """(the type without ``None``, whether ``None`` was allowed)."""
    if get_origin(t) in (Union, types.UnionType):
        args = [a for a in get_args(t) if a is not type(None)]
        return (args[0] if len(args) == 1 else Union[tuple(args)]), len(args) < len(get_args(t))  # noqa: UP007
    return t, False


# -- the CLI -------------------------------------------------------------------------------------


def add_arguments(sp: argparse.ArgumentParser, cmd: Command, integer: Callable[[str], int]) -> None:
    """The command's CLI options on its subparser, then its per-request options. ``integer``
    parses an integer option (the CLI's bounds)."""
    for p in cmd.of("cli"):
        t, _ = _base(p.type)
        item = get_args(t)[0] if get_origin(t) is list else None
        kw: dict[str, Any] = {"help": text(p.help) or None}
        if p.metavar:
            kw["metavar"] = p.metavar
        if p.among is not None:
            kw["choices"] = list(p.among)
        elif p.choices is not None:
            kw["choices"] = list(p.choices())
        if t is bool and p.default is True:  # its flag turns it off
            kw["action"], kw["help"] = "store_false", kw["help"] and "do not " + kw["help"]
        elif t is bool:
            kw["action"] = "store_true"
        elif t is int:
            kw["type"] = integer
        elif t is float:
            kw["type"] = float
        elif item is not None and p.split:
            sep = p.split
            kw["type"] = lambda v, sep=sep: [x.strip() for x in v.split(sep) if x.strip()]
        elif item is not None:
            if p.positional:
                kw["nargs"] = "*" if not p.required else "+"
            else:
                kw["action"] = "append"
        elif p.words:
            kw["nargs"] = "*"
        if not p.required and t is not bool and not p.words:
            kw["default"] = p.default
        if p.positional:
            if not p.required and "nargs" not in kw:
                kw["nargs"] = "?"
            sp.add_argument(p.name, **kw)
        else:
            sp.add_argument(p.cli_flag(), dest=p.name, **kw)
    for o in cmd.options:
        flag, about = cmd.option(o)
        sp.add_argument(flag, action="store_true", help=about)


def arguments(cmd: Command, ns: argparse.Namespace) -> dict[str, Any]:
    """The answer's keyword arguments from a parsed command line (a ``words`` parameter's words
    joined)."""
    out = {p.name: getattr(ns, p.name) for p in cmd.of("cli")}
    for p in cmd.of("cli"):
        if p.words:
            out[p.name] = " ".join(out[p.name] or ())
    return out


# -- the MCP tool --------------------------------------------------------------------------------


def _annotated(p: Param) -> Any:
    """The parameter's type as the MCP SDK reads it: its description and its bounds."""
    from typing import Annotated

    from pydantic import Field

    t, optional = _base(p.full_type())
    limits: dict[str, Any] = {}
    if p.bounds is not None:
        limits = {"ge": p.bounds[0], "le": p.bounds[1]}
    if get_origin(t) is list and p.max_chars is not None:
        item = get_args(t)[0]
        t = list[Annotated[item, Field(max_length=p.max_chars)]]  # type: ignore[valid-type]
    elif p.max_chars is not None:
        limits["max_length"] = p.max_chars
    full = t | None if optional else t
    about = text(p.help)
    return Annotated[full, Field(description=about or None, **limits)]


def signature(cmd: Command, untyped: Any) -> inspect.Signature:
    """The MCP tool's signature: its parameters with their descriptions and bounds (the SDK
    builds the input schema from it) and, as its return, ``CallToolResult`` validated as the
    result type (``untyped`` for a command that declares none)."""
    import inspect
    from typing import Annotated

    from mcp.types import CallToolResult

    params = []
    for p in cmd.of("mcp"):
        default = inspect.Parameter.empty if p.required else p.default
        params.append(inspect.Parameter(p.name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=_annotated(p)))
    result = resolve(cmd.result) if cmd.result else untyped
    return inspect.Signature(params, return_annotation=Annotated[CallToolResult, result])


def tool_function(cmd: Command, call: Callable[..., Any], untyped: Any) -> Callable[..., Any]:
    """An async function with the tool's signature that awaits ``call(**arguments)``: what the
    MCP SDK registers as the tool."""

    async def tool(**kw: Any) -> Any:
        return await call(**kw)

    tool.__name__ = tool.__qualname__ = cmd.tool or cmd.name
    tool.__signature__ = signature(cmd, untyped)  # type: ignore[attr-defined]
    tool.__doc__ = text(cmd.about)
    return tool


# -- the docs ------------------------------------------------------------------------------------


def _type_text(t: Any) -> str:
    base, optional = _base(t)
    if get_origin(base) is Literal:
        out = " \\| ".join(f"`{a}`" for a in get_args(base))
    elif get_origin(base) is list:
        item = get_args(base)[0]
        out = "list of " + (_type_text(item) if get_origin(item) is Literal else getattr(item, "__name__", str(item)))
    else:
        out = getattr(base, "__name__", str(base))
    return out + (" or null" if optional else "")


def _cell(s: str) -> str:
    return s.replace("|", "\\|").replace("\n", " ")


def table(cmd: Command) -> str:
    """The command's parameters as the Markdown table docs/commands.md carries."""
    title = f"`hansard {cmd.name}`" if cmd.cli else "no CLI command"
    rows = [f"### {title}" + (f" (MCP `{cmd.tool}`)" if cmd.tool else ""), "", _cell(text(cmd.help))]
    if cmd.params:
        rows += ["", "| parameter | CLI | MCP | type | default | at most | meaning |", "|---|---|---|---|---|---|---|"]
    for p in cmd.params:
        if text(p.help) == HIDDEN:
            continue
        cli = "" if p.only == "mcp" or not cmd.cli else (p.metavar or p.name.upper()) if p.positional \
            else f"`{p.cli_flag()}`"
        mcp = "" if p.only == "cli" or not cmd.tool else f"`{p.name}`"
        default = "required" if p.required else f"`{p.default!r}`" if p.default is not None else ""
        most = f"{p.max_chars:,} characters" if p.max_chars is not None and p.only != "cli" and cmd.tool else \
            f"{p.bounds[0]}..{p.bounds[1]}" if p.bounds else ""
        rows.append(f"| `{p.name}` | {cli} | {mcp} | {_type_text(p.full_type())} | {default} | {most} "
                    f"| {_cell(text(p.help))} |")
    if cmd.result:
        module, _, name = cmd.result.partition(":")
        rows += ["", f"Result: `{name}` (`{module}`)."]
    if cmd.options and cmd.cli:
        rows += ["", "CLI options: " + ", ".join(f"`{cmd.option(o)[0]}`" for o in cmd.options) + "."]
    while rows[-1] == "":
        rows.pop()
    return "\n".join(rows) + "\n"


def document(commands: Sequence[Command]) -> str:
    """docs/commands.md: every command's table, in the CLI's order."""
    head = ("# hansard: commands and their parameters\n\n"
            "Each table is produced from the command's one declaration (`hansard/app/commands.py`), which also\n"
            "builds its CLI options, its MCP tool's input schema (with the bounds in \"at most\") and its result\n"
            "type. `tests/test_declarations.py` checks that this file says the same; `python scripts/commands_doc.py`\n"
            "writes it again.\n")
    return head + "".join("\n" + table(c) for c in commands)
