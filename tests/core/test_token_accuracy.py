"""The token estimate meets its targets on the fixed corpus, for Llama-3 and Qwen alike.

Targets, per class and tokenizer family: the summed error lies between -15% and +25% (an
overcount compacts early; an undercount silently loses text), and no sample is undercounted
by more than 25%. The exact counts are committed in ``bench/tokens/counts.json`` (made with
``python bench/token_accuracy.py --recount``), so no tokenizer is needed here.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from oncall_tui.core.tokens import estimate_text_tokens

TOKENS = Path(__file__).resolve().parents[2] / "bench" / "tokens"
CORPUS = TOKENS / "corpus"
CLASSES = ("english", "chinese", "logs")
FAMILIES = ("llama3", "qwen3")
TARGETS = [(klass, family) for klass in CLASSES for family in FAMILIES]


def exact_counts() -> dict[str, dict[str, int]]:
    counts: dict[str, dict[str, int]] = json.loads((TOKENS / "counts.json").read_text("utf-8"))
    return counts


def samples(klass: str) -> list[tuple[str, str, dict[str, int]]]:
    """``(name, text, exact counts by family)`` of every sample of one class."""
    counts = exact_counts()
    return [
        (name, (CORPUS / name).read_text(encoding="utf-8"), counts[name])
        for name in sorted(counts)
        if name.startswith(klass + "/")
    ]


def test_every_sample_has_exact_counts_and_every_class_enough_samples() -> None:
    on_disk = {path.relative_to(CORPUS).as_posix() for path in CORPUS.glob("*/*.txt")}
    assert on_disk == set(exact_counts())
    for klass in CLASSES:
        assert len(samples(klass)) >= 15, klass


@pytest.mark.parametrize(("klass", "family"), TARGETS)
def test_summed_error_of_a_class_is_between_minus_15_and_plus_25_percent(
    klass: str, family: str
) -> None:
    group = samples(klass)
    estimated = sum(estimate_text_tokens(text) for _, text, _ in group)
    exact = sum(counts[family] for _, _, counts in group)
    error = (estimated - exact) / exact
    assert -0.15 <= error <= 0.25, f"{klass} {family}: {error:+.1%}"


@pytest.mark.parametrize(("klass", "family"), TARGETS)
def test_no_sample_is_undercounted_by_more_than_a_quarter(klass: str, family: str) -> None:
    undercounted = {
        name: f"{estimate_text_tokens(text) / counts[family] - 1:+.1%}"
        for name, text, counts in samples(klass)
        if estimate_text_tokens(text) < 0.75 * counts[family]
    }
    assert not undercounted, f"{family}: {undercounted}"


def test_empty_text_is_zero_tokens() -> None:
    assert estimate_text_tokens("") == 0


@pytest.mark.parametrize("blank", [" ", "\n", "    ", "\n\n\n", " \t \r\n  "])
def test_blank_text_is_one_to_a_few_tokens(blank: str) -> None:
    assert 1 <= estimate_text_tokens(blank) <= 3


@pytest.mark.parametrize("text", ["a", ".", "7", "_", "中", "é", "\U0001f525", "\ud800"])
def test_any_non_blank_text_is_at_least_one_token(text: str) -> None:
    assert estimate_text_tokens(text) >= 1


def test_a_uuid_line_costs_more_than_prose_of_the_same_length() -> None:
    uuid_line = "uid=3f2b8c1e-9a4d-4e7b-b1c2-5d6e7f8a9b0c"
    prose = "The pods came back once the node drained"
    assert len(uuid_line) == len(prose) == 40
    assert estimate_text_tokens(uuid_line) > 2 * estimate_text_tokens(prose)


def test_digits_and_punctuation_cost_more_than_letters() -> None:
    words = "checkout payments inventory workers"
    address = "10.42.3.17:8080 10.42.31.254:9102 1"
    digits = "1715674752043000 20240514031244 417"
    assert len(words) == len(address) == len(digits)
    assert estimate_text_tokens(words) < estimate_text_tokens(address)
    assert estimate_text_tokens(words) < estimate_text_tokens(digits)


def test_a_timestamped_log_line_costs_far_more_than_a_quarter_token_per_character() -> None:
    line = (
        "2024-05-14T03:12:44.512Z ERROR trace_id=4bf92f3577b34da6a3ce929d0e0e4736 "
        'upstream="10.42.3.17:8080" status=504 duration_ms=30012.4\n'
    )
    assert estimate_text_tokens(line) > len(line) / 3


def test_chinese_costs_most_of_a_token_per_character() -> None:
    text = "订单服务下单超时，库存服务的数据库连接池打满。"
    assert len(text) * 0.6 <= estimate_text_tokens(text) <= len(text) * 1.1


def test_english_prose_costs_about_a_token_per_word() -> None:
    text = "We rolled back the payments worker and the error rate returned to normal. " * 4
    words = len(text.split())
    assert words <= estimate_text_tokens(text) <= words * 1.4


def test_the_estimate_grows_with_the_text() -> None:
    line = "May 14 06:21:40 db-08 postgres[1862]: checkpoint complete: wrote 70086 buffers\n"
    counts = [estimate_text_tokens(line * n) for n in range(1, 30)]
    assert counts == sorted(counts)
    assert counts[-1] >= 29 * estimate_text_tokens(line) * 0.95


def test_the_same_text_is_measured_once() -> None:
    text = "kubectl get pods -n payments -o wide  # a text no other test measures\n" * 3
    before = estimate_text_tokens.cache_info()
    first = estimate_text_tokens(text)
    assert estimate_text_tokens(text) == first
    after = estimate_text_tokens.cache_info()
    assert after.hits - before.hits >= 1
    assert after.misses - before.misses == 1
