"""Writing a session's summary: the old summary and the transcript merged by the model, a part
of the transcript per call so that every request fits the window.

One streamed call without tools per part (the read timeout applies between chunks); each part
is merged into the summary so far, every request under 95% of the window with
``SUMMARY_ROOM_TOKENS`` left for the answer. Nothing here touches the database: the memory
service stores the result, if the session is still as it was read.
"""

from __future__ import annotations

import math

from oncall_tui.core.memory import (
    SUMMARY_INSTRUCTIONS,
    SUMMARY_ROOM_TOKENS,
    ContextBudget,
    clean_summary,
    summary_request,
    take_transcript,
)
from oncall_tui.errors import OncallError
from oncall_tui.llm.gateway import ModelGateway
from oncall_tui.llm.text_calls import only_a_call
from oncall_tui.llm.tokens import estimate_tokens
from oncall_tui.llm.turn import Summary
from oncall_tui.services.context import History

MIN_TRANSCRIPT_ROOM = 64
"""Fewer tokens than this for the transcript, and a summary request is pointless."""


async def summarise(
    gateway: ModelGateway, summary: str | None, transcript: History, calibration: float
) -> Summary:
    """The merged summary of ``summary`` and ``transcript``, a part of the transcript per
    model call so that every request fits under the 95% limit with room for the answer."""
    window = gateway.context_window()
    limit = math.floor(ContextBudget(window).limit_tokens / max(1.0, calibration))
    truncated = False
    while True:
        fixed = estimate_tokens(SUMMARY_INSTRUCTIONS, [("user", summary_request(summary, []))])
        room = limit - fixed - SUMMARY_ROOM_TOKENS
        if room < MIN_TRANSCRIPT_ROOM:
            raise OncallError("MEMORY_COMPACTION_FAILED", "summary_no_room", window=window)
        part, transcript = take_transcript(transcript, room)
        try:
            written = await gateway.summarize(SUMMARY_INSTRUCTIONS, summary_request(summary, part))
        except OncallError as error:
            raise OncallError("MEMORY_COMPACTION_FAILED", detail=error) from None
        if only_a_call(written.text):  # a small model imitating the calls in the transcript
            raise OncallError("MEMORY_COMPACTION_FAILED", "summary_tool_call")
        summary = clean_summary(written.text)
        if not summary:
            raise OncallError("MEMORY_COMPACTION_FAILED", "summary_empty")
        truncated = truncated or written.truncated
        if not transcript:
            return Summary(summary, truncated)
