"""A session as a Markdown document, the starting point of a postmortem.

Promised: every message under a header of its own (number, role, local time with its offset),
marked when the reply was interrupted, failed or cut off; each tool call on one line (name,
arguments, status, its one-line result); the summary in a section that says the model wrote
it; the compaction boundary as a ruled line between the messages where it lies.

Nothing a user or a model wrote can break the document or pass for its structure:

- a user's message is plain text (the TUI draws it as typed), so it is fenced, with a fence
  longer than any run of backticks inside it;
- a reply is Markdown and is kept as Markdown when it closes everything it opens; a reply that
  would swallow what follows (an unclosed fence or HTML comment, typical of a reply cut off
  midway) is fenced as text instead;
- the summary is a block quote, which closes whatever it holds where it ends;
- the title, tool names, arguments and results are escaped or set in code spans.

Control characters become visible symbols (:func:`oncall_tui.core.text.terminal_safe`): the
document may be printed to a terminal, and nobody reading a postmortem wants an escape
sequence. Pure: no I/O, the time of export and the zone come in.
"""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime, tzinfo
from functools import cache

from markdown_it import MarkdownIt

from oncall_tui.core.text import terminal_safe
from oncall_tui.errors import Language
from oncall_tui.services.views import MessageView, SessionTranscript, ToolCallView
from oncall_tui.texts import TEXTS, counted, stored_word, text

_INLINE_SPECIAL = re.compile(r"([\\`*_\[\]{}<>#|!~&])")
_BACKTICK_RUN = re.compile(r"`+")
_END_OF_REPLY = "oncall-tui-end-of-reply"


def render_markdown(
    transcript: SessionTranscript,
    *,
    model: str,
    exported_at: datetime,
    zone: tzinfo | None,
    lang: Language = "en",
) -> str:
    """The transcript as Markdown; times in ``zone`` (the system's local zone when ``None``),
    its facts, headings and notes in ``lang`` (what the model and the user wrote as it is)."""
    session, memory = transcript.session, transcript.memory
    messages = transcript.messages
    boundary = memory.compacted_message_count if messages else 0
    usage = memory.usage
    context = text(
        "export.context_used",
        lang,
        used=f"{usage.context_tokens:,}",
        window=f"{usage.context_window_tokens:,}",
        percent=usage.percent,
    )
    facts = [
        ("export.session", str(session.id)),
        ("export.started", when(session.created_at, zone)),
        ("export.last_activity", when(session.updated_at, zone)),
        ("export.messages", str(len(messages))),
        ("export.model", code_span(model)),
        ("export.memory_mode", code_span(memory.memory_mode.value)),
        ("export.boundary", _boundary_fact(boundary, lang)),
        ("export.context", context),
    ]
    parts = [
        f"# {escape(session.title or text('session.untitled', lang))}",
        text("export.exported", lang, when=when(exported_at, zone)),
        "\n".join(
            text("export.fact", lang, label=text(key, lang), value=value) for key, value in facts
        ),
    ]
    if memory.memory_summary:
        parts += [f"## {text('export.summary_heading', lang)}", _summary(transcript, zone, lang)]
    parts.append(f"## {text('export.conversation', lang)}")
    if not messages:
        parts.append(f"*{text('export.no_messages', lang)}*")
    for index, message in enumerate(messages):
        parts += _message(message, zone, lang)
        if index + 1 == boundary:
            parts += ["---", counted("export.boundary_note", boundary, lang), "---"]
    return "\n\n".join(parts) + "\n"


def _boundary_fact(boundary: int, lang: Language) -> str:
    if boundary == 0:
        return text("export.boundary_none", lang)
    return counted("export.boundary_after", boundary, lang)


def _summary(transcript: SessionTranscript, zone: tzinfo | None, lang: Language) -> str:
    memory = transcript.memory
    summary = memory.memory_summary or ""
    made = (
        text("export.summary_made", lang, when=when(memory.last_compacted_at, zone))
        if memory.last_compacted_at is not None
        else ""
    )
    cut = text("export.summary_cut", lang) if memory.memory_summary_status == "truncated" else ""
    lead = counted("export.summary_lead", memory.compacted_message_count, lang, made=made, cut=cut)
    return block_quote(f"{lead}\n\n{terminal_safe(summary)}")


