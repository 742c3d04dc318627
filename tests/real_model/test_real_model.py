"""The engine with a real model: SmolLM2-135M-Instruct behind llama.cpp's server."""

from __future__ import annotations

import json
import urllib.request

import pytest

from tests.real_model.llama_server import WINDOW, LlamaServer

pytestmark = pytest.mark.real_model


def test_the_server_listens_on_loopback_and_reports_its_window(llama_server: LlamaServer) -> None:
    assert llama_server.url.startswith("http://127.0.0.1:")
    with urllib.request.urlopen(f"{llama_server.url}/props", timeout=10) as response:
        props = json.load(response)
    assert props["default_generation_settings"]["n_ctx"] == WINDOW
