"""Keys go where the key before them led.

A key that opens a screen (alt+s, f3), moves the focus (alt+l, Tab, ctrl+n in the prompt
editor) or closes a dialog (Enter in the export dialog) acts once it has gone through the
widget with the focus, and a binding of the screen or the app acts only once the key has
come back up to the app. The keys that came with it in one read (a fast typist, a paste,
``tmux send-keys``, a slow link) had been handed to the old widget by then: ``alt+l long
Enter`` sent "long" to the model as a chat message.

:class:`KeyOrderApp` holds the keys and pastes that arrive behind a key some binding may act
on (any binding, not switched off, on the way from the focused widget up to the app), until
that key has been handled and the focus has settled; then it gives them, in order, to the
widget that has the focus then. Handled: each widget on the key's way has processed it, and
then what that posted there (``Input.Submitted``, the screen's answer to it…), a few rounds.
Settled: the work an action started for where it leads (:meth:`KeyOrderApp.hold_keys_for`: a
dialog shown after a database read, a flow of the prompt editor) has ended or shown a screen,
and a screen pushed meanwhile is mounted with its focus set. A character no binding takes is
not held: typing is not slowed.
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import Iterable
from typing import Any, Protocol, runtime_checkable

from textual import events
from textual.app import App
from textual.message_pump import MessagePump
from textual.screen import Screen
from textual.worker import Worker

log = logging.getLogger(__name__)

HOLD_SECONDS = 2.0
"""The longest keys are held: a key whose handling does not end (work it started that goes on,
a widget removed before it ran) delays the ones behind it no longer than this. On a loaded
machine a screen can take most of a second to mount; the keys for it wait that long."""
ROUNDS = 4
"""Rounds waited along the key's way: the key itself, then up to three steps of what its
handling posted (the session filter's Enter: submitted, then the list's "open this session",
then the screen's focus on the composer)."""

WORK_POLL_SECONDS = 0.01
"""How often the work a key started is looked at (it has no event to wait on for a screen
it shows)."""
ESC = "\x1b"

Held = events.Key | events.Paste


@runtime_checkable
class ClosedByKeysUnder(Protocol):
    """A screen read over another that a key of the screen under it closes (see
    :meth:`KeyOrderApp._closed_for_the_screen_under`)."""

    @property
    def closed_for_key_under(self) -> bool:
        """It was closed so (it may not be popped yet)."""
        ...

    def close_for_key_under(self) -> bool:
        """Close, unanswered; ``False``: it may not be closed so (an answer has begun)."""
        ...


class KeyOrderApp(App[None]):
    """An app whose keys act in order, each where the key before it led (see the module)."""

    def __init__(self) -> None:
        super().__init__()
        self._held: deque[Held] = deque()
        self._settling: asyncio.Task[None] | None = None
        """Waits for the key being handled; the keys behind it are held meanwhile."""
        self._delivering = False
        self._refused = False
        """The key being handled was refused (:meth:`refuse_keys_behind`)."""
        self._work: list[tuple[Worker[Any], Screen[object]]] = []
        """Work the key being handled started for where it leads (:meth:`hold_keys_for`), each
        with the screen that was on top when it started."""

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, Held) and not event.is_forwarded:  # from the terminal
            if self._settling is not None:
                self._held.append(event)
            else:
                await self._deliver(event)
            return
        await super().on_event(event)

    async def _deliver(self, event: Held) -> None:
        """Give ``event`` to the focused widget (or a priority binding), as Textual does; hold
        what comes next while a binding may act on it."""
        if isinstance(event, events.Key) and (typed := self._typed_after_escape(event)):
            await self._deliver(events.Key("escape", ESC))
            if self._settling is not None:  # the Esc closed a dialog: the key goes after it
                self._held.appendleft(typed)
            else:
                await self._deliver(typed)
            return
        if isinstance(event, events.Key) and self._closed_for_the_screen_under(event):
            return
        bound = isinstance(event, events.Key) and self._bound(event.key)
        screen, focused = self.screen, self.focused
        self._delivering = True  # a priority binding's action runs in here
        try:
            await super().on_event(event)
        finally:
            self._delivering = False
        if bound or (self.screen, self.focused) != (screen, focused):
            target = self.focused or self.screen
            way: list[MessagePump] = [*target.ancestors_with_self] if event.is_forwarded else [self]
            self._settling = asyncio.get_running_loop().create_task(self._settle(way, screen))

    def _closed_for_the_screen_under(self, key: events.Key) -> bool:
        """Whether the screen on top, read over another (the keys help, the summary, a question
        over the chat: :class:`ClosedByKeysUnder`), was closed for ``key``, none of its own
        keys and one of the screen's under it: ctrl+s over the summary did nothing, and the
        file name typed behind it went to the composer, its Enter sending it to the model.
        The key acts under it once it is gone, and the keys behind it wait for where it
        leads."""
        screen, stack = self.screen, self.screen_stack
        if not isinstance(screen, ClosedByKeysUnder) or len(stack) < 2:
            return False
        if key.key in screen.active_bindings or key.key not in stack[-2].active_bindings:
            return False
        if not screen.close_for_key_under():
            return False
        self._held.appendleft(key)
        self._settling = asyncio.get_running_loop().create_task(self._settle([self], screen))
        return True

    def _typed_after_escape(self, key: events.Key) -> events.Key | None:
        """The letter typed after Esc where ``key`` is Esc and a letter (:func:`escape_then`):
        always when it came in two reads, and where no binding takes it when in one."""
        typed = escape_then(key)
        if typed is not None and (key.character is not None or not self._bound(key.key)):
            return typed
        return None

    def _bound(self, key: str) -> bool:
        """Whether a binding on the way from the focused widget to the app takes ``key`` (one
        whose action is switched off now does not)."""
        return key in self.screen.active_bindings

    async def _settle(self, way: list[MessagePump], screen: Screen[object]) -> None:
        try:
            await asyncio.wait_for(self._settled(way, screen), HOLD_SECONDS)
        except TimeoutError:
            log.warning("keys held %.1f s behind one still being handled; let go", HOLD_SECONDS)
        finally:
            if not self.call_later(self._release):  # the app is closing
                self._settling = None

    async def _settled(self, way: list[MessagePump], screen: Screen[object]) -> None:
        """Once the key has been handled along ``way`` (and what that posted there); the work
        started for where it leads (:meth:`hold_keys_for`: a dialog after a database read, a
        screen's first load) has ended or put up a screen; and a screen pushed (or uncovered)
        meanwhile has been mounted and has set its focus."""
        await self._handled(way)
        while self.screen is screen and self._closed_over(screen):  # dismissed: it is popped soon
            await asyncio.sleep(WORK_POLL_SECONDS)
        while True:
            work, self._work = self._work, []
            if work:  # each waited for while the screen it started on is on top
                while any(self.screen is on and not each.is_finished for each, on in work):
                    await asyncio.sleep(WORK_POLL_SECONDS)
                await self._handled([*self._focus_way()])  # what the work did as it ended
            if self.screen is not screen:
                screen = self.screen
                await processed(screen)  # composed and mounted: its first focus is set
                await processed(self)  # and the focus it asked for on mount
            elif not self._work:
                return

    async def _handled(self, way: list[MessagePump]) -> None:
        for _ in range(ROUNDS):
            for node in way:
                await processed(node)
            way = [*self._focus_way()]  # where the focus is now: a dialog may have closed
            if not any(node.message_queue_size for node in way):
                return

    @staticmethod
    def _closed_over(screen: Screen[object]) -> bool:
        return isinstance(screen, ClosedByKeysUnder) and screen.closed_for_key_under

    def _focus_way(self) -> Iterable[MessagePump]:
        return (self.focused or self.screen).ancestors_with_self

    def hold_keys_for(self, work: Worker[Any]) -> None:
        """Called by an action that leads somewhere only once ``work`` is done (a dialog shown
        after a database read), or by a screen's first load as it mounts: the keys behind the
        one being handled wait for it to end or to show a screen (:data:`HOLD_SECONDS` at
        most). Work is tied to the screen on top as it starts: a screen's first load, started
        while the key that opened the screen is still being settled, is waited for too (the
        prompt editor's keys went to its list while it loaded)."""
        if self._settling is not None or self._delivering:
            self._work.append((work, self.screen))

    def refuse_keys_behind(self) -> None:
        """Called by an action refused where it would have led somewhere (the export of a
        session not started): the keys behind it go on where the focus is, but an Enter among
        them does not act there (it rings the bell). The file name typed behind ctrl+s was
        sent to the model; it stays in the composer."""
        if self._settling is not None or self._delivering:
            self._refused = True

    async def _release(self) -> None:
        """On the app's loop: the held keys, in order, until one is held on again."""
        self._settling = None
        self._work.clear()
        refused, self._refused = self._refused, False
        while self._held and self._settling is None:
            event = self._held.popleft()
            if refused and isinstance(event, events.Key) and event.key == "enter":
                self.bell()
                continue
            await self._deliver(event)


