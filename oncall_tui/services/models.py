"""The installed models with what Ollama says of each, for the model picker.

Two steps, so a client can show the list before the details: :func:`list_models` asks
``/api/tags`` once (one request, however many models); :func:`describe_models` asks
``/api/show`` per model, a few at a time, each with a short timeout. A model whose details do
not come (a timeout, an error, a model removed meanwhile) keeps them unknown; the others are
still described. Blocking: clients call these off their event loop.

An OpenAI-compatible server (``--provider openai``) has only ``/v1/models``: the list is what
it serves, with vLLM's ``max_model_len`` as the window where it gives one and nothing else
(no size, family or tool support), and there are no details to ask for afterwards.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor

from oncall_tui.errors import OncallError
from oncall_tui.llm.ollama_api import OllamaApi, resolve_context_window
from oncall_tui.llm.openai_api import OpenAIApi
from oncall_tui.services.views import ModelInfo
from oncall_tui.settings import Settings

log = logging.getLogger(__name__)

LIST_TIMEOUT = 3.0
"""Seconds for ``/api/tags``: the picker waits for it before showing anything."""
SHOW_TIMEOUT = 3.0
"""Seconds for each ``/api/show``: a slow one leaves only that model's details unknown."""
SHOW_CONCURRENCY = 4
"""``/api/show`` requests in flight at once: Ollama reads each model's file header to answer,
so a few at a time finish sooner than one by one without crowding a busy server."""


def list_models(settings: Settings) -> list[ModelInfo]:
    """The installed models in the server's order, details unknown; ``MODEL_UNAVAILABLE`` when
    the server does not answer."""
    if settings.provider == "openai":
        served = OpenAIApi(settings.base_url, settings.api_key, timeout=LIST_TIMEOUT).models()
        return [ModelInfo.served(model.name, model.max_model_len) for model in served]
    api = OllamaApi(settings.ollama_url, timeout=LIST_TIMEOUT)
    return [ModelInfo.listed(model) for model in api.installed()]


def describe_models(settings: Settings, models: Sequence[ModelInfo]) -> list[ModelInfo]:
    """``models``, in order, each with its ``/api/show`` details where they came; never raises
    a catalog error."""

    def describe(api: OllamaApi, model: ModelInfo) -> ModelInfo:
        try:
            details = api.show(model.name)
        except OncallError as error:
            log.info("model details unavailable for %r: %s", model.name, error.code)
            return model
        return model.with_details(details, resolve_context_window(settings.num_ctx, details))

    if not models or settings.provider == "openai":  # nothing more to ask such a server
        return list(models)
    with (
        OllamaApi(settings.ollama_url, timeout=SHOW_TIMEOUT) as api,
        ThreadPoolExecutor(SHOW_CONCURRENCY, thread_name_prefix="api-show") as pool,
    ):
        return list(pool.map(lambda model: describe(api, model), models))


def model_catalog(settings: Settings) -> list[ModelInfo]:
    """:func:`list_models`, then :func:`describe_models`."""
    return describe_models(settings, list_models(settings))
