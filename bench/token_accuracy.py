"""How close the token estimate comes to exact Llama-3 and Qwen counts, and how fast it is.

Reads the fixed corpus under ``bench/tokens/corpus`` (classes ``english``, ``chinese``,
``logs``; a log sample's kind is its name up to the first ``-``) and the exact counts in
``bench/tokens/counts.json``. For each tokenizer family it prints, per class and per log kind:
samples, characters, exact tokens, and for the estimate and for the old one (four characters
per token plus a CJK top-up, kept here as it was) the estimated tokens, the summed error and
the lowest and highest single-sample error. Then the estimate's speed on 100 KB of logs,
uncached, median of several runs, and what a refusal at 95% costs to say how much of such a
paste would fit. Prints figures; asserts nothing (the targets are asserted by
``tests/core/test_token_accuracy.py``).

    python bench/token_accuracy.py [--runs 21]

``--recount`` recomputes ``counts.json`` with the exact tokenizers of the ``quicktok-v1``
package, after a change to the corpus. It needs only that package, not the app's
dependencies, so it can run under any Python that has it:

    python bench/token_accuracy.py --recount
"""

from __future__ import annotations

import argparse
import importlib
import json
import math
import re
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

ROOT = Path(__file__).resolve().parent.parent
TOKENS = Path(__file__).resolve().parent / "tokens"
CORPUS = TOKENS / "corpus"
COUNTS = TOKENS / "counts.json"
CLASSES = ("english", "chinese", "logs")
FAMILIES = ("llama3", "qwen3")
SPEED_CHARS = 100_000

Estimator = Callable[[str], int]


def corpus() -> dict[str, str]:
    """Every sample's text by its path relative to the corpus (``logs/nginx-error.txt``)."""
    return {
        path.relative_to(CORPUS).as_posix(): path.read_text(encoding="utf-8")
        for path in sorted(CORPUS.glob("*/*.txt"))
    }


def recount() -> None:
    """Write ``counts.json``: exact token counts of every sample, ordinary encoding."""
    try:
        quicktok: Any = importlib.import_module("quicktok")  # untyped; only this path needs it
    except ModuleNotFoundError:
        sys.exit("--recount needs the quicktok-v1 package: run it with a Python that has it")
    encodings = {family: quicktok.get_encoding(family) for family in FAMILIES}
    counts = {  # special-token text (``<|eot_id|>`` in a pasted log) counts as plain text
        name: {
            family: len(encodings[family].encode(text, disallowed_special=()))
            for family in FAMILIES
        }
        for name, text in corpus().items()
    }
    COUNTS.write_text(json.dumps(counts, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    print(f"wrote {COUNTS.relative_to(ROOT)}: {len(counts)} samples")


_OLD_CJK = re.compile(
    "[\u1100-\u11ff\u2e80-\u2fdf\u3000-\u303f\u3040-\u30ff\u3100-\u31ff\u3400-\u4dbf"
    "\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef\U00020000-\U0003134f]"
)


def old_estimate(text: str) -> int:
    """The estimate the new one replaced, as ``oncall_tui/llm/tokens.py`` had it: a quarter
    token per character, topped up to one token per CJK character."""
    cjk = len(text) - len(_OLD_CJK.sub("", text))
    return math.ceil(len(text) / 4 + cjk * 0.75)


class Sample(NamedTuple):
    name: str
    text: str
    exact: dict[str, int]

    @property
    def group(self) -> str:
        """``english``, ``chinese``, or ``logs/<kind>`` for a log sample."""
        klass, file = self.name.split("/")
        return f"{klass}/{file.split('-')[0]}" if klass == "logs" else klass


def load() -> list[Sample]:
    counts: dict[str, dict[str, int]] = json.loads(COUNTS.read_text(encoding="utf-8"))
    texts = corpus()
    if set(counts) != set(texts):
        stale = sorted(set(counts) ^ set(texts))
        sys.exit(f"counts.json does not match the corpus ({', '.join(stale)}): run --recount")
    return [Sample(name, text, counts[name]) for name, text in texts.items()]


def error(estimate: int, exact: int) -> float:
    return 100.0 * (estimate - exact) / exact


def figures(samples: list[Sample], family: str, estimate: Estimator) -> str:
    exact = sum(s.exact[family] for s in samples)
    estimates = [estimate(s.text) for s in samples]
    errors = [error(e, s.exact[family]) for e, s in zip(estimates, samples, strict=True)]
    return (
        f"{sum(estimates):>8,} {error(sum(estimates), exact):>+7.1f}% "
        f"{min(errors):>+6.0f}% ..{max(errors):>+5.0f}%"
    )


def report(samples: list[Sample], new: Estimator) -> None:
    groups = sorted({s.group for s in samples}, key=lambda g: (CLASSES.index(g.split("/")[0]), g))
    rows = [(klass, [s for s in samples if s.name.startswith(klass + "/")]) for klass in CLASSES]
    rows += [(f"  {g}", [s for s in samples if s.group == g]) for g in groups if "/" in g]
    head = f"{'est':>8} {'sum err':>8} {'per-sample range':>16}"
    for family in FAMILIES:
        print(f"\n{family}")
        print(f"{'':16}{'':25}  {'new estimate':^34}  {'old estimate':^34}")
        print(f"{'group':16}{'samples':>7} {'chars':>8} {'exact':>8}  {head}  {head}")
        for label, group in rows:
            chars = sum(len(s.text) for s in group)
            exact = sum(s.exact[family] for s in group)
            print(
                f"{label:16}{len(group):>7} {chars:>8,} {exact:>8,}  "
                f"{figures(group, family, new)}  {figures(group, family, old_estimate)}"
            )


def speed(samples: list[Sample], uncached: Estimator, runs: int) -> None:
    logs = "".join(s.text for s in samples if s.name.startswith("logs/"))
    text = (logs * (SPEED_CHARS // len(logs) + 1))[:SPEED_CHARS]
    fitting_speed(text, runs)
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        uncached(text)
        times.append(time.perf_counter() - start)
    median = statistics.median(times) * 1000
    print(f"\nspeed: {median:.2f} ms per 100 KB of logs (uncached, median of {runs} runs)")


def fitting_speed(text: str, runs: int) -> None:
    """What a refusal at 95% costs to say how much of a 100 KB paste fits: the search over its
    beginnings (``services/context.characters_that_fit``), in an 8,192-token window a third full."""
    from oncall_tui.core.memory import ContextBudget
    from oncall_tui.services.context import characters_that_fit

    times = []
    for run in range(runs):  # a text of its own each run: the estimate caches what it saw
        start = time.perf_counter()
        fit = characters_that_fit(ContextBudget(8192), 2_700, text[run:])
        times.append(time.perf_counter() - start)
    median = statistics.median(times) * 1000
    print(f"\nhow much fits: about {fit:,} of 100,000 characters, in {median:.1f} ms (median)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--recount", action="store_true", help="rewrite counts.json (quicktok)")
    parser.add_argument("--runs", type=int, default=21, help="timed runs for the speed figure")
    args = parser.parse_args()
    if args.recount:
        recount()
        return
    sys.path.insert(0, str(ROOT))
    from oncall_tui.core.tokens import estimate_text_tokens

    samples = load()
    print(f"{len(samples)} samples; exact counts from {COUNTS.relative_to(ROOT)}")
    report(samples, estimate_text_tokens)
    speed(samples, estimate_text_tokens.__wrapped__, args.runs)


if __name__ == "__main__":
    main()
