"""Test doubles: a loopback fake Ollama server and a scripted LangChain chat model."""

from .chat_model import ScriptedChatModel, ScriptExhaustedError, Turn, TurnLike
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
    "Turn",
    "TurnLike",
]
