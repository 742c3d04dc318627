"""How ``oncall-tui chat`` writes a send's events: a reply's text as it comes (redacted as a
whole, :class:`~oncall_tui.redaction.StreamRedactor`), tool lines and notes on stderr, or one
JSON event a line; and how it answers a ``confirm`` tool it cannot ask about."""

from __future__ import annotations

import contextlib
import json
import sys
from collections.abc import AsyncIterator, Callable
from typing import TYPE_CHECKING

from oncall_tui.cli.output import EXIT_OK, emit_text, exit_status
from oncall_tui.core.events import (
    ChatEvent,
    CompactionFailed,
    CompactionStarted,
    ConfirmHook,
    ContextLimitReached,
    ReplyDone,
    ReplyFailed,
    ReplyHeld,
    ThinkingStarted,
    TokenDelta,
    ToolConfirmation,
    ToolFinished,
    ToolServerFailed,
    ToolServersStarting,
    ToolStarted,
    ToolStatus,
    ToolsUnavailable,
    UsageReported,
    UserMessageStored,
)
from oncall_tui.core.text import terminal_safe
from oncall_tui.errors import Language
from oncall_tui.redaction import StreamRedactor, redact_tree
from oncall_tui.texts import counted, stored_word, text

if TYPE_CHECKING:
    from oncall_tui.cli.waiting import WaitingLine


def allow_listed(
    names: frozenset[str], lang: Language, before_saying: Callable[[], None]
) -> ConfirmHook:
    """The headless answer to a ``confirm`` tool: yes for the names given with
    ``--allow-tool``; for any other, that this run cannot ask (said on stderr, after
    ``before_saying`` erased the wait's count: nobody said no, and the model is told so)."""

    async def confirm(request: ToolConfirmation) -> bool | None:
        if request.name in names:
            return True
        before_saying()
        emit_text(text("cli.chat.tool_refused", lang, name=request.name) + "\n", sys.stderr)
        return None

    return confirm


