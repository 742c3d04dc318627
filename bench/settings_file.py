"""What the settings file costs: resolving the settings with and without a file, importing
``tomllib`` (paid only by a start that finds a file), and one saved preference (``tomlkit``
edit, fsync, rename). Prints figures; asserts nothing.

    python bench/settings_file.py [--runs 300]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from oncall_tui.services.container import Services  # noqa: E402
from oncall_tui.settings import Settings  # noqa: E402

FULL_FILE = """# oncall-tui settings
model = "qwen3:8b"
theme = "nord"
num_ctx = 16384
timeout = 120
deadline = 600
ollama_url = "http://gpu-box:11434"
lang = "zh"
log_level = "info"

[keys]
new_session = "ctrl+n"
find_session = "ctrl+f,f12"

[[mcp_servers]]
name = "files"
command = ["mcp-files", "--root", "/srv"]
"""

MARGINAL_IMPORT = (
    "import time, oncall_tui.settings\n"
    "start = time.perf_counter()\n"
    "import tomllib\n"
    "print(time.perf_counter() - start)\n"
)


def median_ms(action: Callable[[], object], runs: int) -> float:
    times: list[float] = []
    for _ in range(runs):
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=300)
    runs = parser.parse_args().runs
    with tempfile.TemporaryDirectory() as workdir:
        folder = Path(workdir)
        full = folder / "full.toml"
        full.write_text(FULL_FILE, encoding="utf-8")

        def resolve(path: Path) -> Callable[[], object]:
            return lambda: Settings.resolve(user="bench", config=str(path), environ={})

        resolve(full)()  # tomllib loaded once, as in a process that found a file
        no_file = median_ms(resolve(folder / "missing.toml"), runs)
        with_file = median_ms(resolve(full), runs)
        services = Services(Settings.resolve(user="bench", config=str(full), environ={}))
        themes = iter(range(runs))
        saved = median_ms(lambda: services.save_preference("theme", f"t{next(themes)}"), runs)
        imports = [
            float(
                subprocess.run(
                    [sys.executable, "-c", MARGINAL_IMPORT],
                    capture_output=True,
                    text=True,
                    check=True,
                    cwd=REPO,
                ).stdout
            )
            * 1000
            for _ in range(15)
        ]
    print(f"Settings.resolve, no file:        {no_file:.3f} ms (median of {runs})")
    print(f"Settings.resolve, a full file:    {with_file:.3f} ms (median of {runs})")
    print(
        f"import tomllib after the settings: {statistics.median(imports):.1f} ms "
        f"(median of 15 fresh processes; {min(imports):.1f} - {max(imports):.1f})"
    )
    print(f"save_preference (edit, fsync, rename): {saved:.2f} ms (median of {runs})")


if __name__ == "__main__":
    main()
