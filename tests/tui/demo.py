"""A realistic demo database for snapshots and screenshots, written through the services.

Everything goes through the real services and the scripted model (tool calls included),
except one fixed compaction time so that pictures do not change from run to run.
"""

from __future__ import annotations

import asyncio
import sqlite3
from datetime import UTC, datetime
from pathlib import Path

from textual.app import App, ComposeResult

from oncall_tui.core.memory import MemoryMode
from oncall_tui.errors import Language
from oncall_tui.services.container import Services
from oncall_tui.settings import Settings
from oncall_tui.tui.app import OncallApp, build_app
from oncall_tui.tui.widgets.gauge import ContextGauge
from tests.fakes.chat_model import ScriptedChatModel, Turn, TurnLike
from tests.fakes.gateway import StaticGateway

EXAMPLES = Path(__file__).resolve().parents[2] / "skills-examples"
DEMO_WINDOW = 8192
FIXED_TIME = "2026-11-30 03:12:00.000000"
FIXED_NOW = datetime(2026, 11, 30, 4, 0, tzinfo=UTC)
"""The demo's "now": its messages are from today, shown in UTC."""
PICTURED_EXAMPLES = Path.home() / ".local/share/pipx/venvs/oncall-tui/skills_examples"
"""Where the screenshots say the bundled examples are (where they are on the machine that
makes the pictures is nobody's business)."""
HELD_STILL = {
    "oncall_tui.tui.chat_log.log.local_now": lambda: FIXED_NOW,
    "oncall_tui.tui.screens.search.local_now": lambda: FIXED_NOW,
    "oncall_tui.tui.panes.chat.skills_examples_path": lambda: PICTURED_EXAMPLES,
}
"""What ``scripts/screenshots.py`` replaces (each by name) so that a picture is the same
whenever and wherever it is made: the day, and the examples' folder."""

INCIDENT: list[tuple[str, Turn | list[Turn]]] = [
    (
        "payments-api p99 went from 180 ms to 2.4 s at 02:51. Where do I start?",
        Turn(
            text="Start with what changed and where the time goes:\n\n"
            "1. `kubectl -n payments rollout history deploy/payments-api`\n"
            "2. p99 by route: `histogram_quantile(0.99, sum by (le, route) "
            '(rate(http_request_duration_seconds_bucket{app="payments-api"}[5m])))`\n\n'
            "Paste both and I will read them with you."
        ),
    ),
    (
        "rollout at 02:47 (image 1.42.0). p99 is only bad on POST /charge",
        [
            Turn.call("load_skill", {"skill_name": "log-analysis"}),
            Turn(
                text="Following **log-analysis**. A regression on one route right after a deploy "
                "points at the release. Count errors for that route since 02:40:\n\n"
                "```bash\nkubectl -n payments logs deploy/payments-api --since=30m \\\n"
                "  | grep 'POST /charge' | awk '{print $9}' | sort | uniq -c\n```"
            ),
        ],
    ),
    (
        "mostly 200s, but every slow one logs `pool exhausted: waited 2000ms`",
        Turn(
            text="That is connection-pool starvation to the database, introduced at 02:47.\n\n"
            "**Next:** compare `DB_POOL_SIZE` between 1.41 and 1.42, and check "
            "`pg_stat_activity` for idle-in-transaction sessions. Rolling back is the "
            "fastest mitigation; say *go* and I will write the command for you to run."
        ),
    ),
]


def _services(db_path: Path, turns: list[TurnLike]) -> Services:
    model, settings = ScriptedChatModel(turns), Settings(db_path=db_path, user="alice")
    return Services(settings, StaticGateway(model, DEMO_WINDOW, settings.model))


async def _chat(services: Services, session_id: int | None, text: str) -> int:
    sid = session_id
    async for event in services.chat.send("alice", session_id, text):
        sid = getattr(event, "session_id", sid)
    assert sid is not None
    return sid


def replies(reply: Turn | list[Turn]) -> list[Turn]:
    """The model's turns answering one question."""
    return reply if isinstance(reply, list) else [reply]


def build_demo(db_path: Path) -> int:
    """Seed prompts, the example skills, three sessions; return the incident session's id."""
    turns: list[TurnLike] = [
        "Disk at 91% on db-3: WAL archiving is failing since 01:10.",
        "Alert storm traced to one noisy exporter; silence proposed.",
        *replies(INCIDENT[0][1]),
        "payments-api p99 180 ms -> 2.4 s from 02:51; asked for rollout history and p99 by route.",
    ]
    for _, reply in INCIDENT[1:]:
        turns.extend(replies(reply))
    services = _services(db_path, turns)
    try:
        configuration = services.configuration
        configuration.create_prompt(
            "alice", "Terse SRE", "Answer in at most five lines. Commands first, prose after."
        )
        ids = [
            configuration.add_skill("alice", "SKILL.md", (folder / "SKILL.md").read_bytes()).id
            for folder in sorted(EXAMPLES.iterdir())
            if (folder / "SKILL.md").exists()
        ]
        configuration.save_configuration("alice", skill_ids=[ids[1], ids[3], ids[2]])

        async def scenario() -> int:
            await _chat(services, None, "db-3 disk alert at 91%")
            await _chat(services, None, "Alert storm right after the 02:40 deploy")
            incident = await _chat(services, None, INCIDENT[0][0])
            await services.memory.compact("alice", incident)
            for question, _ in INCIDENT[1:]:
                await _chat(services, incident, question)
            await services.memory.set_mode("alice", incident, MemoryMode.CONTEXT_70_PERCENT)
            return incident

        incident = asyncio.run(scenario())
    finally:
        services.close()
    with sqlite3.connect(db_path) as connection:
        connection.execute("UPDATE chat_session SET last_compacted_at = ?", (FIXED_TIME,))
        connection.execute(  # a minute apart, from the fixed time: the headers never change
            "UPDATE message SET created_at = datetime(?, '+' || (id - 1) || ' minutes')",
            (FIXED_TIME,),
        )
    return incident


def demo_app(
    db_path: Path, turns: list[TurnLike] | None = None, *, lang: Language = "en"
) -> OncallApp:
    model = ScriptedChatModel(turns or [])
    settings = Settings(db_path=db_path, user="alice", lang=lang)
    # the demo's replies are by the model in use: their headers name none
    return build_app(settings, gateway=StaticGateway(model, DEMO_WINDOW, settings.model))


class GaugeApp(App[None]):
    """The context gauge alone, at a given reading."""

    CSS = "ContextGauge { width: 40; margin: 1 2; }"

    def __init__(self, used: int, window: int = DEMO_WINDOW) -> None:
        super().__init__()
        self.used, self.window = used, window

    def compose(self) -> ComposeResult:
        yield ContextGauge()

    def on_mount(self) -> None:
        self.query_one(ContextGauge).update_usage(self.used, self.window)
