"""docs/ARCHITECTURE.md "Configuration rules" and owner isolation, through the service layer."""

from __future__ import annotations

import logging

import pytest

from oncall_tui.errors import OncallError
from oncall_tui.services.configuration import ConfigurationService
from tests.conftest import skill_text

pytestmark = pytest.mark.both_engines


def add_skill(service: ConfigurationService, owner: str, name: str) -> int:
    return service.add_skill(owner, "SKILL.md", skill_text(name, f"{name} things").encode()).id


def test_first_read_creates_the_default_prompt_and_an_empty_selection(
    configuration: ConfigurationService,
) -> None:
    view = configuration.get_configuration("alice")
    assert [p.is_default for p in view.prompts] == [True]
    assert view.system_prompt_id == view.prompts[0].id
    assert view.skill_ids == ()
    assert configuration.get_configuration("alice").prompts == view.prompts  # not duplicated


def test_duplicate_ids_collapse_in_order(configuration: ConfigurationService) -> None:
    a, b = add_skill(configuration, "alice", "a"), add_skill(configuration, "alice", "b")
    view = configuration.save_configuration("alice", skill_ids=[b, a, b, a])
    assert view.skill_ids == (b, a)


def test_unknown_id_fails_the_whole_save_and_keeps_the_old_selection(
    configuration: ConfigurationService,
) -> None:
    a = add_skill(configuration, "alice", "a")
    prompt = configuration.create_prompt("alice", "Terse", "Be terse.")
    configuration.save_configuration("alice", skill_ids=[a])
    with pytest.raises(OncallError) as caught:
        configuration.save_configuration("alice", system_prompt_id=prompt.id, skill_ids=[a, 999])
    assert caught.value.code == "VALIDATION_INVALID_ARGUMENT"
    view = configuration.get_configuration("alice")
    assert view.skill_ids == (a,)
    assert view.system_prompt_id != prompt.id


def test_unknown_prompt_fails_the_save(configuration: ConfigurationService) -> None:
    before = configuration.get_configuration("alice")
    with pytest.raises(OncallError) as caught:
        configuration.save_configuration("alice", system_prompt_id=4242)
    assert caught.value.code == "VALIDATION_INVALID_ARGUMENT"
    assert configuration.get_configuration("alice").system_prompt_id == before.system_prompt_id


def test_editing_a_prompt_does_not_require_resaving_the_selection(
    configuration: ConfigurationService,
) -> None:
    prompt = configuration.create_prompt("alice", "Terse", "Be terse.")
    configuration.save_configuration("alice", system_prompt_id=prompt.id)
    configuration.update_prompt("alice", prompt.id, content="Be very terse.")
    assert configuration.active_context("alice").prompt.content == "Be very terse."


def test_deleting_a_selected_skill_removes_it_from_the_selection(
    configuration: ConfigurationService,
) -> None:
    a, b = add_skill(configuration, "alice", "a"), add_skill(configuration, "alice", "b")
    configuration.save_configuration("alice", skill_ids=[a, b])
    configuration.delete_skill("alice", "a")
    assert configuration.get_configuration("alice").skill_ids == (b,)


def test_deleting_the_current_prompt_falls_back_to_the_default(
    configuration: ConfigurationService,
) -> None:
    default = configuration.get_configuration("alice").system_prompt_id
    prompt = configuration.create_prompt("alice", "Terse", "Be terse.")
    configuration.save_configuration("alice", system_prompt_id=prompt.id)
    configuration.delete_prompt("alice", prompt.id)
    assert configuration.get_configuration("alice").system_prompt_id == default


def test_the_default_prompt_cannot_be_deleted(configuration: ConfigurationService) -> None:
    default = configuration.get_configuration("alice").system_prompt_id
    with pytest.raises(OncallError) as caught:
        configuration.delete_prompt("alice", default)
    assert caught.value.code == "PROMPT_DEFAULT_PROTECTED"
    assert configuration.get_prompt("alice", default).is_default


def test_stale_skill_ids_are_filtered_and_written_back(
    configuration: ConfigurationService, database: object
) -> None:
    from oncall_tui.store.engine import Database
    from oncall_tui.store.repositories import ConfigurationRepository

    assert isinstance(database, Database)
    a = add_skill(configuration, "alice", "a")
    view = configuration.save_configuration("alice", skill_ids=[a])
    with database.session() as session:  # simulate a row deleted behind the service's back
        ConfigurationRepository(session).save("alice", view.system_prompt_id, [a, 77])
    context = configuration.active_context("alice")
    assert [s.skill.id for s in context.skills] == [a]
    with database.session() as session:
        row = ConfigurationRepository(session).get("alice")
        assert row is not None
        assert row.skill_ids == [a]


def test_duplicate_skill_name_for_one_owner_is_a_clear_error(
    configuration: ConfigurationService,
) -> None:
    add_skill(configuration, "alice", "triage")
    with pytest.raises(OncallError) as caught:
        add_skill(configuration, "alice", "triage")
    assert caught.value.code == "SKILL_DUPLICATE_NAME"
    assert "triage" in caught.value.message("en")
    assert len(configuration.list_skills("alice")) == 1


