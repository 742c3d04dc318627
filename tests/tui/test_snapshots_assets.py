"""Snapshots of the prompt editor and the skill library (100x32, deterministic data)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual.pilot import Pilot
from textual.widgets import Input

from oncall_tui.services.container import Services
from oncall_tui.tui.screens.prompts import PromptEditorScreen
from oncall_tui.tui.screens.skills import SkillLibraryScreen
from tests.tui.conftest import EXAMPLES_DIR, AssetsHostApp, ScreenFactory, wait_until

SIZE = (100, 32)
OWNER = "alice"

HostFactory = Callable[[ScreenFactory], AssetsHostApp]
SnapCompare = Callable[..., bool]


class TestPromptEditor:
    def test_two_prompts_with_the_second_active(
        self,
        snap_compare: SnapCompare,
        assets_host: HostFactory,
        library_services: Services,
    ) -> None:
        configuration = library_services.configuration
        configuration.list_prompts(OWNER)  # creates the default prompt first
        runbook = configuration.create_prompt(
            OWNER,
            "Kubernetes incident",
            "You help with Kubernetes incidents.\nStart with `kubectl get events` and the "
            "failing pod's `describe` output; never delete a pod without asking.",
        )
        configuration.save_configuration(OWNER, system_prompt_id=runbook.id)

        async def run_before(pilot: Pilot[Any]) -> None:
            app = pilot.app
            await wait_until(
                pilot,
                lambda: isinstance(app.screen, PromptEditorScreen) and app.screen.loaded,
            )
            await pilot.app.workers.wait_for_complete()
            await pilot.pause()

        assert snap_compare(
            assets_host(PromptEditorScreen), terminal_size=SIZE, run_before=run_before
        )


class TestSkillLibrary:
    def test_the_five_examples_with_two_selected(
        self,
        snap_compare: SnapCompare,
        assets_host: HostFactory,
        library_services: Services,
    ) -> None:
        configuration = library_services.configuration
        skills = {
            path.parent.name: configuration.add_skill(OWNER, path.name, path.read_bytes())
            for path in sorted(EXAMPLES_DIR.glob("*/SKILL.md"))
        }
        assert len(skills) == 5
        configuration.save_configuration(
            OWNER, skill_ids=[skills["k8s-pod-triage"].id, skills["log-analysis"].id]
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
            # The path field's cursor blinks: drawn or not depends on when the picture is
            # taken (a loaded machine), so it is held still.
            app.screen.query_one("#skill-path", Input).cursor_blink = False
            await pilot.app.workers.wait_for_complete()
            await pilot.pause()

        assert snap_compare(
            assets_host(SkillLibraryScreen), terminal_size=SIZE, run_before=run_before
        )
