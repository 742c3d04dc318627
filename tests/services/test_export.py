"""Exporting a session: the Markdown a postmortem starts from, the JSON of ``sessions show``,
and files written whole, private, or not at all. Sessions are made through the services with
the scripted model, on a real SQLite file."""

from __future__ import annotations

import asyncio
import errno
import json
import os
import re
import stat
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

from oncall_tui.core.events import TokenDelta, UserMessageStored
from oncall_tui.errors import OncallError
from oncall_tui.services import chat as chat_service
from oncall_tui.services.container import Services
from oncall_tui.services.export import TITLE_CHARS, ExportService, title_words
from oncall_tui.services.transcript_markdown import closes_itself, fenced
from oncall_tui.services.views import MessageView
from tests.cli.test_readme_contract import documented
from tests.conftest import RunCli, collect, make_settings
from tests.fakes.chat_model import ScriptedChatModel, Turn
from tests.fakes.gateway import StaticGateway

Engine = Callable[..., Services]

ZONE = timezone(timedelta(hours=8))
EXPORTED_AT = datetime(2026, 12, 1, 13, 30, 59, tzinfo=UTC)  # 21:30:59 at +08:00

pytestmark = pytest.mark.both_engines


def exporter(services: Services) -> ExportService:
    """The service as the container builds it, with the clock and zone fixed."""
    return ExportService(
        services.sessions, services.memory, model="qwen3:8b", clock=lambda: EXPORTED_AT, zone=ZONE
    )


def local(message: MessageView | datetime) -> str:
    moment = message if isinstance(message, datetime) else message.created_at
    aware = moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment
    return f"{aware.astimezone(ZONE):%Y-%m-%d %H:%M:%S} +08:00"


def headings(markdown: str) -> list[str]:
    """The text of every heading, as a reader sees it (escapes resolved)."""
    tokens = MarkdownIt("commonmark").parse(markdown)
    return [
        "".join(child.content for child in tokens[i + 1].children or ())
        for i, t in enumerate(tokens)
        if t.type == "heading_open"
    ]


def code_blocks(markdown: str) -> list[str]:
    return [t.content for t in MarkdownIt("commonmark").parse(markdown) if t.type == "fence"]


async def session_with_tools_and_compaction(services: Services) -> int:
    """A call to the clock, a compaction of those two messages, then two more."""
    first = await collect(services.chat.send("alice", None, "api-7 crashloops: since when?"))
    stored = first[0]
    assert isinstance(stored, UserMessageStored)
    await services.memory.compact("alice", stored.session_id)
    await collect(services.chat.send("alice", stored.session_id, "and now?"))
    return stored.session_id


@pytest.fixture
def chatted(engine: Engine) -> tuple[Services, int]:
    services = engine(
        ScriptedChatModel(
            [
                [("get_current_time", {"zone": "UTC"})],
                "Since **21:02**, see `kubectl get events`.",
                "SUMMARY: api-7 crashloops since 21:02.",
                "Still crashlooping.",
            ]
        )
    )
    return services, asyncio.run(session_with_tools_and_compaction(services))


# -- Markdown ------------------------------------------------------------------------------------


def test_markdown_gives_facts_and_every_message_with_its_local_time(
    chatted: tuple[Services, int],
) -> None:
    services, session_id = chatted
    document = exporter(services).render("alice", session_id, "md")
    messages = services.sessions.messages("alice", session_id)
    assert document.startswith("# api-7 crashloops: since when?\n\n")
    assert "Exported from oncall-tui on 2026-12-01 21:30:59 +08:00." in document
    assert f"- **Session:** {session_id}\n" in document
    assert "- **Messages:** 4\n" in document
    assert "- **Model (when exported):** `qwen3:8b`\n" in document
    assert "- **Memory mode:** `every_30_turns`\n" in document
    assert [m.model for m in messages] == [None, "scripted", None, "scripted"]
    assert [h for h in headings(document) if h[0].isdigit()] == [
        f"{m.position + 1} · {m.role} · {local(m)}" + (f" · {m.model}" if m.model else "")
        for m in messages
    ]
    assert "Since **21:02**, see `kubectl get events`." in document  # a reply stays Markdown
    assert "```text\napi-7 crashloops: since when?\n```" in document  # user text as typed


