"""Test doubles: a loopback fake Ollama server, a scripted LangChain chat model and a gateway
that hands it out (:class:`StaticGateway`)."""

from .chat_model import ScriptedChatModel, ScriptExhaustedError, Turn, TurnLike
from .gateway import StaticGateway
from .ollama_server import (
    DEFAULT_MODELS,
    FakeModel,
    FakeOllama,
    RecordedRequest,
    Reply,
    Responder,
)

__all__ = [
    "DEFAULT_MODELS",
    "FakeModel",
    "FakeOllama",
    "RecordedRequest",
    "Reply",
    "Responder",
    "ScriptExhaustedError",
    "ScriptedChatModel",
    "StaticGateway",
    "Turn",
    "TurnLike",
]
