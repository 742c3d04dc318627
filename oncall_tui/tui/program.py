"""The app as the program (``oncall-tui`` with no command): run it, and say how it ended."""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, NamedTuple

from oncall_tui.errors import Language, OncallError
from oncall_tui.settings import Settings
from oncall_tui.texts import text
from oncall_tui.tui.app import build_app
from oncall_tui.tui.exit_deadline import Defect, HandBack, terminal_restorer
from oncall_tui.tui.typeahead import read_typeahead

if TYPE_CHECKING:
    from oncall_tui.services.container import Services


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
    unsaved = HandBack("")
    try:
        app.run()
        unsaved = unsaved_answers(app.services, settings.lang)
    finally:
        app.services.close()
    unsaved.print()  # an answer no database and no file took: here, not lost
    if app.failure is not None:
        return Ending(app.failure, app.unsent)
    app.unkept.print()
    return Ending(defect=app.defect)


def unsaved_answers(services: Services, lang: Language) -> HandBack:
    """The answers neither the database nor a file took (the spool refused them), printed
    after the app has left the terminal: they end with the process. ctrl+q lost them unsaid."""
    unsaved = HandBack(text("cli.tui.unsaved_answer", lang))
    with contextlib.suppress(Exception):  # (a spool that cannot be read holds nothing here)
        unsaved.text = "\n\n".join(services.held_only_in_memory())
    return unsaved
