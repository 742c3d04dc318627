"""What a gateway says of its model server, as plain data: which kind it is
(:class:`ServerKind`), the models it lists (:class:`ListedModel`) and doctor's account of it
(:class:`ServerReport`).

The kinds are the only place the two servers' words differ: the name the texts give the server
(``Ollama``, or "the model server"), how a model gets there (``ollama pull``, or by starting the
server with it), and the catalog's reasons for its failures. A gateway holds its kind
(``gateway.server``); failures are read with it (:func:`oncall_tui.llm.failures.map_model_error`)
and clients get its wording through the services, so no layer above this one asks which provider
is configured. Imports nothing but the error catalog.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal, NamedTuple

from oncall_tui.errors import OncallError

ServerWording = Literal["ollama", "server"]
"""Which texts speak of a server: ``ollama`` names it Ollama (a missing model is pulled with
``ollama pull``); ``server`` says "the model server" (it serves the models it was started
with)."""


@dataclass(frozen=True, slots=True)
class ServerKind:
    """How the app speaks of one kind of model server, and reads its failures."""

    name: str
    """The value of the provider setting that picks it: ``doctor --json``'s ``provider``."""
    wording: ServerWording
    pull_command_form: str | None
    """The command that gets a missing model, ``{model}`` for its name; ``None``: none does."""
    failure_prefix: str
    """What the catalog's reasons for a broken stream start with (``server_stream_dropped``)."""
    unreachable_reason: str | None
    """The reason for ``MODEL_UNAVAILABLE``; ``None``: the code's own message (Ollama's)."""
    not_found_reason: str | None
    """The reason for ``MODEL_NOT_FOUND``; ``None``: the code's own message (Ollama's)."""

    def pull_command(self, model: str) -> str | None:
        """The command that gets ``model`` onto the server, if there is one."""
        form = self.pull_command_form
        return None if form is None else form.format(model=model)

    def unreachable(self, url: str) -> OncallError:
        """Nothing answered at ``url``."""
        return OncallError("MODEL_UNAVAILABLE", self.unreachable_reason, url=url)

    def not_its_api(self, url: str, endpoint: str, status: int) -> OncallError:
        """Something answers at ``url``, but not as this server's API: ``endpoint`` gave HTTP
        ``status``, or a body that is not the API's JSON (another service on the port, or a base
        URL missing its ``/v1``): :attr:`OncallError.server_answered`."""
        reason = f"{self.failure_prefix}not_the_api"
        return OncallError("MODEL_UNAVAILABLE", reason, url=url, endpoint=endpoint, status=status)

    def not_found(self, url: str, model: str) -> OncallError:
        """The server answers but has no ``model``."""
        return OncallError("MODEL_NOT_FOUND", self.not_found_reason, url=url, model=model)

    def silent(self, timeout: float | None) -> OncallError:
        """No data for the read timeout (``None``: not known)."""
        if timeout is None:
            return self.stream_failed("stream_silent")
        return self.stream_failed("stream_silent_for", seconds=f"{timeout:g}")

    def dropped(self) -> OncallError:
        """The connection broke under a reply."""
        return self.stream_failed("stream_dropped")

    def ended_early(self) -> OncallError:
        """A stream that ended, cleanly as far as HTTP goes, without its end-of-reply marker
        (Ollama's done record, the OpenAI API's ``finish_reason``): the reply is not whole."""
        return self.stream_failed("stream_ended_early")

    def unreadable(self) -> OncallError:
        """The server sent something that is not its API's stream."""
        return self.stream_failed("stream_unreadable")

    def stream_failed(self, reason: str, **params: object) -> OncallError:
        """``STREAM_FAILED`` for the catalog's ``reason``, as this server's texts say it."""
        return OncallError("STREAM_FAILED", f"{self.failure_prefix}{reason}", **params)


OLLAMA = ServerKind(
    name="ollama",
    wording="ollama",
    pull_command_form="ollama pull {model}",
    failure_prefix="",
    unreachable_reason=None,
    not_found_reason=None,
)
OPENAI_COMPATIBLE = ServerKind(
    name="openai",
    wording="server",
    pull_command_form=None,
    failure_prefix="server_",
    unreachable_reason="openai_unreachable",
    not_found_reason="openai_model_refused",
)
KINDS = (OLLAMA, OPENAI_COMPATIBLE)


def kind_named(name: str) -> ServerKind:
    """The kind whose :attr:`~ServerKind.name` is ``name`` (a parsed provider setting); Ollama
    for a name no kind has."""
    return next((kind for kind in KINDS if kind.name == name), OLLAMA)


WindowSource = Literal[
    "flag", "modelfile", "trained", "llama.cpp /props", "vLLM /v1/models", "default"
]
"""Which rule gave a window: the ``num_ctx`` setting (``flag``: the flag, the variable or the
settings file); for Ollama the model's Modelfile, else its trained length capped; for an
OpenAI-compatible server what it says it runs (llama.cpp, vLLM); else the default."""


class Window(NamedTuple):
    """A window and the rule that gave it (``doctor`` says which, in the user's language)."""

    tokens: int
    source: WindowSource
    trained: int | None = None
    """The model's trained length, when the window is that length capped (``trained``)."""


@dataclass(frozen=True, slots=True)
class ListedModel:
    """A model as a server lists and then describes it (Ollama: ``/api/tags``' entry, then
    ``/api/show``'s details); whatever it did not say is ``None``, never a guess."""

    name: str
    size_bytes: int | None = None
    family: str | None = None
    parameter_size: str | None = None
    quantization_level: str | None = None
    modified_at: datetime | None = None
    context_length: int | None = None
    """The trained context length (Ollama's ``/api/show``, vLLM's ``max_model_len``)."""
    window_tokens: int | None = None
    """The window the app would use with this model (docs/ARCHITECTURE.md "The window")."""
    tools: bool | None = None
    """Can it call tools? ``None``: not known (not described yet, the description failed, or
    an older Ollama that reports no capabilities)."""
    described: bool = False
    """Everything the server can say of it has been asked."""


@dataclass(frozen=True, slots=True)
class ServerReport:
    """Doctor's account of the model server; whatever failed is in :attr:`problems`."""

    kind: ServerKind
    url: str
    model: str
    reachable: bool
    """It answered (a refusal of the key counts: something is there)."""
    version: str | None
    models: tuple[str, ...]
    """What it lists: the models installed, or served."""
    model_present: bool | None
    """The configured model is among them; ``None``: not asked, or the server does not say."""
    model_tools: bool | None
    """Can the model call tools? ``None``: not known."""
    window: Window
    problems: tuple[OncallError, ...] = field(default=())

    @property
    def pull_command(self) -> str | None:
        """The command that gets the model when it is missing, if one does."""
        return self.kind.pull_command(self.model) if self.model_present is False else None


__all__ = [
    "KINDS",
    "OLLAMA",
    "OPENAI_COMPATIBLE",
    "ListedModel",
    "ServerKind",
    "ServerReport",
    "ServerWording",
    "Window",
    "WindowSource",
    "kind_named",
]
