"""A one-line input for a file path, with shell-like completion of the last component.

The completion is offered as the input's inline suggestion (listed off the UI thread), taken
with → at the end; ctrl+t completes what is typed when it is pressed, whether or not the
suggestion has caught up with it. Tab is left alone: it moves the focus, as everywhere else.
ctrl+t reaches the app unchanged in tmux, screen and xterm alike.
"""

from __future__ import annotations

import asyncio
import os
from typing import TYPE_CHECKING, ClassVar

from textual.binding import Binding, BindingType
from textual.suggester import Suggester

from oncall_tui.tui.key_order import hold_keys_for
from oncall_tui.tui.widgets.in_order import InOrderInput
from oncall_tui.tui.widgets.lang import translate_bindings

if TYPE_CHECKING:
    from textual.worker import Worker

COMPLETE_KEY = "ctrl+t"


def complete_path(value: str) -> str | None:
    """Complete the last component of a typed path, keeping what was typed (``~`` too), as a
    shell does: as far as every entry it may be agrees (``skills-examples/`` holds five folders:
    nothing; ``log`` before ``log-analysis/`` and ``logs/``: ``log``, nothing more).

    Directories complete with a trailing ``/``; hidden entries only when asked for with ``.``.
    """
    if not value:
        return None
    directory, prefix = os.path.split(os.path.expanduser(value))
    try:
        with os.scandir(directory or ".") as entries:
            names = sorted(
                entry.name + ("/" if entry.is_dir() else "")
                for entry in entries
                if entry.name.startswith(prefix)
                and (prefix.startswith(".") or not entry.name.startswith("."))
            )
    except OSError:
        return None
    common = os.path.commonprefix(names)  # noqa: RUF071 (names of one folder, by character)
    return value + common[len(prefix) :] if len(common) > len(prefix) else None


class PathSuggester(Suggester):
    """Suggest file system completions; the directory is listed off the UI thread."""

    def __init__(self) -> None:
        super().__init__(use_cache=False, case_sensitive=True)

    async def get_suggestion(self, value: str) -> str | None:
        return await asyncio.to_thread(complete_path, value)


class PathInput(InOrderInput):
    """An input for a file path whose completion key is shown in the footer."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(COMPLETE_KEY, "complete", "Complete path", id="path.complete"),
    ]

    def __init__(
        self, *, id: str | None = None, placeholder: str = "", classes: str | None = None
    ) -> None:
        super().__init__(
            id=id,
            placeholder=placeholder,
            classes=classes,
            suggester=PathSuggester(),
            select_on_focus=False,  # typing handed here as the focus comes is kept, not selected
        )
        translate_bindings(self, {"path.complete": "path.key.complete"})

    def type_key(self, key: str, character: str | None) -> None:
        """A key typed for the field that the list beside it received (:mod:`.typing_on`): the
        focus comes here, a character is inserted, Enter submits and Backspace deletes, as if
        typed here; other keys are dropped. The focus moves at once, not after a refresh as
        ``focus()`` moves it: the list's keys among those behind (``a``) are typing then."""
        self.screen.set_focus(self)
        if key == "enter":
            self.post_message(self.Submitted(self, self.value))
        elif key == "backspace":
            self.action_delete_left()
        elif character is not None and character.isprintable():
            self.insert_text_at_cursor(character)

    def type_text(self, text: str) -> None:
        """A paste the list beside it received: it goes here, as a paste here."""
        self.screen.set_focus(self)
        self.insert_pasted(text)

    def action_complete(self) -> None:
        """Complete the path as typed now, not the suggestion on offer, which may still be
        that of a shorter text (ctrl+t typed right behind the path); the keys typed behind
        ctrl+t (Enter) wait for it. The bell when there is nothing to complete."""
        self.action_end()
        value = self.value

        async def complete() -> None:
            await self._complete(value)

        work: Worker[None] = self.run_worker(complete, group="complete", exit_on_error=False)
        hold_keys_for(self.app, work)

    async def _complete(self, value: str) -> None:
        completion = await asyncio.to_thread(complete_path, value)
        if self.value != value:  # typed on meanwhile
            return
        if completion is None:
            self.app.bell()
        else:
            self.value = completion
            self.action_end()
