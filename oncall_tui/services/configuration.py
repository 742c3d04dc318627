"""Configuration use cases: prompts, skills and the selection the agent will use.

Each public method is one unit of work (one transaction) scoped to ``owner``. Rules
are those of docs/ARCHITECTURE.md "Configuration rules"; errors come from the catalog.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from sqlmodel import Session

from oncall_tui.core.prompts import validate_content, validate_label, validate_prompt
from oncall_tui.core.skills import validate_skill_upload
from oncall_tui.errors import OncallError
from oncall_tui.inputs import is_storable_id
from oncall_tui.services.views import ConfigurationView, PromptView, SkillDetail, SkillView
from oncall_tui.store.engine import Database
from oncall_tui.store.repositories import (
    ConfigurationRepository,
    PromptRepository,
    SkillRepository,
)
from oncall_tui.store.tables import PromptRow, SkillRow

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class ActiveContext:
    """What one chat request is assembled from: the active prompt and the selected skills."""

    prompt: PromptView
    skills: tuple[SkillDetail, ...]


class ConfigurationService:
    def __init__(self, database: Database) -> None:
        self._database = database

    # -- prompts ---------------------------------------------------------------------------

    def list_prompts(self, owner: str) -> list[PromptView]:
        with self._database.session() as session:
            prompts = PromptRepository(session)
            prompts.ensure_default(owner)
            return [PromptView.of(row) for row in prompts.list(owner)]

    def get_prompt(self, owner: str, prompt_id: int) -> PromptView:
        with self._database.session() as session:
            return PromptView.of(_require_prompt(session, owner, prompt_id))

    def create_prompt(self, owner: str, label: str, content: str) -> PromptView:
        text = validate_prompt(label, content)
        with self._database.session() as session:
            row = PromptRepository(session).add(owner, text.label, text.content)
            log.info("prompt %s created (%d chars)", row.id, len(text.content))
            return PromptView.of(row)

    def update_prompt(
        self, owner: str, prompt_id: int, *, label: str | None = None, content: str | None = None
    ) -> PromptView:
        if label is None and content is None:
            raise OncallError(
                "VALIDATION_INVALID_ARGUMENT", "nothing_to_change", options="a label or content"
            )
        new_label = None if label is None else validate_label(label)
        new_content = None if content is None else validate_content(content)
        with self._database.session() as session:
            row = PromptRepository(session).update(
                owner, prompt_id, label=new_label, content=new_content
            )
            if row is None:
                raise OncallError("NOT_FOUND", kind="prompt", ref=prompt_id)
            log.info("prompt %s updated", prompt_id)
            return PromptView.of(row)

    def delete_prompt(self, owner: str, prompt_id: int) -> None:
        """Delete a prompt; if it was the active one the owner falls back to the default."""
        with self._database.session() as session:
            row = _require_prompt(session, owner, prompt_id)
            if row.is_default:
                raise OncallError("PROMPT_DEFAULT_PROTECTED")
            PromptRepository(session).delete(owner, prompt_id)
            configuration = ConfigurationRepository(session).get(owner)
            if configuration is not None and configuration.system_prompt_id == prompt_id:
                default = PromptRepository(session).ensure_default(owner)
                ConfigurationRepository(session).save(owner, default.id, configuration.skill_ids)
            log.info("prompt %s deleted", prompt_id)

    # -- skills ----------------------------------------------------------------------------

    def add_skill(self, owner: str, filename: str, data: bytes) -> SkillView:
        document = validate_skill_upload(filename, data)
        with self._database.session() as session:
            row = SkillRepository(session).add(owner, filename, document)
            log.info("skill %s (%s) stored, %d bytes", row.id, row.name, row.size_bytes)
            return SkillView.of(row)

    def list_skills(self, owner: str) -> list[SkillView]:
        with self._database.session() as session:
            return [SkillView.of(row) for row in SkillRepository(session).list(owner)]

    def show_skill(self, owner: str, ref: str | int) -> SkillDetail:
        with self._database.session() as session:
            row = _require_skill(session, owner, ref)
            return SkillDetail(skill=SkillView.of(row), content=row.content)

    def delete_skill(self, owner: str, ref: str | int) -> SkillView:
        """Delete a skill and remove it from the owner's selection in the same transaction."""
        with self._database.session() as session:
            row = _require_skill(session, owner, ref)
            view = SkillView.of(row)
            SkillRepository(session).delete(owner, view.id)
            configurations = ConfigurationRepository(session)
            configuration = configurations.get(owner)
            if configuration is not None and view.id in configuration.skill_ids:
                remaining = [i for i in configuration.skill_ids if i != view.id]
                configurations.save(owner, configuration.system_prompt_id, remaining)
            log.info("skill %s deleted", view.id)
            return view

    # -- selection -------------------------------------------------------------------------

    def get_configuration(self, owner: str) -> ConfigurationView:
        """The owner's selection; the first read creates the default prompt and an empty one."""
        with self._database.session() as session:
            return _load_configuration(session, owner)

    def save_configuration(
        self,
        owner: str,
        *,
        system_prompt_id: int | None = None,
        skill_ids: Sequence[int] | None = None,
        skill_refs: Sequence[str] | None = None,
    ) -> ConfigurationView:
        """Save a new selection; ``None`` keeps that part as it is.

        Skills are given by id, or by name or id (``skill_refs``, as typed on a command line).
        Every id is checked against the owner first: one unknown or foreign id fails the
        whole save and the previous selection stays.
        """
        with self._database.session() as session:
            current = _load_configuration(session, owner)
            if skill_refs is not None:
                skill_ids = _resolve_refs(session, owner, skill_refs)
            prompt_id = current.system_prompt_id if system_prompt_id is None else system_prompt_id
            if PromptRepository(session).get(owner, prompt_id) is None:
                raise OncallError("VALIDATION_INVALID_ARGUMENT", "unknown_prompt_id", ref=prompt_id)
            wanted = list(current.skill_ids if skill_ids is None else _unique(skill_ids))
            found = SkillRepository(session).get_many(owner, wanted)
            missing = [skill_id for skill_id in wanted if skill_id not in found]
            if missing:
                raise OncallError(
                    "VALIDATION_INVALID_ARGUMENT",
                    "unknown_skill_ids",
                    refs=", ".join(str(i) for i in missing),
                )
            ConfigurationRepository(session).save(owner, prompt_id, wanted)
            return _load_configuration(session, owner)

    def select_skills(self, owner: str, refs: Sequence[str]) -> ConfigurationView:
        """Add skills (names or ids) to the selection, after those already in it."""
        with self._database.session() as session:
            current = _load_configuration(session, owner)
            added = _resolve_refs(session, owner, refs)
            wanted = _unique([*current.skill_ids, *added])
            ConfigurationRepository(session).save(owner, current.system_prompt_id, wanted)
            return _load_configuration(session, owner)

    def unselect_skills(self, owner: str, refs: Sequence[str]) -> ConfigurationView:
        """Remove skills (names or ids) from the selection; each must be one of the owner's."""
        with self._database.session() as session:
            current = _load_configuration(session, owner)
            removed = set(_resolve_refs(session, owner, refs))
            wanted = [skill_id for skill_id in current.skill_ids if skill_id not in removed]
            ConfigurationRepository(session).save(owner, current.system_prompt_id, wanted)
            return _load_configuration(session, owner)

    def active_context(self, owner: str) -> ActiveContext:
        """The prompt and skill bodies for one request; stale skill ids are dropped for good."""
        with self._database.session() as session:
            configuration = _load_configuration(session, owner)
            rows = SkillRepository(session).get_many(owner, configuration.skill_ids)
            skills = tuple(
                SkillDetail(skill=SkillView.of(rows[i]), content=rows[i].content)
                for i in configuration.skill_ids
            )
            return ActiveContext(prompt=configuration.active_prompt, skills=skills)