def test_a_tool_call_is_one_line_with_its_arguments_status_and_result(
    chatted: tuple[Services, int],
) -> None:
    services, session_id = chatted
    document = exporter(services).render("alice", session_id, "md")
    (call,) = services.sessions.messages("alice", session_id)[1].tool_calls
    summary = call.summary  # a time and a zone: nothing Markdown would read
    assert not re.search(r"[\\`*_\[\]<>#|!~&]", summary)
    line = next(line for line in document.splitlines() if line.startswith("**Tool call**"))
    assert line == (
        f'**Tool call** `get_current_time` `{{"zone": "UTC"}}` → ok: {summary} '
        f"({call.duration_ms:,} ms)"
    )
    assert call.summary.startswith("UTC: ")


def test_the_summary_is_marked_model_written_and_the_boundary_lies_between_its_messages(
    chatted: tuple[Services, int],
) -> None:
    services, session_id = chatted
    document = exporter(services).render("alice", session_id, "md")
    assert "## Summary (written by the model)" in document
    made = services.memory.state("alice", session_id).last_compacted_at
    assert made is not None
    quote = document.index(f"> **Model-written summary** of messages 1–2, made {local(made)}: ")
    assert "not the user's words, and not evidence." in document[quote:]
    assert "> SUMMARY: api-7 crashloops since 21:02." in document
    boundary = document.index("**Compaction boundary.** The 2 messages above are summarised")
    assert document.index("### 2 · assistant") < boundary < document.index("### 3 · user")
    assert "- **Compaction boundary:** after message 2 (messages 1–2 are summarised)" in document


async def test_everything_summarised_puts_the_boundary_after_the_last_message(
    engine: Engine,
) -> None:
    services = engine(ScriptedChatModel(["pong", "SUMMARY: ping, pong."]))
    stored = (await collect(services.chat.send("alice", None, "ping")))[0]
    assert isinstance(stored, UserMessageStored)
    await services.memory.compact("alice", stored.session_id)
    document = exporter(services).render("alice", stored.session_id, "md")
    assert document.rstrip().endswith(
        "---\n\n**Compaction boundary.** The 2 messages above are summarised in the "
        "model-written summary; from here on the model saw that summary instead of them, and "
        "the messages below.\n\n---"
    )
    assert document.index("### 2 · assistant") < document.index("**Compaction boundary.**")


async def test_fences_inside_a_message_cannot_break_the_document(engine: Engine) -> None:
    pasted = "logs:\n```\nOOMKilled\n````\n# not a heading\n~~~\n<!-- open"
    reply = "Run this:\n\n```sh\nkubectl describe pod api-7\n```\n\n# Cause\nmemory."
    services = engine(ScriptedChatModel([reply, "second reply"]))
    stored = (await collect(services.chat.send("alice", None, pasted)))[0]
    assert isinstance(stored, UserMessageStored)
    await collect(services.chat.send("alice", stored.session_id, "next"))
    document = exporter(services).render("alice", stored.session_id, "md")
    assert f"`````text\n{pasted}\n`````" in document  # longer than the 4-backtick run inside
    assert code_blocks(document)[0] == pasted + "\n"  # read back exactly as it was typed
    numbered = [h.split(" · ")[:2] for h in headings(document) if h[0].isdigit()]
    assert numbered == [["1", "user"], ["2", "assistant"], ["3", "user"], ["4", "assistant"]]
    assert "Cause" in headings(document)  # the reply is Markdown: its own heading is kept


async def test_a_reply_cut_off_inside_a_fence_is_fenced_and_marked_failed(engine: Engine) -> None:
    cut = Turn.raises(ConnectionError("dropped"), after=3, text="Try:\n```sh\nkubectl logs api-7")
    services = engine(ScriptedChatModel([cut, "answered"]))
    stored = (await collect(services.chat.send("alice", None, "what now?")))[0]
    assert isinstance(stored, UserMessageStored)
    session_id = stored.session_id
    await collect(services.chat.retry("alice", session_id))
    document = exporter(services).render("alice", session_id, "md")
    failed = services.sessions.messages("alice", session_id)[1]
    assert failed.status == "failed"
    assert not closes_itself(failed.content)
    assert f"2 · assistant · {local(failed)} · scripted · failed" in headings(document)
    assert "*Failed: the reply broke off with an error; what had arrived is kept.*" in document
    assert f"````markdown\n{failed.content}\n````" in document
    assert headings(document)[-1].startswith("3 · assistant")  # the next header survived