class ChatOutput:
    """Writes one chat's events as they come and works out its exit status."""

    def __init__(self, as_json: bool, session_id: int | None, lang: Language) -> None:
        self.as_json = as_json
        self.lang = lang
        self.session_id = session_id
        self.answer_open = False
        """Answer text was written and its line is not ended yet."""
        self.line_ended_early = False
        """A tool's line ended the answer's line: the newline the answer goes on with (the text
        after a tool starts a paragraph) is written already."""
        self.stdin_lines = 0
        """Lines of standard input sent after the words unasked: said as the message is
        stored."""
        self.waiting: WaitingLine | None = None
        """The wait's count on a terminal (:mod:`.waiting`)."""
        self.answer = StreamRedactor()
        """The answer's text, redacted as it comes (a secret split over tokens is seen
        whole): JSON's ``token`` events and the human output both carry what it lets out."""

    async def consume(self, events: AsyncIterator[ChatEvent]) -> int:
        import asyncio

        waiting = self.waiting
        counting = asyncio.create_task(waiting.run()) if waiting is not None else None
        try:
            return await self._consume(events)
        finally:
            if counting is not None:
                counting.cancel()
            self.erase_waiting()

    async def _consume(self, events: AsyncIterator[ChatEvent]) -> int:
        status = EXIT_OK
        async for event in events:
            if self.waiting is not None:
                self.waiting.heard()
            if isinstance(event, UserMessageStored):
                self.session_id = event.session_id
            if isinstance(event, TokenDelta):
                self._answer(self.answer.feed(event.text))
            else:
                self._answer(self.answer.end())  # the text before a tool, or all of it
                if self.as_json:
                    self._write_json(redact_tree(event.to_json()))
                else:
                    self._render(event)
            if self.waiting is not None:
                self.waiting.answer_open = self.answer_open
                if isinstance(event, ToolStarted):
                    self.waiting.tool = event.name
                elif isinstance(event, ToolFinished):
                    self.waiting.tool = None
            if isinstance(event, ReplyFailed | ContextLimitReached | ReplyHeld):
                status = exit_status(event.code)
        self._answer(self.answer.end())
        return status

    def _answer(self, delta: str) -> None:
        """Answer text, redacted already: a ``token`` event, or written as it comes."""
        if not delta:
            return
        if self.as_json:
            self._write_json(TokenDelta(delta).to_json())  # redacted as a whole already
            return
        if self.line_ended_early and delta.startswith("\n"):
            delta = delta[1:]  # standard output holds the reply as stored
        self.line_ended_early = False
        sys.stdout.write(terminal_safe(delta))
        sys.stdout.flush()
        self.answer_open = self.answer_open or bool(delta)
        if self.waiting is not None:
            self.waiting.answer_open = self.answer_open

    @staticmethod
    def _write_json(document: object) -> None:
        sys.stdout.write(json.dumps(document, ensure_ascii=False) + "\n")
        sys.stdout.flush()

    def erase_waiting(self) -> None:
        """Before a line said from outside the events: the wait's count, if shown, goes."""
        if self.waiting is not None:
            self.waiting.erase()

    def interrupted(self) -> None:
        """Say so, where anyone still listens: after SIGHUP the terminal may be gone."""
        with contextlib.suppress(OSError):
            self._answer(self.answer.end())
            if self.as_json:
                document = {"type": "interrupted", "session_id": self.session_id}
                sys.stdout.write(json.dumps(document) + "\n")
                sys.stdout.flush()
                return
            self._end_answer()
            sys.stderr.write(text("cli.chat.interrupted", self.lang) + "\n")
            if self.session_id is not None:
                for key in ("cli.chat.session", "cli.chat.retry"):
                    sys.stderr.write(text(key, self.lang, id=self.session_id) + "\n")

    def _end_answer(self) -> None:
        if self.answer_open:
            sys.stdout.write("\n")
            sys.stdout.flush()
            self.answer_open = False
            self.line_ended_early = True

    def _render(self, event: ChatEvent) -> None:
        """Human output of an event other than the answer's text, every write through
        :func:`emit_text`, which makes it redacted and terminal-safe."""
        err, lang = sys.stderr, self.lang
        match event:
            case UserMessageStored() if self.stdin_lines:
                emit_text(counted("cli.chat.with_stdin", self.stdin_lines, lang) + "\n", err)
            case ToolStarted(name=name, arguments=arguments):
                shown = ", ".join(f"{k}={v!r}" for k, v in arguments.items())
                self._end_answer()
                emit_text(f"· {name}({shown})\n", err)
            case ToolFinished(summary=summary, ok=ok, status=status):
                marks = {ToolStatus.CUT: "✂", ToolStatus.DECLINED: "⊘"}  # as the TUI's log
                mark = "→" if ok else marks.get(status, "✗")
                emit_text(f"  {mark} {summary}\n", err)
            case (
                ToolsUnavailable(message=message)
                | CompactionFailed(message=message)
                | ToolServerFailed(message=message)
            ):
                emit_text(f"oncall-tui: {message}\n", err)
            case ToolServersStarting(seconds=seconds):
                said = text("cli.chat.tool_servers_starting", lang, seconds=f"{seconds:g}")
                emit_text(said + "\n", err)
            case CompactionStarted(message_count=count):
                emit_text(text("cli.chat.compacting", lang, count=count) + "\n", err)
            case ThinkingStarted():
                self._end_answer()
                emit_text(text("cli.chat.thinking", lang) + "\n", err)
            case UsageReported(usage=usage):
                self._end_answer()
                tokens = f"{usage.context_window_tokens:,}"
                emit_text(
                    text("cli.chat.usage", lang, percent=usage.percent, tokens=tokens) + "\n", err
                )
            case ReplyDone(session_id=session_id, status=status, note=note):
                if status != "complete":
                    shown = stored_word("reply", status, lang)
                    emit_text(text("cli.chat.truncated", lang, status=shown) + "\n", err)
                if note is not None:
                    emit_text(f"oncall-tui: {note}\n", err)
                emit_text(text("cli.chat.session", lang, id=session_id) + "\n", err)
            case ReplyHeld(message=message, session_id=session_id):
                self._end_answer()
                session_line = text("cli.chat.session", lang, id=session_id)
                emit_text(f"oncall-tui: {message}\n{session_line}\n", err)
            case ReplyFailed(message=message, session_id=session_id):
                self._end_answer()
                session_line = text("cli.chat.session", lang, id=session_id)
                retry_line = text("cli.chat.retry", lang, id=session_id)
                emit_text(f"oncall-tui: {message}\n{session_line}\n{retry_line}\n", err)
            case ContextLimitReached(message=message):
                emit_text(f"oncall-tui: {message}\n", err)
            case _:
                pass
