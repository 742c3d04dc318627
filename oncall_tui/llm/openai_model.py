"""The one place a ``ChatOpenAI`` is configured, for servers of the OpenAI chat-completions API.

The promises of :mod:`oncall_tui.llm.factory`, kept for this protocol: every streamed reply
ends with the server's token usage (``stream_options.include_usage``), which calibrates the
estimate as Ollama's ``prompt_eval_count`` does; a silent server fails after ``timeout``
seconds; the client never retries on its own (the app has its retry, and a hidden one would
double a reply's wait). Nothing is sent about the window: the server runs with its own. Its HTTP
clients verify with the process's one TLS context (:mod:`oncall_tui.llm.tls`), as Ollama's do.
"""

from __future__ import annotations

import openai
from langchain_openai import ChatOpenAI
from pydantic import SecretStr

from oncall_tui.llm.factory import CONNECT_TIMEOUT_CAP
from oncall_tui.llm.tls import tls_context

NO_KEY = "no-key"
"""Sent when ``OPENAI_API_KEY`` is unset: the client insists on some key, and a server started
without one (llama-server, vLLM without ``--api-key``) takes any."""


def build_openai_chat_model(
    base_url: str, model: str, timeout: float, api_key: str | None = None
) -> ChatOpenAI:
    """A streaming chat model on ``base_url`` (``http://host:8080/v1``) that asks for the
    usage chunk, gives up after ``timeout`` seconds without data (connecting gets at most
    10 s) and never retries."""
    return ChatOpenAI(
        model=model,
        base_url=base_url,
        api_key=SecretStr(api_key or NO_KEY),
        timeout=openai.Timeout(timeout, connect=min(timeout, CONNECT_TIMEOUT_CAP)),
        max_retries=0,
        streaming=True,
        stream_usage=True,
        stream_chunk_timeout=None,  # the read timeout above is the one rule, as for Ollama
        # openai's own clients (its limits, redirects followed), without loading the
        # certificate authorities for each (about 33 ms each, twice a model)
        http_client=openai.DefaultHttpxClient(verify=tls_context()),
        http_async_client=openai.DefaultAsyncHttpxClient(verify=tls_context()),
    )