async def test_interrupted_and_truncated_replies_are_marked(
    db_path: Path, db_url: str | None, built: list[Services], monkeypatch: pytest.MonkeyPatch
) -> None:
    model = ScriptedChatModel(
        [Turn(text="one two three four five six", chunk_size=4, delay_per_chunk=0.1), "x" * 40]
    )
    monkeypatch.setattr(chat_service, "MAX_REPLY_CHARS", 20)
    services = Services(make_settings(db_path, db_url=db_url), gateway=StaticGateway(model, 8192))
    built.append(services)
    session_ids: list[int] = []
    first_token = asyncio.Event()

    async def send() -> None:
        async for event in services.chat.send("alice", None, "count"):
            if isinstance(event, UserMessageStored):
                session_ids.append(event.session_id)
            if isinstance(event, TokenDelta):
                first_token.set()

    task = asyncio.create_task(send())
    await first_token.wait()
    task.cancel()  # what Esc and Ctrl-C do
    with pytest.raises(asyncio.CancelledError):
        await task
    await collect(services.chat.send("alice", session_ids[0], "long answer please"))
    document = exporter(services).render("alice", session_ids[0], "md")
    statuses = [m.status for m in services.sessions.messages("alice", session_ids[0])]
    assert statuses == ["complete", "interrupted", "complete", "truncated"]
    marked = [h for h in headings(document) if h.endswith(("interrupted", "truncated"))]
    assert [h.split(" · ")[0] for h in marked] == ["2", "4"]
    assert "*Interrupted: the reply was stopped before it ended" in document
    assert "*Truncated: the reply was cut off at the length limit.*" in document


def test_an_empty_session_exports_its_facts_and_no_messages(engine: Engine) -> None:
    services = engine(ScriptedChatModel([]))
    session = services.sessions.create("alice", "db-3 disk [sev2] *full*")
    export = exporter(services)
    document = export.render("alice", session.id, "md")
    assert document.startswith("# db-3 disk \\[sev2\\] \\*full\\*\n")
    assert headings(document)[0] == "db-3 disk [sev2] *full*"  # read back as written
    assert "- **Messages:** 0\n" in document
    assert "- **Compaction boundary:** none (nothing summarised)\n" in document
    assert document.endswith("## Conversation\n\n*No messages.*\n")
    assert "Summary" not in document
    assert json.loads(export.render("alice", session.id, "json"))["messages"] == []


async def test_chinese_text_is_kept_as_written(engine: Engine, tmp_path: Path) -> None:
    services = engine(ScriptedChatModel(["先看 `kubectl get events`，再检查内存上限。"]))
    stored = (await collect(services.chat.send("alice", None, "数据库 db-3 磁盘已满")))[0]
    assert isinstance(stored, UserMessageStored)
    export = exporter(services)
    document = export.render("alice", stored.session_id, "md")
    assert document.startswith("# 数据库 db-3 磁盘已满\n")
    assert "```text\n数据库 db-3 磁盘已满\n```" in document
    assert "先看 `kubectl get events`，再检查内存上限。" in document
    written = export.write("alice", stored.session_id, "md", tmp_path / "导出.md")
    assert written.read_bytes() == document.encode("utf-8")
    shown = json.loads(export.render("alice", stored.session_id, "json"))
    assert shown["messages"][0]["content"] == "数据库 db-3 磁盘已满"