def _load_configuration(session: Session, owner: str) -> ConfigurationView:
    """Read (creating on first use) and repair the selection: a missing prompt falls back to
    the default, skill ids that no longer exist are dropped and the cleaned row written back."""
    prompts = PromptRepository(session)
    skills = SkillRepository(session)
    configurations = ConfigurationRepository(session)
    default = prompts.ensure_default(owner)
    row = configurations.get(owner)
    prompt_rows = prompts.list(owner)
    skill_rows = skills.list(owner)
    prompt_ids = {p.id for p in prompt_rows}
    skill_ids_owned = {s.id for s in skill_rows}
    stored_prompt = row.system_prompt_id if row is not None else None
    prompt_id = stored_prompt if stored_prompt in prompt_ids else default.id
    stored_skills = list(row.skill_ids) if row is not None else []
    skill_ids = [i for i in stored_skills if i in skill_ids_owned]
    if row is None or prompt_id != stored_prompt or skill_ids != stored_skills:
        configurations.save(owner, prompt_id, skill_ids)
        row = configurations.get(owner)
    assert prompt_id is not None
    assert row is not None
    return ConfigurationView(
        system_prompt_id=prompt_id,
        skill_ids=tuple(skill_ids),
        prompts=tuple(PromptView.of(p) for p in prompt_rows),
        skills=tuple(SkillView.of(s) for s in skill_rows),
        updated_at=row.updated_at,
    )


def _require_prompt(session: Session, owner: str, prompt_id: int) -> PromptRow:
    row = PromptRepository(session).get(owner, prompt_id)
    if row is None:
        raise OncallError("NOT_FOUND", kind="prompt", ref=prompt_id)
    return row


def _require_skill(session: Session, owner: str, ref: str | int) -> SkillRow:
    """Find a skill by id or by name; a reference that could be an id is tried as one first
    (a name of digits too long for an id, or of other scripts' digits, is only a name)."""
    repository = SkillRepository(session)
    text = str(ref).strip()
    row = repository.get(owner, int(text)) if is_storable_id(text) else None
    if row is None:
        row = repository.get_by_name(owner, text)
    if row is None:
        raise OncallError("NOT_FOUND", kind="skill", ref=text)
    return row


def _resolve_refs(session: Session, owner: str, refs: Sequence[str]) -> list[int]:
    """Skill ids for names or ids, in order; any unknown one fails them all."""
    ids: list[int] = []
    unknown: list[str] = []
    for ref in refs:
        try:
            row = _require_skill(session, owner, ref)
        except OncallError:
            unknown.append(repr(ref.strip()))
            continue
        assert row.id is not None
        ids.append(row.id)
    if unknown:
        raise OncallError("VALIDATION_INVALID_ARGUMENT", "unknown_skills", refs=", ".join(unknown))
    return ids


def _unique(ids: Iterable[int]) -> list[int]:
    return list(dict.fromkeys(ids))
