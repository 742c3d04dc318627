"""How a client speaks of the configured model server (:class:`ServerView`): its address, and
whether the texts call it Ollama or a model server.

Apart from :mod:`oncall_tui.services.models` because the first frame shows it: this module
loads no client library and none of the views.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from oncall_tui.llm.server import ServerWording, kind_named

if TYPE_CHECKING:
    from oncall_tui.llm.gateway import ModelGateway


@dataclass(frozen=True, slots=True)
class ServerView:
    """The configured model server, as a client speaks of it."""

    url: str
    wording: ServerWording
    """Which texts name it: ``ollama`` (Ollama, which pulls models: ``ollama pull``) or
    ``server`` (a model server, which serves the models it was started with)."""

    @classmethod
    def of(cls, gateway: ModelGateway) -> ServerView:
        return cls(url=gateway.url, wording=gateway.server.wording)

    @classmethod
    def configured(cls, provider: str, url: str) -> ServerView:
        """The server the settings name, before any gateway is built (the first frame waits
        for no client library: the gateway's module loads httpx)."""
        return cls(url=url, wording=kind_named(provider).wording)


__all__ = ["ServerView", "ServerWording"]