async def test_control_characters_are_visible_in_markdown_and_exact_in_json(
    engine: Engine,
) -> None:
    """A model's reply keeps what it wrote (a user's message loses whole escape sequences as
    it is sent: ``test_chat.py``); a control character on its own stays in either."""
    services = engine(ScriptedChatModel(["red \x1b[31mtext\x1b[0m"]))
    stored = (await collect(services.chat.send("alice", None, "ding\x07 \x1b alone")))[0]
    assert isinstance(stored, UserMessageStored)
    export = exporter(services)
    document = export.render("alice", stored.session_id, "md")
    assert "\x1b" not in document
    assert "\x07" not in document
    assert "ding␇ ␛ alone" in document
    assert "red ␛[31mtext␛[0m" in document
    shown = json.loads(export.render("alice", stored.session_id, "json"))
    contents = [message["content"] for message in shown["messages"]]
    assert contents == ["ding\x07 \x1b alone", "red \x1b[31mtext\x1b[0m"]


def test_a_fence_is_longer_than_any_backtick_run_inside() -> None:
    assert fenced("a `` b", "text") == "```text\na `` b\n```"  # a run of 2: the shortest fence
    assert fenced("a ``` b", "text") == "````text\na ``` b\n````"  # a run of 3: one longer
    assert fenced("", "text") == "```text\n\n```"


def test_only_a_reply_that_closes_what_it_opens_stays_markdown() -> None:
    assert closes_itself("# Cause\n\n- memory\n- disk\n\n```sh\nls\n```")
    assert not closes_itself("```sh\nls")
    assert not closes_itself("text\n<!-- a comment never closed")
    assert closes_itself("a ``` inline, not a fence")


# -- JSON ---------------------------------------------------------------------------------------


def test_json_export_is_exactly_what_sessions_show_json_prints(
    cli: RunCli, chatted: tuple[Services, int]
) -> None:
    services, session_id = chatted
    shown = cli("sessions", "show", str(session_id), "--json")
    exported = cli("sessions", "export", str(session_id), "--format", "json")
    assert shown.code == exported.code == 0, shown.err + exported.err
    assert exported.out == shown.out
    document = json.loads(exported.out)
    assert document == json.loads(services.export.render("alice", session_id, "json"))
    assert [m["role"] for m in document["messages"]] == ["user", "assistant"] * 2
    assert document["memory"]["compacted_message_count"] == 2
    assert document["messages"][1]["tool_calls"][0]["name"] == "get_current_time"


# -- files ---------------------------------------------------------------------------------------


@pytest.fixture
def loose_umask() -> Iterator[None]:
    """A umask that would leave a plainly created file readable by everyone."""
    previous = os.umask(0o022)
    yield
    os.umask(previous)


def test_a_written_export_is_private_absolute_and_alone(
    chatted: tuple[Services, int],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    loose_umask: None,
) -> None:
    services, session_id = chatted
    folder = tmp_path / "exports"
    folder.mkdir()
    monkeypatch.chdir(folder)
    export = exporter(services)
    written = export.write("alice", session_id, "md", Path("incident.md"))
    assert written == folder / "incident.md"
    assert written.is_absolute()
    assert stat.S_IMODE(written.stat().st_mode) == 0o600
    assert written.read_text(encoding="utf-8") == export.render("alice", session_id, "md")
    assert os.listdir(folder) == ["incident.md"]


def test_an_existing_file_is_replaced_whole_and_made_private(
    chatted: tuple[Services, int], tmp_path: Path
) -> None:
    services, session_id = chatted
    target = tmp_path / "incident.json"
    target.write_text("old notes, much longer than the export would ever be " * 1000)
    os.chmod(target, 0o644)
    written = exporter(services).write("alice", session_id, "json", target)
    assert json.loads(written.read_text(encoding="utf-8"))["id"] == session_id
    assert stat.S_IMODE(target.stat().st_mode) == 0o600


def test_the_target_is_the_file_an_export_would_write_or_replace(
    chatted: tuple[Services, int], tmp_path: Path
) -> None:
    """What the TUI asks about before it replaces a file; a path no export can write is the
    error the write would raise."""
    services, session_id = chatted
    export = exporter(services)

    def target(path: Path) -> Path:
        return export.target("alice", session_id, "md", path)

    assert target(tmp_path / "new.md") == tmp_path / "new.md"
    log = tmp_path / "incident.log"
    log.write_text("02:51 ERROR\n")
    (tmp_path / "link.md").symlink_to(log)
    assert target(log) == log
    assert target(tmp_path / "link.md") == log  # the file the link names
    with pytest.raises(OncallError) as caught:
        target(tmp_path / "gone" / "x.md")
    assert caught.value.reason == "export_no_directory"
    assert log.read_text() == "02:51 ERROR\n"


