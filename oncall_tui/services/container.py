"""One factory wires settings, database, model gateway and services.

Both clients (CLI and TUI) and the tests build their dependencies here, so a test can
inject a temporary database and a scripted or loopback model. Each part is imported when
first used: the store (SQLAlchemy, SQLModel) by the first command that reads data, the chat
engine and LangChain only by one that talks to a model, keeping them off start-up paths
that do not need them.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Generic, TypeVar, overload

from oncall_tui.errors import OncallError
from oncall_tui.settings import Settings

T = TypeVar("T")

if TYPE_CHECKING:
    from oncall_tui.llm.gateway import ModelGateway
    from oncall_tui.llm.mcp import McpTools
    from oncall_tui.services.chat import ChatService
    from oncall_tui.services.configuration import ConfigurationService
    from oncall_tui.services.diagnostics import Diagnosis
    from oncall_tui.services.drafts import DraftKeeper
    from oncall_tui.services.export import ExportService
    from oncall_tui.services.memory import MemoryService
    from oncall_tui.services.search import SearchService
    from oncall_tui.services.server import ServerView
    from oncall_tui.services.sessions import SessionService
    from oncall_tui.services.spool import ReplySpool
    from oncall_tui.services.tools import ToolsService
    from oncall_tui.services.views import ModelInfo
    from oncall_tui.store.engine import Database


_BUILDING = threading.RLock()


class part(Generic[T]):  # noqa: N801  (a decorator, as ``cached_property`` is)
    """A part of :class:`Services`, built on first use, one part at a time in the process.

    Two threads that import the store at once (SQLAlchemy, whose modules import one another)
    can each be handed the other's half-imported module: "cannot import name
    'AdaptedConnection'" was said at start when the sessions' first read, the panel's and the
    model stack's warm-up came together. Once built, a part is read from the instance's
    ``__dict__``, as a ``cached_property``'s is, with no lock (this descriptor has no
    ``__set__``); a client's UI thread leaves the building to its worker threads."""

    def __init__(self, build: Callable[[Any], T]) -> None:
        self._build = build
        self._name = build.__name__
        self.__doc__ = build.__doc__

    @overload
    def __get__(self, instance: None, owner: type[Any] | None = None) -> part[T]: ...
    @overload
    def __get__(self, instance: object, owner: type[Any] | None = None) -> T: ...
    def __get__(self, instance: object | None, owner: type[Any] | None = None) -> part[T] | T:
        if instance is None:
            return self
        with _BUILDING:
            built = instance.__dict__
            if self._name not in built:  # not built meanwhile by the thread it waited for
                built[self._name] = self._build(instance)
            value: T = built[self._name]
            return value