def test_a_reference_that_is_one_skills_id_and_anothers_name_is_refused(
    configuration: ConfigurationService,
) -> None:
    """A skill may be named "5" (digits are allowed); ``skills show 5`` showed skill 5 and
    ``select 5`` selected it, never the skill named "5". Such a reference names neither: it is
    refused, saying both, and the id of each still reaches it."""
    first = add_skill(configuration, "alice", "alpha")
    named = skill_text(f"'{first}'", "named with digits")  # quoted: YAML's number otherwise
    digits = configuration.add_skill("alice", "SKILL.md", named.encode()).id
    for act in (
        lambda: configuration.show_skill("alice", str(first)),
        lambda: configuration.delete_skill("alice", str(first)),
        lambda: configuration.select_skills("alice", [str(first)]),
    ):
        with pytest.raises(OncallError) as caught:
            act()
        assert (caught.value.code, caught.value.reason) == (
            "VALIDATION_INVALID_ARGUMENT",
            "skill_ref_ambiguous",
        )
        message = caught.value.message("en")
        assert f"skill {first}" in message
        assert f"skill {digits}" in message
    assert len(configuration.list_skills("alice")) == 2
    assert configuration.get_configuration("alice").skill_ids == ()
    assert configuration.show_skill("alice", digits).skill.name == str(first)
    assert configuration.show_skill("alice", "alpha").skill.id == first


def test_two_owners_may_use_the_same_skill_name(configuration: ConfigurationService) -> None:
    add_skill(configuration, "alice", "triage")
    add_skill(configuration, "bob", "triage")
    assert [s.name for s in configuration.list_skills("bob")] == ["triage"]


def test_configuration_exposes_skill_metadata_never_the_body(
    configuration: ConfigurationService,
) -> None:
    text = skill_text("a", "desc", body="SECRET-BODY-LINE")
    configuration.add_skill("alice", "SKILL.md", text.encode())
    document = configuration.get_configuration("alice").to_json()
    assert "SECRET-BODY-LINE" not in repr(document)
    skills = document["skills"]
    assert isinstance(skills, list)
    skill = skills[0]
    assert set(skill) >= {
        "id",
        "filename",
        "name",
        "description",
        "label",
        "content_preview",
        "size_bytes",
        "created_at",
        "updated_at",
    }
    assert "content" not in skill


def test_skill_and_prompt_bodies_are_never_logged(
    configuration: ConfigurationService, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    configuration.add_skill("alice", "SKILL.md", skill_text("a", "d", "BODY-MARKER").encode())
    prompt = configuration.create_prompt("alice", "label", "PROMPT-MARKER")
    configuration.update_prompt("alice", prompt.id, content="PROMPT-MARKER-2")
    configuration.active_context("alice")
    assert caplog.records, "the service should log what it did"
    assert "MARKER" not in caplog.text


class TestOwnerIsolation:
    @pytest.fixture
    def alice_assets(self, configuration: ConfigurationService) -> tuple[int, int]:
        prompt = configuration.create_prompt("alice", "Alice prompt", "alice only")
        skill = add_skill(configuration, "alice", "alice-skill")
        configuration.save_configuration("alice", system_prompt_id=prompt.id, skill_ids=[skill])
        return prompt.id, skill

    def test_bob_cannot_see_alices_assets(
        self, configuration: ConfigurationService, alice_assets: tuple[int, int]
    ) -> None:
        prompt_id, skill_id = alice_assets
        assert prompt_id not in [p.id for p in configuration.list_prompts("bob")]
        assert configuration.list_skills("bob") == []
        assert skill_id not in configuration.get_configuration("bob").skill_ids

    def test_bob_cannot_show_alices_skill_by_id_or_name(
        self, configuration: ConfigurationService, alice_assets: tuple[int, int]
    ) -> None:
        _, skill_id = alice_assets
        messages = {}
        for ref in (skill_id, "alice-skill", 99_999, "no-such-skill"):
            with pytest.raises(OncallError) as caught:
                configuration.show_skill("bob", ref)
            assert caught.value.code == "NOT_FOUND"
            messages[ref] = caught.value.message("en").replace(str(ref), "REF")
        # a foreign asset reads exactly like a missing one
        assert messages[skill_id] == messages[99_999]
        assert messages["alice-skill"] == messages["no-such-skill"]

    def test_bob_cannot_edit_or_delete_alices_assets(
        self, configuration: ConfigurationService, alice_assets: tuple[int, int]
    ) -> None:
        prompt_id, skill_id = alice_assets
        with pytest.raises(OncallError, match="No prompt"):
            configuration.update_prompt("bob", prompt_id, content="mine now")
        with pytest.raises(OncallError, match="No prompt"):
            configuration.delete_prompt("bob", prompt_id)
        with pytest.raises(OncallError, match="No skill"):
            configuration.delete_skill("bob", skill_id)
        assert configuration.get_prompt("alice", prompt_id).content == "alice only"
        assert [s.id for s in configuration.list_skills("alice")] == [skill_id]

    def test_bob_selecting_alices_ids_fails_whole_save_keeping_his_selection(
        self, configuration: ConfigurationService, alice_assets: tuple[int, int]
    ) -> None:
        prompt_id, skill_id = alice_assets
        bob_skill = add_skill(configuration, "bob", "bob-skill")
        before = configuration.save_configuration("bob", skill_ids=[bob_skill])
        for attempt in ({"skill_ids": [bob_skill, skill_id]}, {"system_prompt_id": prompt_id}):
            with pytest.raises(OncallError) as caught:
                configuration.save_configuration("bob", **attempt)
            assert caught.value.code == "VALIDATION_INVALID_ARGUMENT"
        after = configuration.get_configuration("bob")
        assert (after.system_prompt_id, after.skill_ids) == (
            before.system_prompt_id,
            before.skill_ids,
        )
        alice = configuration.get_configuration("alice")
        assert (alice.system_prompt_id, alice.skill_ids) == (prompt_id, (skill_id,))