def test_a_directory_given_gets_the_offered_name_in_it(
    chatted: tuple[Services, int], tmp_path: Path
) -> None:
    """``~/incidents`` typed where a file name was offered: refused ("give a file name"), the
    engineer typing a name out again mid-incident. It is the offered name in that folder, as
    ``cp`` puts a file there."""
    services, session_id = chatted
    export = exporter(services)
    folder = tmp_path / "incidents"
    folder.mkdir()
    offered = export.default_filename("alice", session_id, "md")
    assert export.target("alice", session_id, "md", folder) == folder / offered
    written = export.write("alice", session_id, "md", folder)
    assert written == folder / offered
    assert written.read_text(encoding="utf-8").startswith("# ")
    assert [p.name for p in folder.iterdir()] == [offered]


def refused(export: ExportService, path: Path | str, session_id: int) -> OncallError:
    with pytest.raises(OncallError) as caught:
        export.write("alice", session_id, "md", path)
    assert caught.value.code == "EXPORT_FAILED"
    return caught.value


def test_a_missing_directory_is_refused_and_nothing_is_created(
    chatted: tuple[Services, int], tmp_path: Path
) -> None:
    services, session_id = chatted
    error = refused(exporter(services), tmp_path / "nope" / "incident.md", session_id)
    assert error.reason == "export_no_directory"
    assert error.message("en") == (
        f"The session was not exported: there is no directory '{tmp_path / 'nope'}' to write "
        "the file in. Nothing was written."
    )
    assert str(tmp_path / "nope") in error.message("zh")
    assert not (tmp_path / "nope").exists()
    file = tmp_path / "file"
    file.write_text("x")
    assert refused(exporter(services), file / "x.md", session_id).reason == "export_no_directory"
    assert file.read_text() == "x"


def test_a_name_ending_in_a_slash_is_a_folder_that_must_exist(
    chatted: tuple[Services, int], tmp_path: Path
) -> None:
    """``-o ~/incidents/`` with no such folder wrote a file named ``incidents`` (as root,
    ``-o /nonexistent/`` a file at the top of the filesystem), and ``-o notes.md/`` replaced
    the file ``notes.md``: the slash says a folder, as for ``cp``, which refuses both."""
    services, session_id = chatted
    export = exporter(services)
    missing = tmp_path / "incidents"
    error = refused(export, f"{missing}/", session_id)
    assert (error.reason, error.params["path"]) == ("export_no_directory", str(missing))
    assert not missing.exists()
    notes = tmp_path / "notes.md"
    notes.write_text("02:51 ERROR\n")
    assert refused(export, f"{notes}/", session_id).reason == "export_no_directory"
    assert notes.read_text() == "02:51 ERROR\n"
    missing.mkdir()
    offered = export.default_filename("alice", session_id, "md")
    assert export.write("alice", session_id, "md", f"{missing}/") == missing / offered


def test_a_directory_a_pipe_and_an_unwritable_directory_are_refused_untouched(
    chatted: tuple[Services, int], tmp_path: Path
) -> None:
    services, session_id = chatted
    export = exporter(services)
    taken = tmp_path / export.default_filename("alice", session_id, "md")
    taken.mkdir()  # the offered name, in the folder given, is a directory
    assert refused(export, tmp_path, session_id).reason == "export_is_directory"
    assert os.listdir(taken) == []
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    assert refused(export, pipe, session_id).reason == "export_not_regular"
    assert stat.S_ISFIFO(pipe.lstat().st_mode)
    locked = tmp_path / "locked"
    locked.mkdir()
    os.chmod(locked, 0o500)
    try:
        if os.access(locked, os.W_OK):
            pytest.skip("this user can write in any directory (root)")
        error = refused(export, locked / "incident.md", session_id)
        assert (error.reason, error.params["problem"]) == (
            "export_not_writable",
            "permission denied",
        )
        assert os.listdir(locked) == []
    finally:
        os.chmod(locked, 0o700)


