"""Every HTTP client of the app verifies a server's certificate, with one TLS context that is
loaded once per process (the chat model's two clients, the listing and readiness calls), for
Ollama and for the OpenAI chat-completions API alike."""

from __future__ import annotations

import ssl
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest

from oncall_tui.errors import OncallError
from oncall_tui.llm.factory import build_chat_model
from oncall_tui.llm.ollama_api import OllamaApi
from oncall_tui.llm.openai_model import build_openai_chat_model
from oncall_tui.llm.tls import tls_context
from tests.fakes import FakeOllama, Reply
from tests.fakes.openai_server import FakeOpenAI

Fake = TypeVar("Fake", FakeOllama, FakeOpenAI)


def behind_tls(fake: Fake, context: ssl.SSLContext) -> Fake:
    """``fake``, not yet started, served over TLS with ``context`` (a certificate for
    127.0.0.1 that nothing trusts); its URL is :func:`https`."""
    make_server = fake.make_server

    def make_tls_server() -> Any:
        server = make_server()
        server.socket = context.wrap_socket(server.socket, server_side=True)
        return server

    fake.make_server = make_tls_server  # type: ignore[method-assign]
    return fake


def https(fake: FakeOllama | FakeOpenAI) -> str:
    return fake.url.replace("http://", "https://", 1)


@pytest.fixture
def certificate(tmp_path: Path) -> tuple[Path, Path]:
    """A self-signed certificate for 127.0.0.1, and its key."""
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    request = ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1"]
    names = ["-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"]
    subprocess.run(
        [*request, "-keyout", str(key), "-out", str(cert), *names], check=True, capture_output=True
    )
    return cert, key


@pytest.fixture
def server_context(certificate: tuple[Path, Path]) -> ssl.SSLContext:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(*certificate)
    return context


@pytest.fixture
def tls_server(server_context: ssl.SSLContext) -> Iterator[FakeOllama]:
    with behind_tls(FakeOllama(), server_context) as server:
        yield server


@pytest.fixture
def tls_openai(server_context: ssl.SSLContext) -> Iterator[FakeOpenAI]:
    with behind_tls(FakeOpenAI(), server_context) as server:
        yield server


@pytest.fixture
def loads(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[Any]]:
    """Each loading of certificate authorities from here on; the app's context made anew."""
    loaded: list[Any] = []
    load = ssl.SSLContext.load_verify_locations

    def counted(self: ssl.SSLContext, *args: Any, **kwargs: Any) -> None:
        loaded.append(args or kwargs)
        load(self, *args, **kwargs)

    monkeypatch.setattr(ssl.SSLContext, "load_verify_locations", counted)
    tls_context.cache_clear()
    yield loaded
    tls_context.cache_clear()


def test_a_server_whose_certificate_is_not_trusted_is_refused(
    tls_server: FakeOllama, loads: list[Any]
) -> None:
    with pytest.raises(OncallError) as raised:
        OllamaApi(https(tls_server)).version()
    assert raised.value.code == "MODEL_UNAVAILABLE"
    with pytest.raises(Exception, match="CERTIFICATE_VERIFY_FAILED"):
        build_chat_model(https(tls_server), "qwen3:8b", num_ctx=2048, timeout=5).invoke("hi")
    assert tls_server.chat_requests == []
    assert len(loads) == 1  # both clients, the model's and the listing's, verified with one


def test_the_trusted_certificates_load_once_for_every_client(
    tls_server: FakeOllama,
    certificate: tuple[Path, Path],
    loads: list[Any],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``SSL_CERT_FILE`` names what to trust, as for any httpx client; a chat model (a sync and
    an async client) and the metadata calls, twice over, load it once between them."""
    monkeypatch.setenv("SSL_CERT_FILE", str(certificate[0]))
    tls_server.script(Reply("first"), Reply("second"))
    api = OllamaApi(https(tls_server))
    assert api.version() == tls_server.version
    assert "qwen3:8b" in api.list_models()
    for expected in ("first", "second"):
        model = build_chat_model(https(tls_server), "qwen3:8b", num_ctx=2048, timeout=5)
        assert model.invoke("hi").content == expected
    assert len(loads) == 1


async def test_the_openai_models_verify_with_the_one_context(
    tls_openai: FakeOpenAI,
    certificate: tuple[Path, Path],
    loads: list[Any],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Refused while nothing trusts the certificate; once ``SSL_CERT_FILE`` names it, two
    models (each a sync and an async client) answer, and the authorities loaded once."""
    untrusted = build_openai_chat_model(https(tls_openai), "qwen3:8b", timeout=5)
    with pytest.raises(Exception, match="Connection error"):
        await untrusted.ainvoke("hi")
    assert tls_openai.chat_requests == []
    tls_context.cache_clear()
    loads.clear()
    monkeypatch.setenv("SSL_CERT_FILE", str(certificate[0]))
    tls_openai.script(Reply("first"), Reply("second"))
    for expected in ("first", "second"):
        model = build_openai_chat_model(https(tls_openai), "qwen3:8b", timeout=5)
        assert (await model.ainvoke("hi")).content == expected
    assert len(loads) == 1
