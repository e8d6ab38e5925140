"""What hansard tells a person who asks about a repository it has no session of: where it
looked for transcripts, what each place held, and the environment variables that point it
elsewhere. Without any session, no line can be called a person's: `why` fails closed."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Mapping

    from hansard.answers.results import NoSessions, Searched
    from hansard.store.interfaces import Store


def no_sessions(store: Store) -> NoSessions:
    """The ``notice`` of an answer about a repository with no archived session."""
    from hansard import agents
    from hansard.answers.agents_status import agent_status

    env = sorted({v for a in agents.agents() for v in a.home_env} | {"HANSARD_HOME"})
    homes: list[Searched] = [{"agent": s["name"], "homes": s["homes"], "found": s["found"], "sessions": s["sessions"]}
                             for s in agent_status(store)]
    held = sum(h["sessions"] for h in homes)
    return {
        "code": "no_sessions",
        "message": ("no archived session ran in this repository, so no line can be called a person's: they are"
                    f" unknown (the store holds {held} session{'s' if held != 1 else ''} of other repositories)"
                    if held else "the store holds no session at all, so no line can be called a person's: they are"
                    " unknown; run `hansard index`, or point hansard at the agents' homes"),
        "searched": homes,
        "env": env,
    }


def no_sessions_text(notice: Mapping[str, Any]) -> str:
    """The notice as a few lines for a terminal."""
    lines = [f"hansard: {notice['message']}."]
    for h in notice["searched"]:
        if h["homes"]:
            state = f"{h['sessions']} sessions" if h["sessions"] else ("found, nothing indexed" if h["found"] else "absent")
            lines.append(f"  {h['agent']:12} {', '.join(h['homes'][:2])} ({state})")
    lines.append("  set " + ", ".join(notice["env"]) + " to look elsewhere")
    return "\n".join(lines)