def test_a_directory_that_refuses_the_file_is_reported_and_left_empty(
    chatted: tuple[Services, int], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What a read-only or foreign directory answers, for a user (root) that the mode
    bits do not stop."""
    services, session_id = chatted
    folder = tmp_path / "exports"
    folder.mkdir()

    def refuse(*args: object, **kwargs: object) -> tuple[int, str]:
        raise PermissionError(errno.EACCES, "Permission denied")

    monkeypatch.setattr("tempfile.mkstemp", refuse)
    error = refused(exporter(services), folder / "incident.md", session_id)
    assert (error.reason, error.params["problem"]) == ("export_not_writable", "permission denied")
    assert error.params["path"] == str(folder)
    assert os.listdir(folder) == []


def test_a_write_that_fails_midway_leaves_no_temporary_file_and_the_old_file_as_it_was(
    chatted: tuple[Services, int], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    services, session_id = chatted
    folder = tmp_path / "exports"
    folder.mkdir()
    target = folder / "incident.md"
    target.write_text("yesterday's export")

    def disk_full(source: object, destination: object) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "replace", disk_full)
    error = refused(exporter(services), target, session_id)
    assert (error.reason, error.params["problem"]) == ("export_write_failed", "the disk is full")
    assert os.listdir(folder) == ["incident.md"]
    assert target.read_text() == "yesterday's export"


def test_the_default_file_name_has_the_id_the_title_s_words_and_the_local_time(
    chatted: tuple[Services, int],
) -> None:
    """Three exports of a night's incidents are told apart by their names; a title with no
    ASCII word (Chinese) leaves only the id and the time, and nothing unsafe gets in."""
    services, session_id = chatted
    export = exporter(services)
    name = export.default_filename("alice", session_id, "md")
    assert name == f"oncall-session-{session_id}-api-7-crashloops-since-when-2026-12-01-2130.md"
    assert export.default_filename("alice", session_id, "json").endswith(
        "when-2026-12-01-2130.json"
    )
    for title, words in [
        ("INC-4211: checkout 5xx / ../../etc", "inc-4211-checkout-5xx-etc"),
        ("支付服务 5xx 告警", "5xx"),
        ("数据库慢查询", ""),
    ]:
        services.sessions.rename("alice", session_id, title)
        name = export.default_filename("alice", session_id, "md")
        assert (
            name == f"oncall-session-{session_id}-{words}{'-' if words else ''}2026-12-01-2130.md"
        )
        assert re.fullmatch(r"[a-z0-9.-]+", name)


@pytest.mark.parametrize(
    ("title", "words"),
    [
        ("a" * 38 + " b", "a" * 38 + "-b"),  # 40 characters: at the bound, whole
        ("a" * 38 + " bc", "a" * 38),  # 41: the word that passes it is left out
        ("x" * 41, "x" * 40),  # one word longer than the bound is cut
        ("   ", ""),
        ("Bearer sk-live-9d8c7b6a rejected", "bearer-rejected"),  # a secret is no title word
        ("db password=hunter22 fails", "db-password-fails"),
    ],
)
def test_a_title_gives_its_words_up_to_forty_characters(title: str, words: str) -> None:
    assert title_words(title) == words
    assert len(title_words(title)) <= TITLE_CHARS == 40


def test_another_owners_session_answers_as_a_missing_one(
    chatted: tuple[Services, int], tmp_path: Path
) -> None:
    services, session_id = chatted
    export = exporter(services)
    missing = session_id + 100
    calls: list[Callable[[str, int], object]] = [
        lambda owner, sid: export.render(owner, sid, "md"),
        lambda owner, sid: export.render(owner, sid, "json"),
        lambda owner, sid: export.write(owner, sid, "md", tmp_path / "theirs.md"),
        lambda owner, sid: export.default_filename(owner, sid, "md"),
    ]
    for call in calls:
        with pytest.raises(OncallError) as theirs:
            call("mallory", session_id)
        with pytest.raises(OncallError) as absent:
            call("mallory", missing)
        assert theirs.value.code == absent.value.code == "NOT_FOUND"
        assert theirs.value.message("en").replace(str(session_id), str(missing)) == (
            absent.value.message("en")
        )
    assert not (tmp_path / "theirs.md").exists()


def test_the_container_exports_with_the_model_in_use(engine: Engine) -> None:
    services = engine(ScriptedChatModel([]))
    session = services.sessions.create("alice", "t")
    assert "- **Model (when exported):** `scripted`" in services.export.render(
        "alice", session.id, "md"
    )
    services.use_model("qwen3:8b")
    assert services.export.render("alice", session.id, "md").count("`qwen3:8b`") == 1


def test_an_unknown_format_is_refused(engine: Engine) -> None:
    services = engine(ScriptedChatModel([]))
    session = services.sessions.create("alice")
    with pytest.raises(OncallError) as caught:
        services.export.render("alice", session.id, "pdf")  # type: ignore[arg-type]
    assert caught.value.code == "VALIDATION_INVALID_ARGUMENT"


# -- CLI -----------------------------------------------------------------------------------------


def test_cli_prints_markdown_by_default_and_writes_a_file_with_o(
    cli: RunCli, chatted: tuple[Services, int], tmp_path: Path
) -> None:
    _, session_id = chatted
    printed = cli("sessions", "export", str(session_id))
    assert printed.code == 0, printed.err
    assert printed.out.startswith("# api-7 crashloops: since when?\n")
    assert "### 4 · assistant · " in printed.out
    target = tmp_path / "pm.md"
    written = cli("sessions", "export", str(session_id), "-o", str(target))
    assert written.code == 0, written.err
    assert written.out == f"Exported session {session_id} to {target}\n"
    assert target.read_text(encoding="utf-8").startswith("# api-7 crashloops: since when?\n")
    assert stat.S_IMODE(target.stat().st_mode) == 0o600


def test_cli_o_with_a_slash_and_no_such_folder_writes_nothing_and_exits_2(
    cli: RunCli, chatted: tuple[Services, int], tmp_path: Path
) -> None:
    _, session_id = chatted
    missing = tmp_path / "incidents"
    result = cli("sessions", "export", str(session_id), "-o", f"{missing}/")
    assert result.code == 2
    assert f"there is no directory '{missing}'" in result.err
    assert not missing.exists()


def without_export_time(document: str) -> str:
    lines = document.splitlines()
    assert lines[2].startswith("Exported from oncall-tui on "), lines[:3]
    return "\n".join(lines[:2] + lines[3:])


def test_cli_o_dash_is_stdout_and_a_json_name_gets_json(
    cli: RunCli, chatted: tuple[Services, int], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`-o -` wrote a file named `-` in the current directory; `-o pm.json` wrote Markdown
    in it, where the TUI's dialog writes JSON for the same name."""
    _, session_id = chatted
    here = tmp_path / "here"
    here.mkdir()
    monkeypatch.chdir(here)
    dashed = cli("sessions", "export", str(session_id), "-o", "-")
    assert dashed.code == 0, dashed.err
    printed = cli("sessions", "export", str(session_id)).out
    # the same document, but for the second it was exported in (two runs may straddle one)
    assert without_export_time(dashed.out) == without_export_time(printed)
    assert list(here.iterdir()) == []
    as_json = cli("sessions", "export", str(session_id), "-o", "-", "--json")
    assert as_json.out == cli("sessions", "show", str(session_id), "--json").out
    written = cli("sessions", "export", str(session_id), "-o", "pm.JSON")
    assert written.code == 0, written.err
    assert json.loads((here / "pm.JSON").read_text(encoding="utf-8"))["id"] == session_id
    chosen = cli("sessions", "export", str(session_id), "-o", "pm.json", "--format", "md")
    assert (here / "pm.json").read_text(encoding="utf-8").startswith("# api-7 crashloops")
    assert chosen.code == 0, chosen.err


def test_cli_in_chinese_exports_the_facts_headings_and_notes_in_chinese(
    cli: RunCli, chatted: tuple[Services, int]
) -> None:
    """What the model and the user wrote stays as written; what the export says of it follows
    the app's language, as everything else the CLI prints does."""
    _, session_id = chatted
    printed = cli("--lang", "zh", "sessions", "export", str(session_id))
    assert printed.code == 0, printed.err
    document = printed.out
    assert "由 oncall-tui 导出于 " in document
    assert f"- **会话：** {session_id}\n" in document
    assert "- **消息数：** 4\n" in document
    assert "- **压缩边界：** 第 2 条消息之后（第 1–2 条已被摘要）\n" in document
    assert re.search(r"- \*\*上下文：\*\* [\d,]+ / 8,192 词元（[\d.]+%）\n", document)
    assert [h for h in headings(document) if not h[0].isdigit()][1:] == [
        "摘要（由模型生成）",
        "对话",
    ]
    assert "> **模型生成的摘要**，涵盖第 1–2 条消息，生成于 " in document
    assert "**压缩边界。** 上面的 2 条消息已写入模型生成的摘要；" in document
    assert [h.split(" · ")[1] for h in headings(document) if h[0].isdigit()] == [
        "用户",
        "助手",
        "用户",
        "助手",
    ]
    assert '**工具调用** `get_current_time` `{"zone": "UTC"}` → 成功: UTC: ' in document
    assert "```text\napi-7 crashloops: since when?\n```" in document  # as typed
    assert "Since **21:02**, see `kubectl get events`." in document  # as the model wrote it
    english = cli("sessions", "export", str(session_id)).out
    assert f"- **Session:** {session_id}\n" in english
    assert "会话" not in english
    untitled = cli("sessions", "new", "--json").json_object()["id"]  # headed as it is listed
    assert cli("--lang", "zh", "sessions", "export", str(untitled)).out.startswith("# 新会话\n")
    assert cli("sessions", "export", str(untitled)).out.startswith("# New session\n")


def test_cli_json_reports_as_json(
    cli: RunCli, chatted: tuple[Services, int], tmp_path: Path
) -> None:
    _, session_id = chatted
    shown = cli("sessions", "show", str(session_id), "--json")
    document = cli("sessions", "export", str(session_id), "--json")
    assert document.code == 0
    assert document.out == shown.out  # with --json and no file: the session's document
    target = tmp_path / "pm.md"
    report = cli("sessions", "export", str(session_id), "-o", str(target), "--json")
    assert report.code == 0, report.err
    assert report.json() == {
        "exported": {"kind": "session", "id": session_id, "format": "md", "path": str(target)}
    }
    expected, nested = documented()["export"]
    assert (set(report.json_object()), set(report.json_object()["exported"])) == (
        expected,
        nested,
    )
    markdown_on_stdout = cli("sessions", "export", str(session_id), "--json", "--format", "md")
    assert markdown_on_stdout.code == 2
    assert markdown_on_stdout.out == ""
    assert markdown_on_stdout.error()["code"] == "VALIDATION_INVALID_ARGUMENT"


def test_cli_errors_exit_2_and_write_nothing(
    cli: RunCli, chatted: tuple[Services, int], tmp_path: Path
) -> None:
    _, session_id = chatted
    missing_dir = cli("sessions", "export", str(session_id), "-o", str(tmp_path / "no" / "x.md"))
    assert (missing_dir.code, missing_dir.out) == (2, "")
    assert missing_dir.err == (
        f"oncall-tui: The session was not exported: there is no directory '{tmp_path / 'no'}' "
        "to write the file in. Nothing was written.\n"
    )
    theirs = cli(
        "sessions", "export", str(session_id), "-o", str(tmp_path / "t.md"), "--json", user="bob"
    )
    assert (theirs.code, theirs.out) == (2, "")
    assert theirs.error()["code"] == "NOT_FOUND"
    assert not (tmp_path / "t.md").exists()
    folder = tmp_path / "incidents"
    folder.mkdir()
    into = cli("sessions", "export", str(session_id), "-o", str(folder), "--json")
    assert into.code == 0, into.err  # a folder: the offered name in it
    (written,) = folder.iterdir()
    assert written.name.startswith(f"oncall-session-{session_id}-")
    assert into.json() == {
        "exported": {"kind": "session", "id": session_id, "format": "md", "path": str(written)}
    }
    bad_format = cli("sessions", "export", str(session_id), "--format", "pdf")
    assert (bad_format.code, bad_format.out) == (2, "")
