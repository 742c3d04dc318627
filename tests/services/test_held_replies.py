"""A reply the user has seen is never lost to a database that fails as it is stored: it is held
(in memory and in a private spool file), the user is told, and it is saved when the database
answers again, once, in its owner's session only.

The failures are real: a PostgreSQL server stopped (``pg_ctl stop -m immediate``) while the
reply streams, and a SQLite file that cannot grow (``RLIMIT_FSIZE``: SQLite's write fails
exactly as on a full disk)."""

from __future__ import annotations

import json
import shutil
import stat
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from oncall_tui.cli import main
from oncall_tui.services.container import Services
from oncall_tui.services.drafts import PROMPT_DRAFT_FILE, slot_file
from oncall_tui.services.spool import MAX_FILE_BYTES, MAX_HELD, HeldCall, HeldReply, ReplySpool
from oncall_tui.settings import Settings
from tests.conftest import CliResult, full_disk
from tests.fakes.ollama_server import FakeOllama, Reply
from tests.postgres import PostgresServer, running_server, unavailable_reason

ANSWER = "Restart the resolver pod, then watch NXDOMAIN rates for five minutes."

Run = Callable[..., CliResult]


def spool_files(root: Path) -> list[Path]:
    return sorted((root / "oncall-tui" / "spool").glob("*/*.json"))


