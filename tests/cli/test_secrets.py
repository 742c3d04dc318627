"""Secrets never reach any output or the log, whatever text carries them: the model server's
key in a server's error body, a PostgreSQL password in any URL form, a ``${NAME}`` value a tool
server echoes. Through the real CLI, the real clients and the loopback fakes; the redactor's
own forms and rules below."""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path

import pytest

from oncall_tui.errors import OncallError
from oncall_tui.redaction import StreamRedactor, redact, register_secret
from oncall_tui.settings import Settings
from oncall_tui.settings.values import masked_url
from oncall_tui.texts import text
from tests.cli.test_cli_chat import closed_port
from tests.conftest import RunCli
from tests.fakes.ollama_server import FakeOllama, Reply
from tests.fakes.openai_server import FakeOpenAI

KEY = "sk-live-9d8c7b6a5f4e3d2c1b0a"
PASSWORD = "hunter2-pg"


def logged(path: Path) -> str:
    return path.read_text(encoding="utf-8") if path.exists() else ""


# -- the model server's key ----------------------------------------------------------------


HEADER_ECHO = f"proxy echo: Authorization: Bearer {KEY}"  # the header as a proxy echoes it


@pytest.mark.parametrize(
    ("status", "body"),
    [
        (401, HEADER_ECHO),  # a 401 page: the message is the catalog's, the log must agree
        (500, HEADER_ECHO),
        (500, f"key {KEY[:12]}\n{KEY[12:]} is not valid"),  # bare, and wrapped over two lines
        (500, json.dumps({"headers": {"authorization": f"Bearer {KEY}"}})),  # a JSON echo
    ],
    ids=["401", "500-header", "500-wrapped", "500-json"],
)
@pytest.mark.parametrize("as_json", [False, True], ids=["human", "json"])
def test_a_server_error_that_echoes_the_key_never_shows_it(
    cli: RunCli,
    monkeypatch: pytest.MonkeyPatch,
    private_log: Path,
    status: int,
    body: str,
    as_json: bool,
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    with FakeOpenAI() as server:
        server.script(Reply.failure(status, body))
        args = ("--provider", "openai", "--base-url", server.url, "--num-ctx", "4096")
        flags = ("--json",) if as_json else ()
        sent = cli(*args, "--model", "qwen3:8b", "--log-level", "debug", "chat", *flags, "hi")
        assert server.chat_requests  # the request went, with the key in its header
        assert server.requests[-1].headers["authorization"] == f"Bearer {KEY}"
    assert sent.code == 4
    shown = sent.out + sent.err
    assert "refused the request" in shown if status == 401 else "reported" in shown
    everything = shown + logged(private_log)
    for piece in (KEY, KEY[:12], KEY[12:]):
        assert piece not in everything


# -- PostgreSQL passwords ------------------------------------------------------------------


def urls() -> list[str]:
    port = closed_port()
    return [
        f"postgresql://u@127.0.0.1:{port}/db?password={PASSWORD}&sslmode=disable",
        f"postgresql://u:{PASSWORD}@127.0.0.1:{port}/db",
        f"postgresql://u:p%40ss%2F{PASSWORD}@127.0.0.1:{port}/db",  # p@ss/… percent-encoded
    ]


@pytest.mark.parametrize("form", [0, 1, 2], ids=["query", "userinfo", "encoded"])
@pytest.mark.parametrize("command", [("doctor",), ("config", "paths")], ids=["doctor", "paths"])
def test_doctor_and_config_paths_never_show_the_database_password(
    cli: RunCli, private_log: Path, closed_url: str, form: int, command: tuple[str, ...]
) -> None:
    url = urls()[form]
    for flags in ((), ("--json",)):
        shown = cli("--db", url, "--ollama-url", closed_url, *command, *flags)
        everything = shown.out + shown.err
        assert "127.0.0.1" in everything  # the database is named
        assert PASSWORD not in everything
        assert "p@ss" not in everything
        assert "p%40ss" not in everything
        if flags:
            json.loads(shown.out)  # still one JSON document
    assert PASSWORD not in logged(private_log)


@pytest.mark.parametrize("form", [0, 1], ids=["query", "userinfo"])
def test_a_connection_error_on_postgresql_does_not_carry_the_password(
    cli: RunCli, private_log: Path, form: int
) -> None:
    pytest.importorskip("psycopg")
    url = urls()[form]
    refused = cli("--db", url, "sessions", "list", "--json")
    assert (refused.code, refused.error()["code"]) == (2, "DATABASE_UNAVAILABLE")
    assert "127.0.0.1" in refused.error()["message"]
    human = cli("--db", url, "sessions", "list")
    assert "127.0.0.1" in human.err
    everything = refused.out + refused.err + human.out + human.err + logged(private_log)
    assert PASSWORD not in everything


def test_postgresql_echoing_the_password_in_its_own_words_does_not_show_it() -> None:
    """libpq quotes parts of a connection string it cannot parse; whatever it quotes, the
    password the settings hold is masked in the message built from it."""
    url = f"postgresql://u@db.internal/db?password=pg-{PASSWORD}"
    Settings.resolve(db=url, user="alice", environ={})
    said = f'invalid value "pg-{PASSWORD}" in connection info string'
    error = OncallError("DATABASE_UNAVAILABLE", path=masked_url(url), detail=said)
    for lang in ("en", "zh"):
        assert f"pg-{PASSWORD}" not in error.message(lang)
        assert f"pg-{PASSWORD}" not in json.dumps(error.to_json(lang))
    assert masked_url(url) == "postgresql://u@db.internal/db?password=***"


# -- tool servers --------------------------------------------------------------------------

ECHOING_SERVER = "import os, sys; sys.stderr.write('refused token ' + os.environ['T']); sys.exit(3)"


def test_a_tool_server_echoing_its_expanded_token_does_not_show_it(
    cli: RunCli, monkeypatch: pytest.MonkeyPatch, private_config: Path, private_log: Path
) -> None:
    token = "ops-token-5e6f7a8b9c"
    monkeypatch.setenv("OPS_TOKEN", token)
    private_config.parent.mkdir(parents=True)
    private_config.write_text(
        textwrap.dedent(f"""
        [[mcp_servers]]
        name = "ops"
        command = {json.dumps(sys.executable)}
        args = ["-c", {json.dumps(ECHOING_SERVER)}]
        env = {{T = "${{OPS_TOKEN}}"}}
        allow = ["search_logs"]
        """),
        encoding="utf-8",
    )
    listed = cli("tools", "list", "--json")
    (server,) = listed.json_object()["servers"]
    assert server["state"] == "failed"
    assert "refused token ***" in json.dumps(server)  # the server's words, without the value
    human = cli("tools", "list")
    everything = listed.out + listed.err + human.out + human.err + logged(private_log)
    assert token not in everything


# -- the redactor's forms and rules --------------------------------------------------------


def test_a_registered_secret_is_masked_in_every_form_it_is_written() -> None:
    secret = 'tok"en\\wörd-31'
    register_secret(secret)
    forms = [
        secret,
        json.dumps(secret)[1:-1],  # JSON-escaped, ASCII
        json.dumps(secret, ensure_ascii=False)[1:-1],
        "tok%22en%5Cw%C3%B6rd-31",  # percent-encoded
        'tok"en\\wö\nrd-31',  # wrapped over two lines
        'tok"en\\wö\\nrd-31',  # the line break JSON-escaped
    ]
    for form in forms:
        assert redact(f"before {form} after") == "before *** after", form


def test_values_too_short_to_register_are_left_alone_and_rules_still_apply() -> None:
    register_secret("pw")
    assert redact("pw and pwd") == "pw and pwd"
    assert redact("postgresql://u:pw@h/db") == "postgresql://u:***@h/db"


@pytest.mark.parametrize(
    ("said", "shown"),
    [
        ("Authorization: Bearer abc.def-123", "Authorization: Bearer ***"),
        ('{"Authorization": "Basic dXNlcjpw"}', '{"Authorization": "Basic ***"}'),
        ("x-api-key: k-123; next", "x-api-key: ***; next"),
        ("OPENAI_API_KEY=sk-1 set", "OPENAI_API_KEY=*** set"),
        ("host=h password='a b' dbname=d", "host=h password=*** dbname=d"),
        (
            "postgresql://u@h/d?sslmode=disable&password=p",
            "postgresql://u@h/d?sslmode=disable&password=***",
        ),
        ("postgresql://u:p@ss@h/d", "postgresql://u:***@h/d"),
        ('{"password": "p"}', '{"password": "***"}'),
        ("PGPASSWORD=p psql", "PGPASSWORD=*** psql"),
        ("host=h sslpassword=k3y sslmode=require", "host=h sslpassword=*** sslmode=require"),
        ("postgresql://u@h/d?sslpassword=k&a=1", "postgresql://u@h/d?sslpassword=***&a=1"),
        ("password=$ecret12 x", "password=*** x"),  # a password beginning with $: no variable
        ("postgres://app:$ecret@db/x", "postgres://app:***@db/x"),
        ("api_key=$Lower1", "api_key=***"),
    ],
)
def test_labelled_credentials_are_masked_without_being_registered(said: str, shown: str) -> None:
    assert redact(said) == shown


@pytest.mark.parametrize(
    "said",
    [
        "set OPENAI_API_KEY to the key it expects",
        'password authentication failed for user "dana"',
        "http://127.0.0.1:8080/v1 and mail dana@example.com",
        "postgresql://dana@db.internal:5432/oncall",
        # what a reply suggests to run names its secrets without holding them: copied as ***,
        # the command would not run
        'psql "host=db password=$PGPASSWORD"',
        "PGPASSWORD=${DB_PASS} psql -h db",
        "export OPENAI_API_KEY=$(vault read -field=key secret/openai)",
        'curl -H "X-Api-Key: ${API_KEY}" -H "Authorization: Bearer $TOKEN" https://api',
        "postgres://app:${DB_PASSWORD}@db:5432/orders",
        'password: "{{ .Values.db.password }}"',
        "api_key: <your key>",
    ],
)
def test_ordinary_text_is_left_as_it_is(said: str) -> None:
    assert redact(said) == said


def test_the_settings_register_the_key_the_passwords_and_expanded_tool_values(
    tmp_path: Path,
) -> None:
    config = tmp_path / "config.toml"
    config.write_text(
        '[[mcp_servers]]\nname = "r"\nurl = "http://127.0.0.1:1/mcp"\n'
        'headers = {Authorization = "Token ${R_TOKEN}", X-Port = "${R_PORT}"}\n'
        'allow = ["q"]\n'
        '[[mcp_servers]]\nname = "s"\ncommand = "ops-mcp"\n'
        'args = ["--token=${S_TOKEN}", "--root", "${S_ROOT}"]\nallow = ["q"]\n',
        encoding="utf-8",
    )
    environ = {
        "OPENAI_API_KEY": "sk-settings-key-1",
        "PGPASSWORD": "pg-env-secret-2",
        "R_TOKEN": "header-token-3",
        "R_PORT": "8931",
        "S_TOKEN": "arg-token-6",  # in args too: the README's "tool servers' ${NAME} values"
        "S_ROOT": "/var/log/app",
    }
    Settings.resolve(
        db="postgresql://u:url-secret-4@h/db?password=query-secret-5",
        user="alice",
        config=str(config),
        environ=environ,
    )
    said = (
        "sk-settings-key-1 pg-env-secret-2 header-token-3 url-secret-4 query-secret-5 8931 "
        "arg-token-6 /var/log/app"
    )
    assert redact(said) == "*** *** *** *** *** 8931 *** /var/log/app"  # a port, a path: none


def test_the_client_keys_password_in_the_database_url_is_registered() -> None:
    url = "postgresql://u@h/db?sslmode=verify-full&sslpassword=key-secret-8"
    Settings.resolve(db=url, user="alice", environ={})
    assert redact("libpq: could not decrypt key-secret-8") == "libpq: could not decrypt ***"


def test_a_masked_password_leaves_the_message_around_it_whole() -> None:
    """The registry masks the password first; the rule for ``password=`` then left the
    sentence's colon out ("…?password=*** connection failed")."""
    url = "postgresql://u@h/db?password=query-secret-9"
    Settings.resolve(db=url, user="alice", environ={})
    error = OncallError("DATABASE_UNAVAILABLE", path=masked_url(url), detail="refused")
    assert "postgresql://u@h/db?password=***: refused" in error.message("en")
    assert redact("password=***:x") == "password=***"  # not a mask and a colon: masked whole


def test_ui_texts_filled_with_a_secret_do_not_show_it() -> None:
    register_secret("ui-secret-6a7b")
    for lang in ("en", "zh"):
        assert "ui-secret-6a7b" not in text("cli.warning", lang, message="x ui-secret-6a7b y")


# -- a reply's text as it streams ----------------------------------------------------------

STREAMED = (
    "The proxy log shows Authorization: Bearer sk-proj-AbCdEf0123456789 on each call,\n"
    "and the job runs with password=hunter22 and postgres://app:s3cretpw@db:5432/x.\n"
    f"日志显示 {KEY} 在配置里。Rotate them."
)
MASKED = (
    "The proxy log shows Authorization: Bearer *** on each call,\n"
    "and the job runs with password=*** and postgres://app:***@db:5432/x.\n"
    "日志显示 *** 在配置里。Rotate them."
)


def streamed(text: str, size: int) -> list[str]:
    """What a :class:`StreamRedactor` lets out of ``text`` fed in pieces of ``size``."""
    redactor = StreamRedactor()
    pieces = [redactor.feed(text[i : i + size]) for i in range(0, len(text), size)]
    return [*pieces, redactor.end()]


@pytest.mark.parametrize("size", [1, 2, 3, 5, 8, 13, len(STREAMED)])
def test_a_secret_split_over_the_pieces_of_a_stream_is_masked_whole(size: int) -> None:
    register_secret(KEY)
    assert redact(STREAMED) == MASKED
    pieces = streamed(STREAMED, size)
    assert "".join(pieces) == MASKED
    for secret in ("sk-proj", "hunter", "s3cret", KEY[:6], KEY[-6:]):
        assert not any(secret in piece for piece in pieces)


def test_a_stream_holds_only_the_ascii_word_it_is_in() -> None:
    redactor = StreamRedactor()
    assert redactor.feed("Check the ") == "Check the "
    assert redactor.feed("pod") == ""  # a word that may yet be a secret's beginning
    assert redactor.feed("s now; 日志") == "pods now; 日志"  # other scripts flow at once
    assert redactor.feed("显示") == "显示"
    assert redactor.feed(" api-7") == " "
    assert redactor.end() == "api-7"


def test_a_secret_whose_beginning_was_let_out_loses_none_of_the_text() -> None:
    """A registered secret wrapped over a space is masked in a whole text; in a stream its
    first part has gone out before the rest came, and nothing is taken back or lost."""
    register_secret("s3cretpassword")
    assert redact("x s3cret password y") == "x *** y"
    assert "".join(streamed("x s3cret password y", 1)) == "x s3cret password y"


@pytest.mark.parametrize("extra", [0, 1])
def test_a_line_longer_than_the_held_bound_is_let_out_up_to_its_last_space(extra: int) -> None:
    bound = StreamRedactor.HELD_LINE_CHARS
    line = "word " * (bound // 5) + "x" * (bound % 5 + extra)  # the bound, and one past
    assert len(line) == bound + extra
    redactor = StreamRedactor()
    first = redactor.feed(line)
    assert first == line.rpartition(" ")[0] + " "  # the last word is held, at the bound too
    assert redactor.feed(" password=hunter22 ok") == line.rpartition(" ")[2] + " password=*** "
    assert redactor.end() == "ok"  # read on from there, redacted, nothing lost


def test_a_long_line_of_another_script_is_let_out_once() -> None:
    """A Chinese paragraph past the bound, a space near its start: the bound read on from
    that space, behind what had flowed out already, and let the paragraph out twice."""
    text = "word " + "日志显示连接池耗尽" * 500 + "。api-7 password=hunter22 done"
    assert len(text) > StreamRedactor.HELD_LINE_CHARS
    assert "".join(streamed(text, 3)) == redact(text)


def test_a_run_longer_than_the_held_bound_without_white_space_is_let_out_whole() -> None:
    """Minified JSON on one line: held whole, it would come out only at its end, each token
    redacting all of it again."""
    bound = StreamRedactor.HELD_LINE_CHARS
    blob = '{"a":1,' * (bound // 7 + 1)  # one run past the bound
    redactor = StreamRedactor()
    out = [redactor.feed(blob[i : i + 4]) for i in range(0, len(blob), 4)]
    assert "".join(out[: bound // 4 + 2])  # let out once past the bound, not at the end
    assert "".join(out) + redactor.end() == blob


@pytest.mark.parametrize("as_json", [False, True], ids=["human", "json"])
def test_a_reply_echoing_a_secret_token_by_token_never_shows_it(cli: RunCli, as_json: bool) -> None:
    """Found by piping a log with a token into ``chat``: the model's echo of it streamed out
    as written, the human output redacting each token alone and ``--json`` not at all."""
    register_secret(KEY)  # a secret this process holds (it passed only after a test that had)
    with FakeOllama() as server:
        server.script(Reply(STREAMED, chunk_size=3))
        flags = ("--json",) if as_json else ()
        sent = cli("--ollama-url", server.url, "--model", "qwen3:8b", "chat", *flags, "rotate?")
    assert sent.code == 0, sent.err
    if as_json:
        tokens = [e["text"] for e in map(json.loads, sent.out.splitlines()) if e["type"] == "token"]
        assert "".join(map(str, tokens)) == MASKED
    else:
        assert sent.out == MASKED + "\n"
    for secret in ("sk-proj", "hunter22", "s3cretpw", KEY):
        assert secret not in sent.out + sent.err


@pytest.mark.parametrize(
    "command",
    [("show", "--json"), ("export",), ("export", "--format", "json"), ("export", "-o", "FILE")],
    ids=["show-json", "export-md", "export-json", "export-file"],
)
def test_a_session_shown_or_exported_masks_the_secrets_it_holds(
    cli: RunCli, tmp_path: Path, command: tuple[str, ...]
) -> None:
    """Found with a pasted log: ``sessions show`` masked its token, ``show --json`` and the
    export (the document made to be shared, for a postmortem) printed it as typed."""
    register_secret(KEY)
    with FakeOllama() as server:
        server.script(Reply(STREAMED))
        said = cli("--ollama-url", server.url, "--model", "qwen3:8b", "chat", "--json", STREAMED)
    assert said.code == 0, said.err
    target = tmp_path / "incident.md"
    args = tuple(str(target) if arg == "FILE" else arg for arg in command)
    shown = cli("sessions", args[0], "1", *args[1:])
    assert shown.code == 0, shown.err
    document = target.read_text(encoding="utf-8") if "-o" in args else shown.out
    assert "Authorization: Bearer ***" in document
    assert "password=***" in document
    for secret in ("sk-proj", "hunter22", "s3cretpw", KEY):
        assert secret not in document
