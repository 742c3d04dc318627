"""The model server's models, for the clients: what it lists, for the model picker (how to
speak of the server is :mod:`oncall_tui.services.server`).

Two steps, so a client can show the list before the details: :func:`list_models` asks for the
listing once (one request, however many models); :func:`describe_models` asks for each
model's details, a few at a time, each with a short timeout. A model whose details do not come
(a timeout, an error, a model removed meanwhile) keeps them unknown; the others are still
described. Which requests those are is the gateway's business (Ollama: ``/api/tags`` then
``/api/show``; an OpenAI-compatible server: ``/v1/models``, which says all there is at once).
Blocking: clients call these off their event loop.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from oncall_tui.services.views import ModelInfo

if TYPE_CHECKING:
    from oncall_tui.llm.gateway import ModelGateway

LIST_TIMEOUT = 3.0
"""Seconds for the listing: the picker waits for it before showing anything."""
SHOW_TIMEOUT = 3.0
"""Seconds for each model's details: a slow one leaves only that model's details unknown."""
SHOW_CONCURRENCY = 4
"""Details requests in flight at once: Ollama reads each model's file header to answer, so a
few at a time finish sooner than one by one without crowding a busy server."""


def list_models(gateway: ModelGateway) -> list[ModelInfo]:
    """The models the server lists, in its order, with what the listing says; raises
    ``MODEL_UNAVAILABLE`` when the server does not answer."""
    return gateway.list_models(timeout=LIST_TIMEOUT)


def describe_models(gateway: ModelGateway, models: Sequence[ModelInfo]) -> list[ModelInfo]:
    """``models``, in order, each with its details where they came; never raises a catalog
    error."""
    if not models:
        return []
    return gateway.describe_models(models, timeout=SHOW_TIMEOUT, concurrency=SHOW_CONCURRENCY)


def model_catalog(gateway: ModelGateway) -> list[ModelInfo]:
    """:func:`list_models`, then :func:`describe_models`."""
    return describe_models(gateway, list_models(gateway))


__all__ = [
    "LIST_TIMEOUT",
    "SHOW_CONCURRENCY",
    "SHOW_TIMEOUT",
    "describe_models",
    "list_models",
    "model_catalog",
]
