"""``oncall-tui search``: one line per hit, a JSON list with the documented keys, catalog errors."""

from __future__ import annotations

import pytest

from tests.cli.test_readme_contract import documented
from tests.conftest import RunCli

pytestmark = pytest.mark.both_engines


def new_session(cli: RunCli, title: str, user: str = "alice") -> int:
    created = cli("sessions", "new", "--title", title, "--json", user=user)
    assert created.code == 0, created.err
    session_id = created.json_object()["id"]
    assert isinstance(session_id, int)
    return session_id


def test_human_output_is_one_line_per_hit_with_session_time_role_title_and_snippet(
    cli: RunCli,
) -> None:
    session_id = new_session(cli, "Gateway 超时 on api-7")
    result = cli("search", "超时")
    assert result.code == 0, result.err
    header, line = result.out.splitlines()
    assert header.split() == ["SESSION", "TIME", "(UTC)", "ROLE", "TITLE", "MATCH"]
    assert line.startswith(str(session_id))
    assert "title" in line
    assert line.endswith("Gateway 超时 on api-7")


def test_no_match_says_so_and_succeeds(cli: RunCli) -> None:
    new_session(cli, "disk full")
    result = cli("search", "nothing", "like", "this")
    assert (result.code, result.out) == (0, "No messages or titles match.\n")
    assert cli("search", "nothing", "--json").json_list() == []


def test_json_is_a_list_of_hits_with_the_keys_the_readme_lists(cli: RunCli) -> None:
    new_session(cli, "payments 502")
    new_session(cli, "payments 502", user="bob")
    hits = cli("search", "payments", "502", "--json").json_list()
    expected, _ = documented()["search hit"]
    assert len(hits) == 1  # bob's session is not alice's
    assert set(hits[0]) == expected
    assert (hits[0]["role"], hits[0]["snippet"], hits[0]["highlights"]) == (
        None,
        "payments 502",
        [[0, 8], [9, 12]],
    )


def test_the_highlights_mark_the_terms_in_the_snippet_as_printed_with_its_secrets_masked(
    cli: RunCli,
) -> None:
    """The offsets were counted in the stored text, the snippet printed masked: after a
    password each mark was shifted ("e3" for "needle3") or past the snippet's end."""
    new_session(cli, "db password=abcdefgh then needle3 and postgresql://bob:s3cretpw@db:5432/x")
    (hit,) = cli("search", "needle3", "5432", "--json").json_list()
    snippet = hit["snippet"]
    assert "abcdefgh" not in snippet
    assert "s3cretpw" not in snippet
    marked = [snippet[begin:end] for begin, end in hit["highlights"]]
    assert marked == ["needle3", "5432"]


def test_bad_queries_and_limits_exit_2_with_the_catalog_message(cli: RunCli) -> None:
    new_session(cli, "xx")
    blank = cli("search", "  ")
    assert blank.code == 2
    assert "the search is empty" in blank.err
    assert "Traceback" not in blank.err
    too_long = cli("search", "x" * 201, "--json")
    assert (too_long.code, too_long.error()["reason"]) == (2, "search_query_too_long")
    assert cli("search", "x" * 200).code == 0
    assert cli("search", "xx", "--limit", "500").code == 0
    for limit in ("0", "501"):
        refused = cli("search", "xx", "--limit", limit, "--json")
        assert (refused.code, refused.error()["reason"]) == (2, "search_limit")
    assert cli("search", "xx", "--limit", "1", "--json").json_list() != []
    not_a_number = cli("search", "xx", "--limit", "many", "--json")
    assert (not_a_number.code, not_a_number.error()["code"]) == (2, "VALIDATION_INVALID_ARGUMENT")
    chinese = cli("--lang", "zh", "search", "x")
    assert (chinese.code, chinese.err.strip()) == (
        2,
        "oncall-tui: 参数无效：搜索内容至少需要一个不少于 2 个字符的词",
    )


def test_control_characters_in_a_hit_reach_the_terminal_as_symbols(cli: RunCli) -> None:
    new_session(cli, "red\x1b[31malert")
    shown = cli("search", "alert")
    assert "\x1b" not in shown.out
    assert "red␛[31malert" in shown.out
    assert cli("search", "alert", "--json").json_list()[0]["snippet"] == "red\x1b[31malert"
