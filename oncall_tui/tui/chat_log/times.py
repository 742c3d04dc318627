"""When a message was said: compactly in its header, in full in the text copied.

The store keeps UTC times, naive or aware (see ``iso`` in the services' views); they are shown
in local time. "Now" comes from a clock the log is given, so that a test can fix it: it is the
time of a message created on screen, and the day a header's time is compared with.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

from oncall_tui.errors import Language

Clock = Callable[[], datetime]
"""Gives the time now, aware of its offset."""
MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
"""Month names in English whatever the locale (Chinese dates are written with numbers)."""


def local_now() -> datetime:
    """The local time now, aware: it compares with stored times whatever their zone."""
    return datetime.now().astimezone()


def local(moment: datetime) -> datetime:
    """``moment`` (UTC when naive, as the store keeps it) in local time, with the offset of
    its own date (a time from before a daylight-saving change keeps its hour)."""
    return (moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment).astimezone()


def short_time(moment: datetime, now: datetime, lang: Language) -> str:
    """``14:03`` today, ``Nov 30 14:03`` (``11月30日 14:03``) another day of this year,
    ``2025-11-30 14:03`` before: a header says no more than a reader of the day's messages
    needs."""
    shown, today = local(moment), local(now)
    if shown.date() == today.date():
        return f"{shown:%H:%M}"
    if shown.year == today.year:
        if lang == "zh":
            return f"{shown.month}月{shown.day}日 {shown:%H:%M}"
        return f"{MONTHS[shown.month - 1]} {shown.day} {shown:%H:%M}"
    return f"{shown:%Y-%m-%d %H:%M}"


def full_time(moment: datetime) -> str:
    """``2026-11-30 14:03``: the date always, for text pasted elsewhere (a timeline)."""
    return f"{local(moment):%Y-%m-%d %H:%M}"
