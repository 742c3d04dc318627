"""A snapshot of every screen at 80x24 and 120x40: the main screen (at 80 columns, its narrow
layout), the main screen in Chinese, the model picker, search, the keys help, the skill library,
the prompt editor and the confirm dialog.

Fixed data (the demo session, fixed models, the example skills), a fixed clock, and every load
done before the picture; fields whose cursor blinks are held still, since whether a blink is
drawn depends on when the picture is taken on a loaded machine."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import DataTable, Input

from oncall_tui.services.container import Services
from oncall_tui.services.views import ModelInfo
from oncall_tui.tui.app import OncallApp
from oncall_tui.tui.screens.keys import KeysScreen
from oncall_tui.tui.screens.models import ModelPicker
from oncall_tui.tui.screens.prompts import PromptEditorScreen
from oncall_tui.tui.screens.search import SearchScreen
from oncall_tui.tui.screens.skills import SkillLibraryScreen
from oncall_tui.tui.widgets.dialogs import ConfirmDialog
from tests.tui.conftest import EXAMPLES_DIR, AssetsHostApp, ScreenFactory
from tests.tui.demo import FIXED_NOW, build_demo, demo_app
from tests.tui.harness import wait_until
from tests.tui.test_snapshots_main import fixed_clock, settle  # noqa: F401 (a fixture)

SIZES = [(80, 24), (120, 40)]
SnapCompare = Callable[..., bool]
HostFactory = Callable[[ScreenFactory], AssetsHostApp]

pytestmark = [
    pytest.mark.usefixtures("fixed_clock"),
    pytest.mark.parametrize("size", SIZES, ids=["80x24", "120x40"]),
]

MODELS = [
    ModelInfo(
        "llama3.1:8b",  # the demo's model: the current one
        4_920_753_328,
        "llama",
        "8.0B",
        "Q4_K_M",
        None,
        context_length=131_072,
        window_tokens=8192,
        tools=True,
        described=True,
    ),
    ModelInfo(
        "qwen3:8b",
        5_225_388_164,
        "qwen3",
        "8.2B",
        "Q4_K_M",
        None,
        context_length=40_960,
        window_tokens=8192,
        tools=True,
        described=True,
    ),
    ModelInfo(
        "llama3.2:3b",
        2_019_393_189,
        "llama",
        "3.2B",
        "Q4_K_M",
        None,
        context_length=131_072,
        window_tokens=8192,
        tools=True,
        described=True,
    ),
    ModelInfo(
        "gemma:2b",
        1_678_456_656,
        "gemma",
        "2.5B",
        "Q4_K_M",
        None,
        context_length=8192,
        window_tokens=8192,
        tools=False,
        described=True,
    ),
]


@pytest.fixture
def demo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> OncallApp:
    """The demo database's app, its clock fixed for search's times as for the log's."""
    monkeypatch.setattr("oncall_tui.tui.screens.search.local_now", lambda: FIXED_NOW)
    build_demo(tmp_path / "demo.db")
    return demo_app(tmp_path / "demo.db")


async def on_top(pilot: Pilot[Any], kind: type, *, still: Sequence[str] = ()) -> None:
    """Wait for a screen of ``kind`` and for every load it started; ``still`` fields stop
    blinking."""
    app = pilot.app
    await wait_until(pilot, lambda: isinstance(app.screen, kind) and app.screen.is_mounted)
    await wait_until(pilot, lambda: all(app.screen.query(selector) for selector in still))
    await wait_until(pilot, lambda: not app.workers)
    for selector in still:
        app.screen.query_one(selector, Input).cursor_blink = False
    await pilot.pause()


class TestMainScreen:
    def test_the_demo_session(
        self, snap_compare: SnapCompare, demo: OncallApp, size: tuple[int, int]
    ) -> None:
        assert snap_compare(demo, terminal_size=size, run_before=settle)


class TestChinese:
    def test_the_demo_session_in_chinese(
        self, snap_compare: SnapCompare, tmp_path: Path, size: tuple[int, int]
    ) -> None:
        """Every label of the main screen in Chinese; wide characters keep the panes aligned."""
        build_demo(tmp_path / "demo.db")
        app = demo_app(tmp_path / "demo.db", lang="zh")
        assert snap_compare(app, terminal_size=size, run_before=settle)


