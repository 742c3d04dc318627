"""The composer's text kept across the app's end (``services/drafts.py``), as the chat pane
keeps it.

Claimed just after the first frame (:meth:`ComposerDraft.claim`), in a thread: the file is read
back into the composer and the status line says so. From then on each change of the composer
starts a one-second interval that writes its text in a thread and stops at its first tick with
nothing new; the app's end writes it once more and reads it back: what the file does not hold
(a full disk, no slot free) is printed back after the app (:meth:`ComposerDraft.keep_now`).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import TYPE_CHECKING

from textual.timer import Timer

from oncall_tui.errors import joined
from oncall_tui.texts import text as t
from oncall_tui.tui.commands import keys_to_say
from oncall_tui.tui.panes.part import StatusPart
from oncall_tui.tui.service_calls import in_thread
from oncall_tui.tui.widgets.composer import Composer
from oncall_tui.tui.widgets.lang import ui_lang
from oncall_tui.tui.widgets.status_line import StatusLine

if TYPE_CHECKING:
    from oncall_tui.services.container import Services

DRAFT_SECONDS = 1.0
"""The composer's text is kept at most this long after it changes (and quitting waits at most
this long for it to be written)."""


class ComposerDraft(StatusPart):
    """Keeps ``composer``'s text for the next start; ``sending()`` says whether a text is on
    its way (it leaves the composer once stored)."""

    def __init__(
        self,
        services: Services,
        composer: Composer,
        status: StatusLine,
        sending: Callable[[], bool],
    ) -> None:
        super().__init__(services, composer, status)
        self._composer = composer
        self._sending = sending
        self._keeping = False
        """This app keeps the draft (it claimed it)."""
        self._prompt_note: str | None = None
        """What the start said of a prompt's kept edits, until the editor takes them."""
        self._written = ""
        """The text last given to be written: the file is behind while the composer's differs
        (an empty composer has nothing to write)."""
        self._generation = 0
        """Of the last writing given: one that comes late loses to a later one."""
        self._timer: Timer | None = None

    def claim(self) -> None:
        """Take the draft kept when the app last ended, if no other app has it, and put it in
        the composer (see :meth:`_claimed`)."""
        services = self._services

        def claim() -> tuple[str, bool] | None:  # in a thread: the module, the disk
            drafts = services.drafts
            if not drafts.claim():
                return None
            return drafts.read(), drafts.read_prompt() is not None

        self._calls.start(claim, self._claimed)

    def _claimed(self, claimed: tuple[str, bool] | None) -> None:
        """The draft read back (``None``: not this app's to keep): in an empty composer as it
        is; before text typed ahead; after text already on its way, which leaves the composer
        once stored, as always. The status line says so, of the app, not of a session, and
        says too that a prompt's unsaved edits are kept (the prompt editor opens on them)."""
        if claimed is None:  # another app keeps it, or there is nowhere to
            return
        kept, prompt_kept = claimed
        self._keeping = True
        said = []
        composer = self._composer
        if kept.strip():
            if not composer.text:
                composer.text = kept
                composer.move_cursor(composer.document.end)
            elif not self._sending():  # typed ahead: it goes on after the draft
                composer.insert(kept + "\n", (0, 0))
            else:
                composer.insert("\n" + kept, composer.document.end)
            said.append(t("draft.restored", ui_lang(composer)))
        elif composer.text:  # typed before the claim: kept too
            self.changed()
        if prompt_kept:
            keys = keys_to_say("prompts", self._services.settings.keymap)
            self._prompt_note = t("draft.prompt_kept", ui_lang(composer), keys=keys)
            said.append(self._prompt_note)
        if said:
            self._status.say_also(joined(ui_lang(composer), *said))

    def prompt_taken(self) -> None:
        """The prompt editor opened on the kept edits: the start's words of them go."""
        if self._prompt_note is not None:
            self._status.withdraw(self._prompt_note)
            self._prompt_note = None

    def changed(self) -> None:
        """The composer's text changed."""
        if self._keeping and self._timer is None:
            self._timer = self._composer.set_interval(DRAFT_SECONDS, self._tick)

    def _tick(self) -> None:
        if self._composer.text == self._written:
            if self._timer is not None:
                self._timer.stop()
                self._timer = None
            return
        self._composer.run_worker(self._write(), thread=True, group="draft", exit_on_error=False)

    async def keep_now(self) -> str | None:
        """The app is ending: the text is written (a disk that hangs is waited for no longer
        than :data:`DRAFT_SECONDS`: the exit deadline is near), and read back. The composer's
        text when the file does not hold it (a full disk, no slot free to keep it in, larger
        than a draft can be, a disk that did not answer), for the app to hand back; ``None``
        when it is kept, or there is none."""
        text = self._composer.text
        write = None
        if self._keeping and text != self._written:  # (keys in the quit's own read may have
            write = self._write()  # changed it before the pane heard of it)
        elif not text.strip():
            return None
        drafts = self._services.drafts

        def keep() -> bool:
            if write is not None:
                write()
            return not text.strip() or drafts.read() == text

        kept = False
        with contextlib.suppress(TimeoutError):
            kept = await asyncio.wait_for(in_thread(keep), DRAFT_SECONDS)
        return None if kept or not text.strip() else text

    def _write(self) -> Callable[[], bool]:
        """Writing the composer's text as it is now; writings that come late lose to it."""
        self._generation += 1
        drafts, text, generation = self._services.drafts, self._composer.text, self._generation
        self._written = text
        return lambda: drafts.keep(text, generation)