class Services:
    """Everything a client needs, built on first use."""

    def __init__(self, settings: Settings, gateway: ModelGateway | None = None) -> None:
        self.settings = settings
        self._gateway = gateway

    @property
    def owner(self) -> str:
        return self.settings.user

    @property
    def database_opened(self) -> bool:
        """Whether the database was opened (and upgraded): a failure after that is the server's
        or the disk's for a while, not a database that cannot be used at all."""
        return "database" in self.__dict__

    @part
    def database(self) -> Database:
        """The store: the SQLite file, or the team's PostgreSQL database, where the user must
        be the login unless the database's policy allows another name, and a name the
        connecting role may use under the database's row-level security."""
        from oncall_tui.store.opening import open_database
        from oncall_tui.store.repositories import allows_user_override

        settings = self.settings
        if settings.db_url is None:
            return open_database(settings.db_path)
        database = open_database(settings.db_url)
        if settings.login is not None and settings.user != settings.login:
            with database.read() as session:
                allowed = allows_user_override(session)
            if not allowed:
                database.close()
                raise OncallError(
                    "DATABASE_UNAVAILABLE",
                    "user_locked",
                    path=database.label,
                    login=settings.login,
                    user=settings.user,
                )
        if database.dialect == "postgresql":
            from oncall_tui.store.postgres import check_owner

            try:
                check_owner(database, settings.user)  # the database's row-level security
            except BaseException:
                database.close()
                raise
        return database

    @part
    def configuration(self) -> ConfigurationService:
        from oncall_tui.services.configuration import ConfigurationService

        return ConfigurationService(self.database)

    @part
    def sessions(self) -> SessionService:
        from oncall_tui.services.sessions import SessionService

        return SessionService(self.database)

    @part
    def search(self) -> SearchService:
        from oncall_tui.services.search import SearchService

        return SearchService(self.database)

    @part
    def gateway(self) -> ModelGateway:
        if self._gateway is None:
            from oncall_tui.llm.gateway import gateway_for

            self._gateway = gateway_for(self.settings)
        return self._gateway

    @part
    def server_tools(self) -> McpTools | None:
        """The tool servers of the settings file (``None`` when it registers none), started by
        the first send or :attr:`tools` listing, and stopped by :meth:`close`."""
        if not self.settings.mcp_servers:
            return None
        from oncall_tui.llm.mcp import McpTools  # the MCP SDK, only when servers are registered

        return McpTools(self.settings.mcp_servers)

    @part
    def tools(self) -> ToolsService:
        from oncall_tui.services.tools import ToolsService

        return ToolsService(self.settings.mcp_servers, self.server_tools)

    @part
    def memory(self) -> MemoryService:
        from oncall_tui.services.memory import MemoryService

        runtime = self.server_tools
        return MemoryService(
            self.database,
            self.configuration,
            self.gateway,
            server_tools=tuple if runtime is None else runtime.schemas,
        )

    @part
    def chat(self) -> ChatService:
        from oncall_tui.services.chat import ChatService

        return ChatService(
            self.database,
            self.memory,
            self.gateway,
            lang=self.settings.lang,
            server_tools=self.server_tools,
            spool=self.spool,
        )

    @part
    def spool(self) -> ReplySpool:
        """Replies the database did not take, until it does: one per process, so what a
        client holds in memory is found by every later send (no database is opened here)."""
        from oncall_tui.services.spool import ReplySpool, database_key

        settings = self.settings
        location = settings.db_url or str(settings.db_path.expanduser().absolute())
        return ReplySpool(settings.spool_dir, database_key(location))

    @part
    def drafts(self) -> DraftKeeper:
        """The message being written, kept across the app's end (:mod:`.drafts`); found
        where the spool keeps the owner's held replies, with no database opened."""
        from oncall_tui.services.drafts import DraftKeeper
        from oncall_tui.services.spool import owner_folder

        spool, directory = self.spool, self.settings.spool_dir
        folder = None if directory is None else owner_folder(directory, spool.database, self.owner)
        return DraftKeeper(folder)

    def database_failure(self, exc: BaseException) -> OncallError | None:
        """The catalog's account of ``exc`` if the database failed under a command (SQLite's own
        error, SQLAlchemy's wrapping of it, a full disk), else ``None``: whatever the command
        was doing, its unit of work has been rolled back."""
        from oncall_tui.store.failures import database_failure

        settings = self.settings
        label = self.database.label if self.database_opened else str(settings.db_path)
        return database_failure(exc, label)

    def has_held(self) -> bool:
        """Whether replies the database did not take wait for it (a directory listing at most:
        cheap enough for a client's loop)."""
        return self.spool.has_pending(self.owner)

    def held_only_in_memory(self) -> list[str]:
        """The texts of the owner's held replies that no file holds (the spool refused them):
        they end with the process unless the database takes them first."""
        return [reply.text for reply in self.spool.only_in_memory(self.owner)]

    def save_held_replies(self) -> int:
        """Store the replies held for the owner while the database was away (the CLI at its
        start, the TUI at its next contact); how many. Nothing is opened when none are held;
        a database still away raises its catalog error and they stay held."""
        if not self.has_held():
            return 0
        return self.chat.save_held(self.owner)

    @part
    def export(self) -> ExportService:
        from oncall_tui.services.export import ExportService

        return ExportService(
            self.sessions, self.memory, model=self.gateway.model_name, lang=self.settings.lang
        )

    @property
    def server(self) -> ServerView:
        """The configured model server as a client speaks of it (its address, and whether the
        texts call it Ollama or a model server); asks it nothing."""
        from oncall_tui.services.server import ServerView

        if self._gateway is None:  # not built yet: said from the settings, building nothing
            return ServerView.configured(self.settings.provider, self.settings.server_url)
        return ServerView.of(self._gateway)

    def server_version(self) -> str:
        """The model server's version; ``MODEL_UNAVAILABLE`` when it does not answer."""
        return self.gateway.server_version()

    def check_model(self) -> None:
        """Whether the chat model can be used: ``MODEL_UNAVAILABLE`` when the server does not
        answer, ``MODEL_NOT_FOUND`` when it does not have the model."""
        self.gateway.check_ready()

    def model_not_found(self) -> OncallError:
        """``MODEL_NOT_FOUND`` for the configured model, as its server says it (Ollama: pull
        it; another server: pick one it serves)."""
        return self.gateway.model_not_found()

    def diagnose(self) -> Diagnosis:
        """``doctor``'s account: the model server, the window, the database; never raises."""
        from oncall_tui.services.diagnostics import diagnose

        return diagnose(self.settings, self.gateway)

    def model_catalog(self) -> list[ModelInfo]:
        """The models the server has (Ollama's pulled ones), each with its context length,
        window and tool support where those came; ``MODEL_UNAVAILABLE`` only when the listing
        fails (see :mod:`oncall_tui.services.models`)."""
        from oncall_tui.services.models import model_catalog

        return model_catalog(self.gateway)

    def installed_models(self) -> list[ModelInfo]:
        """The first half of :meth:`model_catalog`: the listing alone, one request."""
        from oncall_tui.services.models import list_models

        return list_models(self.gateway)

    def describe_models(self, models: Sequence[ModelInfo]) -> list[ModelInfo]:
        """The second half of :meth:`model_catalog`: the details of each; never raises."""
        from oncall_tui.services.models import describe_models

        return describe_models(self.gateway, models)

    def use_model(self, model: str) -> None:
        """Switch the chat model and keep the choice in the settings file; the engine is
        rebuilt around it on next use. A file that cannot take it (``CONFIG_NOT_SAVED``)
        leaves the model as it was."""
        self.save_preference("model", model)
        with _BUILDING:  # not while a part is built around the engine being dropped
            for name in ("gateway", "memory", "chat", "export"):
                self.__dict__.pop(name, None)
            self._gateway = None

    def save_preference(self, name: str, value: str | int | float | None) -> None:
        """Set the settings file's key ``name`` (``model``, ``theme``, ``num_ctx``, …) to
        ``value``, ``None`` removing it, and use it from now on. Checked as the flag would be
        (``VALIDATION_INVALID_ARGUMENT``); a file that cannot be read back or written raises
        ``CONFIG_NOT_SAVED``; either way nothing changed. Settings without a file (tests,
        benches) change in memory only."""
        from oncall_tui.settings.file import write_setting
        from oncall_tui.settings.values import to_file_value

        updated = self.settings.with_preference(name, value)
        path = self.settings.config_path
        if path is not None:
            write_setting(path, name, None if value is None else to_file_value(name, value))
        self.settings = updated

    def warm_up(self) -> None:
        """Blocking: import the model stack (LangChain, about a second of CPU) and build the chat
        model, so that the first send waits for neither. Clients call it off their event loop
        (the TUI, as the first message is typed). A database that cannot be opened raises first,
        before the long part."""
        self.database  # noqa: B018
        with _BUILDING:  # LangChain's modules import one another too
            import oncall_tui.llm.agent  # noqa: F401

        self.chat  # noqa: B018  (the services a send uses, and the database they open)
        self.gateway.chat_model()

    def close(self) -> None:
        """The tool servers stopped (about a second at most, see ``McpTools.close``), then
        the database closed."""
        runtime = self.__dict__.get("server_tools")
        if runtime is not None:
            runtime.close()
        if "drafts" in self.__dict__:
            self.drafts.release()
        if "database" in self.__dict__:
            self.database.close()

    def end_tool_servers_now(self) -> None:
        """The last resort of a process that must end now: the tool servers' processes ended
        at once, whatever their sessions are doing. Safe from any thread; never raises."""
        runtime = self.__dict__.get("server_tools")
        if runtime is not None:
            runtime.end_processes(at_once=True)