class TestModelPicker:
    def test_three_models_with_their_details(
        self,
        snap_compare: SnapCompare,
        demo: OncallApp,
        size: tuple[int, int],
        monkeypatch: pytest.MonkeyPatch,
    ) -> None:
        monkeypatch.setattr(demo.services, "installed_models", lambda: list(MODELS))
        monkeypatch.setattr(demo.services, "describe_models", lambda listed: list(MODELS))

        async def run_before(pilot: Pilot[Any]) -> None:
            await settle(pilot)
            demo.push_screen(ModelPicker(demo.services))
            await on_top(pilot, ModelPicker)

        assert snap_compare(demo, terminal_size=size, run_before=run_before)


class TestSearch:
    def test_hits_for_a_word(
        self, snap_compare: SnapCompare, demo: OncallApp, size: tuple[int, int]
    ) -> None:
        async def run_before(pilot: Pilot[Any]) -> None:
            await settle(pilot)
            demo.push_screen(SearchScreen(demo.services, "pool"))
            await on_top(pilot, SearchScreen, still=["#search-query"])
            screen = pilot.app.screen
            assert isinstance(screen, SearchScreen)
            await wait_until(pilot, lambda: bool(screen.hits) and not pilot.app.workers)
            await pilot.pause()

        assert snap_compare(demo, terminal_size=size, run_before=run_before)


class TestKeysHelp:
    def test_every_key_with_its_id(
        self, snap_compare: SnapCompare, demo: OncallApp, size: tuple[int, int]
    ) -> None:
        async def run_before(pilot: Pilot[Any]) -> None:
            await settle(pilot)
            await pilot.press("f1")
            await on_top(pilot, KeysScreen)
            table = pilot.app.screen.query_one(DataTable)
            await wait_until(
                pilot, lambda: table.virtual_size.width <= table.scrollable_content_region.width
            )
            await pilot.pause()

        assert snap_compare(demo, terminal_size=size, run_before=run_before)


class TestConfirmDialog:
    def test_delete_the_open_session(
        self, snap_compare: SnapCompare, demo: OncallApp, size: tuple[int, int]
    ) -> None:
        async def run_before(pilot: Pilot[Any]) -> None:
            await settle(pilot)
            await pilot.press("f8")
            await on_top(pilot, ConfirmDialog)

        assert snap_compare(demo, terminal_size=size, run_before=run_before)


class TestSkillLibrary:
    def test_the_five_examples_with_two_selected(
        self,
        snap_compare: SnapCompare,
        assets_host: HostFactory,
        library_services: Services,
        size: tuple[int, int],
    ) -> None:
        configuration = library_services.configuration
        skills = {
            path.parent.name: configuration.add_skill("alice", path.name, path.read_bytes())
            for path in sorted(EXAMPLES_DIR.glob("*/SKILL.md"))
        }
        configuration.save_configuration(
            "alice", skill_ids=[skills["k8s-pod-triage"].id, skills["log-analysis"].id]
        )

        async def run_before(pilot: Pilot[Any]) -> None:
            app = pilot.app
            await wait_until(
                pilot,
                lambda: (
                    isinstance(app.screen, SkillLibraryScreen)
                    and app.screen.loaded
                    and not app.screen.busy
                ),
            )
            await on_top(pilot, SkillLibraryScreen, still=["#skill-path"])

        assert snap_compare(
            assets_host(SkillLibraryScreen), terminal_size=size, run_before=run_before
        )


class TestPromptEditor:
    def test_two_prompts_with_the_second_active(
        self,
        snap_compare: SnapCompare,
        assets_host: HostFactory,
        library_services: Services,
        size: tuple[int, int],
    ) -> None:
        configuration = library_services.configuration
        configuration.list_prompts("alice")  # creates the default prompt first
        runbook = configuration.create_prompt(
            "alice",
            "Kubernetes incident",
            "You help with Kubernetes incidents.\nStart with `kubectl get events` and the "
            "failing pod's `describe` output; never delete a pod without asking.",
        )
        configuration.save_configuration("alice", system_prompt_id=runbook.id)

        async def run_before(pilot: Pilot[Any]) -> None:
            app = pilot.app
            await wait_until(
                pilot,
                lambda: isinstance(app.screen, PromptEditorScreen) and app.screen.loaded,
            )
            await on_top(pilot, PromptEditorScreen, still=["#prompt-label"])

        assert snap_compare(
            assets_host(PromptEditorScreen), terminal_size=size, run_before=run_before
        )
