"""Ollama model names, compared as Ollama resolves them.

Ollama completes a name without a tag with ``:latest`` (``qwen3`` is ``qwen3:latest``), and
``/api/tags`` always lists the tag, so a model set as ``qwen3`` is listed as ``qwen3:latest``.
Anything that compares a configured name with a listed one goes through :func:`same_model`.
"""

from __future__ import annotations

DEFAULT_TAG = "latest"


def with_tag(name: str) -> str:
    """``name`` with Ollama's default tag when it has none.

    The tag is what follows a ``:`` in the last path segment, so a registry's port
    (``host:5000/team/model``) is not taken for one.
    """
    last_segment = name.rsplit("/", 1)[-1]
    return name if ":" in last_segment else f"{name}:{DEFAULT_TAG}"


def same_model(a: str, b: str) -> bool:
    """Do two names mean the same model to Ollama (``name`` and ``name:latest`` do)?"""
    return with_tag(a) == with_tag(b)