def escape_then(event: events.Key) -> events.Key | None:
    """The key typed after Esc, where ``event`` is alt and a letter or digit, which a terminal
    sends as ESC and the letter: ``None`` for any other key.

    Esc typed and then ``t`` is those same bytes. In two reads (a typist's two keys), Textual
    waits for what follows an ESC (``ESCDELAY``, 100 ms: a typist's pace) and reports alt+t
    *with* the character: it is Esc and ``t``, always (alt pressed with ``t`` comes in one
    read). In one read (a slow link; or alt+t itself), :mod:`~oncall_tui.tui.terminal_input`
    made it alt+t *without* a character: a binding that takes it acts, and where none does,
    Esc and ``t`` are what was meant. The model picker closed by Esc and a word typed at once
    had stayed open, the word its filter, and the Enter behind it chose a model; in the
    composer the Esc was lost."""
    name = event.key.removeprefix("alt+")
    shifted = name.removeprefix("shift+")
    if name == event.key or len(shifted) != 1 or not ("a" <= shifted <= "z" or shifted.isdigit()):
        return None
    character = shifted.upper() if shifted != name else shifted
    return events.Key(character, character)


async def processed(node: MessagePump) -> None:
    """Return once ``node`` has processed what is in its queue now (at once if it is closed)."""
    done: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    def reached() -> None:
        if not done.done():
            done.set_result(None)

    if node.call_later(reached):
        await done


def hold_keys_for(app: App[Any], work: Worker[Any]) -> None:
    """:meth:`KeyOrderApp.hold_keys_for` in an app that orders its keys (not a test's host)."""
    if isinstance(app, KeyOrderApp):
        app.hold_keys_for(work)


def refuse_keys_behind(app: App[Any]) -> None:
    """:meth:`KeyOrderApp.refuse_keys_behind` in an app that orders its keys."""
    if isinstance(app, KeyOrderApp):
        app.refuse_keys_behind()
