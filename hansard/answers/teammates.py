"""Whether a question reads teammates' sessions and memories (the rows pulled from the team
store, hansard.team), as the recall contract says: listings and searches leave them out unless
``include_team_sessions`` is set or ``team`` names this member's team; `why`, `log`,
`context`, `show` and `stats` read them always.

Always true: the answer says why teammates' rows are left out when they were asked for (no
team's rows here, another team named), and how old they are when the last pull failed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from hansard.store.interfaces import Store

NOT_PULLED = ("this store holds no team sessions (no team is configured, or none was pulled yet:"
              " `hansard team pull`)")


def wanted(store: Store, include: bool, team: str | None) -> tuple[bool, str | None]:
    """(read teammates' rows, the notice to give): they are read when asked for and this store
    holds a team's rows, of the team named when one is."""
    named = (team or "").strip()
    if not include and not named:
        return False, None
    state = store.team.state()
    if state is None:
        return False, NOT_PULLED
    if named and named != state["team"]:
        return False, f"no team named {named!r} here (this member's team is {state['team']!r})"
    if state["error"]:
        return True, (f"team sessions as pulled at {state['pulled_at'] or 'no time yet'}: the team server did not"
                      f" answer since ({state['error']})")
    return True, None


def team_name(store: Store) -> str | None:
    """The name of the team whose rows this store holds."""
    state = store.team.state()
    return state["team"] if state is not None else None
