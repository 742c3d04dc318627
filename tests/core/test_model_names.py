"""Model names compared as Ollama resolves them: ``name`` is ``name:latest``."""

from __future__ import annotations

import pytest

from oncall_tui.core.model_names import same_model, with_tag


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("qwen3", "qwen3:latest"),
        ("qwen3:latest", "qwen3"),
        ("qwen3:8b", "qwen3:8b"),
        ("team/runbooks", "team/runbooks:latest"),
        ("localhost:5000/team/model", "localhost:5000/team/model:latest"),
    ],
)
def test_a_name_and_its_latest_tag_are_the_same_model(a: str, b: str) -> None:
    assert same_model(a, b)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("qwen3", "qwen3:8b"),
        ("qwen3:8b", "qwen3:4b"),
        ("qwen3", "qwen3.5"),
        ("llama3", "llama3.1:latest"),
        ("localhost:5000/model", "localhost:5001/model"),
    ],
)
def test_other_tags_and_names_are_other_models(a: str, b: str) -> None:
    assert not same_model(a, b)


def test_a_registry_port_is_not_taken_for_a_tag() -> None:
    assert with_tag("localhost:5000/team/model") == "localhost:5000/team/model:latest"
    assert with_tag("localhost:5000/team/model:q4") == "localhost:5000/team/model:q4"
    assert with_tag("qwen3") == "qwen3:latest"
