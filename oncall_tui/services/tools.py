"""The tool servers as clients show them: ``tools list``, ``doctor`` and the TUI's panel.

:meth:`ToolsService.servers` starts the registered servers if no send has yet (blocking: a
client calls it in a thread, never on its UI loop) and describes each: its transport, whether
it is ready, why not, every tool it offers with whether it is allowed and its policy, and the
allowed names it does not offer. Nothing here reaches a model.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from oncall_tui.errors import Language, OncallError
from oncall_tui.services.views import json_fields
from oncall_tui.settings.mcp import McpServer

if TYPE_CHECKING:
    from oncall_tui.llm.mcp import McpTools
    from oncall_tui.llm.mcp_state import ServerState


@dataclass(frozen=True, slots=True)
class ToolView:
    """A tool a server offers (or one ``allow`` names that it does not: ``offered`` false)."""

    name: str
    """As people see it: ``server.tool``."""
    description: str
    allowed: bool
    policy: str | None
    """``auto``, ``confirm``, or ``None`` for a tool that is never bound."""
    offered: bool = True

    def to_json(self) -> dict[str, object]:
        return json_fields(self)


@dataclass(frozen=True, slots=True)
class ToolServerView:
    name: str
    transport: str
    """``stdio`` or ``streamable_http``."""
    state: str
    """``ready``; ``failed`` (it did not start); or ``stopped``: it went after it was ready
    more often than it is started again in one run (:data:`~oncall_tui.llm.mcp_state.RESTARTS`)."""
    error: OncallError | None = None
    tools: tuple[ToolView, ...] = field(default=())

    def to_json(self, lang: Language) -> dict[str, object]:
        return {
            "name": self.name,
            "transport": self.transport,
            "state": self.state,
            "error": None if self.error is None else self.error.to_json(lang),
            "tools": [tool.to_json() for tool in self.tools],
        }


class ToolsService:
    def __init__(self, servers: Sequence[McpServer], runtime: McpTools | None) -> None:
        self._servers = tuple(servers)
        self._runtime = runtime

    def servers(self) -> list[ToolServerView]:
        """Blocking: every registered server, started if it was not, in file order."""
        runtime = self._runtime
        if runtime is None:
            return []
        runtime.start()
        views: list[ToolServerView] = []
        for state in runtime.states():
            server = state.server
            tools = [
                ToolView(
                    f"{server.name}.{tool.name}",
                    " ".join(tool.description.split()),
                    tool.policy is not None,
                    tool.policy,
                )
                for tool in state.offered
            ]
            tools.extend(
                ToolView(f"{server.name}.{name}", "", True, server.policy(name), offered=False)
                for name in state.missing
            )
            views.append(
                ToolServerView(
                    server.name,
                    server.transport,
                    _shown_state(state),
                    state.error,
                    tuple(tools),
                )
            )
        return views

    def failures(self) -> list[tuple[str, OncallError]]:
        """Failed servers not reported yet (each once per process), after :meth:`servers`."""
        return [] if self._runtime is None else self._runtime.unreported_failures()


def _shown_state(state: ServerState) -> str:
    """After ``start``, a server that went once is running again: one still down has either
    not started or stopped too often."""
    if state.state == "ready":
        return "ready"
    return "stopped" if state.stopped else "failed"
