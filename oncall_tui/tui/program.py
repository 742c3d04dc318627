"""The app as the program (``oncall-tui`` with no command): run it, and say how it ended."""

from __future__ import annotations

from typing import NamedTuple

from oncall_tui.errors import OncallError
from oncall_tui.settings import Settings
from oncall_tui.tui.app import build_app
from oncall_tui.tui.exit_deadline import Defect, terminal_restorer
from oncall_tui.tui.typeahead import read_typeahead


class Ending(NamedTuple):
    """How the app ended, for the CLI to report."""

    failure: OncallError | None = None
    """What made it give up (a database it cannot open)."""
    unsent: str = ""
    """The composer's text then, which the CLI gives back."""
    defect: Defect | None = None
    """What Textual wrote of the error the app ended on (a defect), if any."""


def run_tui(settings: Settings) -> Ending:
    """Run the app; how it ended (the caller reports it)."""
    typeahead = read_typeahead()  # the terminal as the app found it, then, for a last resort
    app = build_app(
        settings, typeahead=typeahead, restore_terminal=terminal_restorer(), ends_process=True
    )
    try:
        app.run()
    finally:
        app.services.close()
    if app.failure is not None:
        return Ending(app.failure, app.unsent)
    app.unkept.print()
    return Ending(defect=app.defect)
