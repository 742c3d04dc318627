"""Is everything in place to chat, and if not, what to do (``oncall-tui doctor``).

For Ollama it asks Ollama's own API; for an OpenAI-compatible server (``--provider openai``)
it asks what :class:`~oncall_tui.llm.openai_gateway.OpenAIGateway` asks, and says which rule
gave the window (``flag``, ``llama.cpp /props``, ``vLLM /v1/models``, ``default``)."""

from __future__ import annotations

from dataclasses import dataclass, field

from oncall_tui.errors import OncallError
from oncall_tui.llm.ollama_api import ModelDetails, OllamaApi, explain_context_window
from oncall_tui.settings import Settings


@dataclass(frozen=True, slots=True)
class Diagnosis:
    ollama_url: str
    """The model server's address: Ollama's, or the OpenAI-compatible base URL."""
    model: str
    user: str
    log_file: str | None
    ollama_reachable: bool
    ollama_version: str | None
    installed_models: tuple[str, ...]
    model_pulled: bool | None
    """``None`` when Ollama could not be asked."""
    model_tools: bool | None
    """Can the model call tools? ``None`` when it could not be asked."""
    context_window_tokens: int
    context_window_source: str
    database: dict[str, object]
    problems: tuple[OncallError, ...] = field(default=())
    provider: str = "ollama"
    recover_tool_calls: bool = True
    """Are tool calls a model writes as text read from its reply (the settings file's
    ``recover_tool_calls``)?"""

    @property
    def ok(self) -> bool:
        return not self.problems and self.database.get("error") is None

    @property
    def pull_command(self) -> str | None:
        if self.provider != "ollama":
            return None
        return f"ollama pull {self.model}" if self.model_pulled is False else None

    def to_json(self) -> dict[str, object]:
        """Every key always; ``null`` for what could not be asked. The ``ollama_*`` keys are
        ``null`` for another provider; ``server_*`` say the same of whichever server it is."""
        ollama = self.provider == "ollama"
        return {
            "provider": self.provider,
            "server_url": self.ollama_url,
            "server_reachable": self.ollama_reachable,
            "server_version": self.ollama_version,
            "ollama_url": self.ollama_url if ollama else None,
            "model": self.model,
            "ollama_reachable": self.ollama_reachable if ollama else None,
            "ollama_version": self.ollama_version if ollama else None,
            "installed_models": list(self.installed_models) if self.ollama_reachable else None,
            "model_pulled": self.model_pulled,
            "model_supports_tools": self.model_tools,
            "pull_command": self.pull_command,
            "context_window_tokens": self.context_window_tokens,
            "context_window_source": self.context_window_source,
            "database": self.database,
            "user": self.user,
            "log_file": self.log_file,
            "recover_tool_calls": self.recover_tool_calls,
            "ok": self.ok,
        }


def diagnose(settings: Settings) -> Diagnosis:
    """Ask the model server for its version, models and the model's details; never raises."""
    if settings.provider == "openai":
        return _diagnose_openai(settings)
    api = OllamaApi(settings.ollama_url)
    problems: list[OncallError] = []
    version: str | None = None
    installed: tuple[str, ...] = ()
    details: ModelDetails | None = None
    pulled: bool | None = None
    try:
        version = api.version()
        installed = tuple(api.list_models())
        details = api.show(settings.model)
        pulled = True
    except OncallError as error:
        problems.append(error)
        if error.code == "MODEL_NOT_FOUND":
            pulled = False
    window, source = explain_context_window(settings.num_ctx, details)
    tools = None if details is None else details.supports_tools
    return Diagnosis(
        ollama_url=settings.ollama_url,
        model=settings.model,
        user=settings.user,
        log_file=None if settings.log_path is None else str(settings.log_path),
        ollama_reachable=version is not None,
        ollama_version=version,
        installed_models=installed,
        model_pulled=pulled,
        model_tools=tools,
        context_window_tokens=window,
        context_window_source=source,
        database=_describe_store(settings),
        problems=tuple(problems),
        recover_tool_calls=settings.recover_tool_calls,
    )


def _describe_store(settings: Settings) -> dict[str, object]:
    """The database's facts: the file's (never opened for writing), or the server's."""
    if settings.db_url is not None:
        from oncall_tui.store.postgres import describe_server

        return describe_server(settings.db_url)
    from oncall_tui.store.sqlite import describe_database

    return describe_database(settings.db_path)


def _diagnose_openai(settings: Settings) -> Diagnosis:
    from oncall_tui.llm.openai_gateway import OpenAIGateway

    gateway = OpenAIGateway(settings)
    problems: list[OncallError] = []
    version: str | None = None
    served: tuple[str, ...] = ()
    listed: bool | None = None
    refused = False
    try:
        served = tuple(model.name for model in gateway.served_models())
        version = gateway.server_version()
        gateway.check_ready()
        listed = True if served else None  # an empty list: the server does not say
    except OncallError as error:
        problems.append(error)
        if error.code == "MODEL_NOT_FOUND":
            listed = False
        refused = error.reason == "openai_refused_key"  # it answered, and said no
    return Diagnosis(
        ollama_url=settings.base_url,
        model=settings.model,
        user=settings.user,
        log_file=None if settings.log_path is None else str(settings.log_path),
        ollama_reachable=version is not None or refused,
        ollama_version=version,
        installed_models=served,
        model_pulled=listed,
        model_tools=None,
        context_window_tokens=gateway.context_window(),
        context_window_source=gateway.window_source(),
        database=_describe_store(settings),
        problems=tuple(problems),
        provider=settings.provider,
        recover_tool_calls=settings.recover_tool_calls,
    )
