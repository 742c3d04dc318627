"""Is everything in place to chat, and if not, what to do (``oncall-tui doctor``).

The model server's part is the gateway's account (:meth:`ModelGateway.report
<oncall_tui.llm.gateway.ModelGateway.report>`): what a send would ask it, and which rule gave
the window (:data:`~oncall_tui.llm.server.WindowSource`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from oncall_tui.errors import OncallError
from oncall_tui.llm.server import ServerWording, Window, WindowSource
from oncall_tui.settings import Settings

if TYPE_CHECKING:
    from oncall_tui.llm.gateway import ModelGateway


@dataclass(frozen=True, slots=True)
class Diagnosis:
    server_kind: str
    """The kind of server (``doctor --json``'s ``provider``: ``ollama``, ``openai``)."""
    wording: ServerWording
    """How to speak of it: ``ollama`` (Ollama) or ``server`` (a model server)."""
    server_url: str
    model: str
    user: str
    log_file: str | None
    server_reachable: bool
    server_version: str | None
    installed_models: tuple[str, ...]
    model_pulled: bool | None
    """``None`` when the server could not be asked, or does not say."""
    model_tools: bool | None
    """Can the model call tools? ``None`` when it could not be asked."""
    pull_command: str | None
    """The command that gets the model when it is missing, if one does."""
    context_window: Window
    """The window and the rule that gave it."""
    database: dict[str, object]
    problems: tuple[OncallError, ...] = field(default=())
    recover_tool_calls: bool = True
    """Are tool calls a model writes as text read from its reply (the settings file's
    ``recover_tool_calls``)?"""

    @property
    def ok(self) -> bool:
        return not self.problems and self.database.get("error") is None

    def to_json(self) -> dict[str, object]:
        """Every key always; ``null`` for what could not be asked. The ``ollama_*`` keys are
        ``null`` for a server that is not Ollama; ``server_*`` say the same of whichever
        server it is."""
        ollama = self.wording == "ollama"
        return {
            "provider": self.server_kind,
            "server_url": self.server_url,
            "server_reachable": self.server_reachable,
            "server_version": self.server_version,
            "ollama_url": self.server_url if ollama else None,
            "model": self.model,
            "ollama_reachable": self.server_reachable if ollama else None,
            "ollama_version": self.server_version if ollama else None,
            "installed_models": list(self.installed_models) if self.server_reachable else None,
            "model_pulled": self.model_pulled,
            "model_supports_tools": self.model_tools,
            "pull_command": self.pull_command,
            "context_window_tokens": self.context_window.tokens,
            "context_window_source": self.context_window.source,
            "model_trained_length": self.context_window.trained,
            "database": self.database,
            "user": self.user,
            "log_file": self.log_file,
            "recover_tool_calls": self.recover_tool_calls,
            "ok": self.ok,
        }


def diagnose(settings: Settings, gateway: ModelGateway) -> Diagnosis:
    """Ask the model server, through ``gateway``, for its version, models and the model's
    details, and describe the database; never raises."""
    report = gateway.report()
    return Diagnosis(
        server_kind=report.kind.name,
        wording=report.kind.wording,
        server_url=report.url,
        model=report.model,
        user=settings.user,
        log_file=None if settings.log_path is None else str(settings.log_path),
        server_reachable=report.reachable,
        server_version=report.version,
        installed_models=report.models,
        model_pulled=report.model_present,
        model_tools=report.model_tools,
        pull_command=report.pull_command,
        context_window=report.window,
        database=_describe_store(settings),
        problems=report.problems,
        recover_tool_calls=settings.recover_tool_calls,
    )


def _describe_store(settings: Settings) -> dict[str, object]:
    """The database's facts: the file's (never opened for writing), or the server's."""
    if settings.db_url is not None:
        from oncall_tui.store.postgres import describe_server

        return describe_server(settings.db_url, settings.lang)
    from oncall_tui.store.sqlite import describe_database

    return describe_database(settings.db_path)


__all__ = ["Diagnosis", "WindowSource", "diagnose"]
