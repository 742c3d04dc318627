"""What every gateway shares: a readiness answer, how long it is trusted, the calling loop.

Its own module so that each provider's gateway builds on it without importing the module that
picks among them (:func:`oncall_tui.llm.gateway.gateway_for`).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

READY_SECONDS = 5.0
"""How long a successful readiness check is trusted: a burst of sends asks the server once."""


@dataclass(frozen=True, slots=True)
class ModelReadiness:
    """The server answered and has the model."""

    tools: bool
    """The model can call tools (Ollama's ``capabilities`` lists ``tools``)."""


def running_loop() -> asyncio.AbstractEventLoop | None:
    """The event loop of the caller, or ``None`` off any loop."""
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None