@pytest.fixture
def data_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Where the spool goes (the platform's user data directory), the test's own."""
    home = tmp_path / "xdg-data"
    monkeypatch.setenv("XDG_DATA_HOME", str(home))
    return home


def runner(target: str, ollama: FakeOllama, capsys: pytest.CaptureFixture[str]) -> Run:
    def run(*args: str, user: str = "alice") -> CliResult:
        capsys.readouterr()
        code = main(
            [
                "--db",
                target,
                "--user",
                user,
                "--ollama-url",
                ollama.url,
                "--model",
                "qwen3:8b",
                *list(args),
            ]
        )
        captured = capsys.readouterr()
        return CliResult(code, captured.out, captured.err)

    return run


def messages(run: Run, session_id: int, user: str = "alice") -> list[tuple[str, str, str]]:
    shown = run("sessions", "show", str(session_id), "--json", user=user)
    assert shown.code == 0, shown.err
    return [(m["role"], m["status"], m["content"]) for m in json.loads(shown.out)["messages"]]


@pytest.fixture
def own_server() -> Iterator[PostgresServer]:
    """A server of this test's own, since the test stops it."""
    reason = unavailable_reason()
    if reason is not None:
        pytest.skip(reason)
    with running_server() as server:
        yield server


def test_a_reply_streamed_while_postgresql_stops_is_held_then_saved_once(
    own_server: PostgresServer, data_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with FakeOllama() as ollama:
        run = runner(own_server.new_database(), ollama, capsys)
        session_id = json.loads(run("sessions", "new", "--json").out)["id"]
        ollama.script(Reply(text=ANSWER, chunk_size=8))
        ollama.on_first_chunk = own_server.halt  # the database goes as the answer streams
        sent = run("chat", "--session", str(session_id), "where do I start?")
        ollama.on_first_chunk = None

        assert sent.code == 2
        assert sent.out.strip() == ANSWER  # the whole answer was shown
        assert ". The answer is not saved yet: it is kept on this computer" in sent.err
        assert "Traceback" not in sent.err
        files = spool_files(data_home)
        assert len(files) == 1
        assert stat.S_IMODE(files[0].stat().st_mode) == 0o600
        assert stat.S_IMODE(files[0].parent.stat().st_mode) == 0o700
        assert ANSWER in files[0].read_text()
        assert "postgresql" not in files[0].read_text()  # the database by a digest only

        own_server.start()
        listed = run("sessions", "list")  # the next run, whatever its command
        assert "The answer kept while the database was away is saved now." in listed.err
        assert spool_files(data_home) == []
        assert messages(run, session_id) == [
            ("user", "complete", "where do I start?"),
            ("assistant", "complete", ANSWER),
        ]
        shown = json.loads(run("sessions", "show", str(session_id), "--json").out)
        assert [m["model"] for m in shown["messages"]] == [None, "qwen3:8b"]  # kept held too
        again = run("sessions", "list")
        assert "saved now" not in again.err
        assert len(messages(run, session_id)) == 2


@pytest.mark.parametrize(
    ("lang", "said"),
    [
        ("en", ". The answer is not saved yet: it is kept on this computer"),
        ("zh", "。回答尚未保存：它保留在本机"),  # a Chinese stop, and no space after it
    ],
)
def test_a_full_disk_under_the_sqlite_file_holds_the_reply(
    tmp_path: Path, data_home: Path, capsys: pytest.CaptureFixture[str], lang: str, said: str
) -> None:
    db = tmp_path / "oncall.db"
    with FakeOllama() as ollama:
        run = runner(str(db), ollama, capsys)
        session_id = json.loads(run("sessions", "new", "--json").out)["id"]
        ollama.script(Reply(text=ANSWER, chunk_size=8))
        with full_disk() as fill:
            ollama.on_first_chunk = fill
            sent = run("--lang", lang, "chat", "--session", str(session_id), "is the disk full?")
        ollama.on_first_chunk = None
        assert sent.code == 2
        assert sent.out.strip() == ANSWER
        assert "disk" in sent.err
        assert said in sent.err
        assert len(spool_files(data_home)) == 1

        run("sessions", "list")
        assert messages(run, session_id)[-1] == ("assistant", "complete", ANSWER)
        assert spool_files(data_home) == []


def held(owner: str, session_id: int, text: str = ANSWER, database: str = "db") -> HeldReply:
    return HeldReply(
        owner=owner,
        database=database,
        session_id=session_id,
        clear_generation=0,
        status="complete",
        text=text,
        held_at="2026-12-03T03:12:00.000001+00:00",
    )


def test_a_held_reply_goes_only_into_its_owners_session_and_never_twice(
    tmp_path: Path, data_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "oncall.db"
    with FakeOllama() as ollama:
        run = runner(str(db), ollama, capsys)
        alice = json.loads(run("sessions", "new", "--json").out)["id"]
        bob = json.loads(run("sessions", "new", "--json", user="bob").out)["id"]
        alice_services = _services(db)
        # One held reply for each owner, naming the other's session too: neither may land
        # anywhere but in its owner's own session.
        spool = alice_services.spool
        key = spool.database
        assert spool.hold(held("alice", alice, database=key))
        assert spool.hold(held("alice", bob, "alice's text aimed at bob's session", key))
        kept_copy = tmp_path / "copy"
        shutil.copytree(spool_files_dir(data_home), kept_copy)

        assert "saved now" not in run("sessions", "list", user="bob").err
        assert messages(run, bob, user="bob") == []
        assert len(spool_files(data_home)) == 2  # bob's run left alice's alone

        listed = run("sessions", "list")
        assert "The answer kept while the database was away is saved now." in listed.err
        assert messages(run, alice) == [("assistant", "complete", ANSWER)]
        assert messages(run, bob, user="bob") == []  # bob's session is "not found" to alice
        assert spool_files(data_home) == []

        # A crash between the commit and the file's removal: the file comes back, the
        # reply is not stored again.
        shutil.copytree(kept_copy, spool_files_dir(data_home), dirs_exist_ok=True)
        run("sessions", "list")
        assert messages(run, alice) == [("assistant", "complete", ANSWER)]
        assert spool_files(data_home) == []


def spool_files_dir(root: Path) -> Path:
    (folder,) = (root / "oncall-tui" / "spool").iterdir()
    return folder


def _services(db: Path) -> Services:
    return Services(Settings.resolve(db=str(db), user="alice"))


def test_a_cleared_session_does_not_take_back_a_reply_held_before_the_clear(
    tmp_path: Path, data_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "oncall.db"
    with FakeOllama() as ollama:
        run = runner(str(db), ollama, capsys)
        session_id = json.loads(run("sessions", "new", "--json").out)["id"]
        run("sessions", "clear", str(session_id))  # its clear counter is now 1
        spool = _services(db).spool
        spool.hold(held("alice", session_id, database=spool.database))
        assert "saved now" not in run("sessions", "list").err
        assert messages(run, session_id) == []
        assert spool_files(data_home) == []  # dropped: it answers a history that is gone


def test_the_spool_holds_at_most_its_bound_on_disk(tmp_path: Path) -> None:
    spool = ReplySpool(tmp_path, "db")
    for number in range(MAX_HELD):
        assert spool.hold(held("alice", number))
    assert not spool.hold(held("alice", MAX_HELD))  # one past: in memory only
    assert len(list(tmp_path.glob("*/*.json"))) == MAX_HELD
    assert len(spool.pending("alice")) == MAX_HELD + 1  # memory keeps it meanwhile
    assert spool.hold(held("bob", 1))  # the bound is per owner


def test_a_reply_too_large_for_a_spool_file_is_held_in_memory(tmp_path: Path) -> None:
    spool = ReplySpool(tmp_path, "db")
    assert not spool.hold(held("alice", 1, "x" * (MAX_FILE_BYTES + 1)))
    assert list(tmp_path.glob("*/*.json")) == []
    assert [r.session_id for r in spool.pending("alice")] == [1]


def test_a_damaged_spool_file_is_skipped_and_others_are_read(tmp_path: Path) -> None:
    spool = ReplySpool(tmp_path, "db")
    spool.hold(held("alice", 1))
    folder = next(tmp_path.iterdir())
    (folder / "0-broken.json").write_text("{not json")
    (folder / "0-wrong.json").write_text(json.dumps({"owner": "alice", "session_id": "one"}))
    fresh = ReplySpool(tmp_path, "db")  # another process: what is on disk only
    assert [r.session_id for r in fresh.pending("alice")] == [1]
    assert fresh.pending("bob") == []
    assert ReplySpool(tmp_path, "another-db").pending("alice") == []


def test_the_prompt_drafts_kept_beside_held_replies_are_not_read_as_replies(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The prompt editor's unsaved edits are kept in the same folder (``prompt-draft.json``,
    ``prompt-draft-2.json``): each listing read them as damaged replies and logged a warning,
    and they took places of the spool's bound."""
    spool = ReplySpool(tmp_path, "db")
    spool.hold(held("alice", 1))
    folder = next(tmp_path.iterdir())
    edits = json.dumps({"prompt_id": None, "label": "db triage", "content": "Check lag."})
    for slot in (1, 2):
        (folder / slot_file(PROMPT_DRAFT_FILE, slot)).write_text(edits)
    fresh = ReplySpool(tmp_path, "db")
    with caplog.at_level("WARNING"):
        assert [r.session_id for r in fresh.pending("alice")] == [1]
    assert "spool file was not read" not in caplog.text
    fresh.release(fresh.pending("alice")[0])
    assert not fresh.has_pending("alice")  # the drafts alone are no held reply
    for number in range(MAX_HELD):  # the bound counts replies only
        assert fresh.hold(held("alice", number, database="db"))


def test_a_held_call_keeps_whether_it_was_recovered_and_an_older_file_reads_as_native(
    tmp_path: Path,
) -> None:
    call = HeldCall("recovered_1", "logs.search_logs", "{}", "ok", "3 lines", "2026-12-04", 5, True)
    spool = ReplySpool(tmp_path, "db")
    spool.hold(replace(held("alice", 1), calls=(call,)))
    (read,) = ReplySpool(tmp_path, "db").pending("alice")
    assert read.calls == (call,)
    older = json.loads(read.to_bytes())
    del older["calls"][0]["recovered"]  # a spool file written before revision 0007
    assert HeldReply.from_document(older).calls[0].recovered is False


def test_a_held_call_keeps_where_it_was_made_and_an_older_file_has_no_place(
    tmp_path: Path,
) -> None:
    call = HeldCall("c1", "logs.search_logs", "{}", "ok", "3 lines", "2026-12-04", 5, text_at=13)
    spool = ReplySpool(tmp_path, "db")
    spool.hold(replace(held("alice", 1), calls=(call,)))
    (read,) = ReplySpool(tmp_path, "db").pending("alice")
    assert read.calls[0].text_at == 13
    older = json.loads(read.to_bytes())
    del older["calls"][0]["text_at"]  # a spool file written before revision 0009
    assert HeldReply.from_document(older).calls[0].text_at is None


def test_a_held_reply_keeps_its_model_and_an_older_file_has_none(tmp_path: Path) -> None:
    spool = ReplySpool(tmp_path, "db")
    spool.hold(replace(held("alice", 1), model="qwen3:8b"))
    (read,) = ReplySpool(tmp_path, "db").pending("alice")
    assert read.model == "qwen3:8b"
    older = json.loads(read.to_bytes())
    del older["model"]  # a spool file written before revision 0008
    assert HeldReply.from_document(older).model is None
    with pytest.raises(ValueError, match="wrong type"):
        HeldReply.from_document({**older, "model": 8})