def _message(message: MessageView, zone: tzinfo | None, lang: Language) -> list[str]:
    role = stored_word("role", message.role, lang)
    header = f"### {message.position + 1} · {role} · {when(message.created_at, zone)}"
    if message.model:
        header += f" · {code_span(message.model)}"
    if message.status != "complete":
        header += f" · {stored_word('reply', message.status, lang)}"
    parts = [header]
    if message.status != "complete":
        key = f"export.status_note.{message.status}"
        note = (
            text(key, lang)
            if key in TEXTS
            else text("export.status_note.other", lang, status=message.status)
        )
        parts.append(f"*{escape(note)}*")
    if (placed := _placed(message, lang)) is not None:
        return parts + placed
    parts += [_tool_call(call, lang) for call in message.tool_calls]
    shown = terminal_safe(message.content)
    if not shown.strip():
        parts.append(f"*{text('export.no_text', lang)}*")
    elif message.role == "user" or not closes_itself(shown):
        parts.append(fenced(shown, "text" if message.role == "user" else "markdown"))
    else:
        parts.append(shown.strip("\n"))
    return parts


def _placed(message: MessageView, lang: Language) -> list[str] | None:
    """A reply's text with each tool call where it was made, a paragraph between the words
    around it; ``None`` when the calls have no places (stored before revision 0009), there is
    no text, or the text or a piece of it does not stay Markdown (it is fenced whole, under its
    calls)."""
    if not message.calls_placed:
        return None
    order = [terminal_safe(p) if isinstance(p, str) else p for p in message.in_order()]
    pieces = [part for part in order if isinstance(part, str)]
    whole = "".join(pieces)
    if not whole.strip() or not closes_itself(whole) or not all(map(closes_itself, pieces)):
        return None
    shown = [
        part.strip("\n") if isinstance(part, str) else _tool_call(part, lang) for part in order
    ]
    return [part for part in shown if part]


def _tool_call(call: ToolCallView, lang: Language) -> str:
    """One paragraph (not a list item: a reply after a list could be read into it)."""
    arguments = json.dumps(call.arguments, ensure_ascii=False)
    status = stored_word("export.tool_status", call.status, lang)
    summary = " ".join(terminal_safe(call.summary).split())
    result = f": {escape(summary)}" if summary else ""
    return (
        f"**{text('export.tool_call', lang)}** {code_span(call.name)} {code_span(arguments)} → "
        f"{escape(status)}{result} ({call.duration_ms:,} ms)"
    )


# -- Markdown building blocks ------------------------------------------------------------------


def when(moment: datetime, zone: tzinfo | None) -> str:
    """``2026-12-01 21:30:05 +01:00``: stored (UTC, naive or aware) times in ``zone``, with
    the offset, so a timeline built from several exports lines up."""
    aware = moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment
    shown = aware.astimezone(zone)
    offset = shown.utcoffset()
    minutes = 0 if offset is None else int(offset.total_seconds()) // 60
    sign = "-" if minutes < 0 else "+"
    hours, rest = divmod(abs(minutes), 60)
    return f"{shown:%Y-%m-%d %H:%M:%S} {sign}{hours:02d}:{rest:02d}"


def escape(text: str) -> str:
    """``text`` as literal inline Markdown: one line, control characters made visible, every
    character that could start emphasis, code, a link, HTML or a heading's end escaped."""
    flat = " ".join(terminal_safe(text).split())
    return _INLINE_SPECIAL.sub(r"\\\1", flat)


def code_span(text: str) -> str:
    """``text`` in a code span whose backtick run is longer than any inside it."""
    flat = " ".join(terminal_safe(text).split()) or " "
    ticks = "`" * (max((len(run) for run in _BACKTICK_RUN.findall(flat)), default=0) + 1)
    pad = " " if flat.startswith(("`", " ")) or flat.endswith(("`", " ")) else ""
    return f"{ticks}{pad}{flat}{pad}{ticks}"


def fenced(text: str, info: str) -> str:
    """``text`` verbatim in a fenced code block that nothing inside it can close: the fence is
    longer than any run of backticks in the text."""
    longest = max((len(run) for run in _BACKTICK_RUN.findall(text)), default=0)
    fence = "`" * max(3, longest + 1)
    body = text if text.endswith("\n") else text + "\n"
    return f"{fence}{info}\n{body}{fence}"


def block_quote(text: str) -> str:
    return "\n".join(f"> {line}" if line else ">" for line in text.split("\n"))


def closes_itself(text: str) -> bool:
    """Whether Markdown ``text`` closes every block it opens: a paragraph written after it
    (past a blank line) is a paragraph of the document, not part of a fence, an HTML block
    or a list item of the text."""
    tokens = _parser().parse(f"{text}\n\n{_END_OF_REPLY}\n")
    if len(tokens) < 3:
        return False
    opening, inline, _ = tokens[-3:]
    return (
        opening.type == "paragraph_open" and opening.level == 0 and inline.content == _END_OF_REPLY
    )


@cache
def _parser() -> MarkdownIt:
    return MarkdownIt("commonmark").enable("table")
