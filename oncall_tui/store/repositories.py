"""Owner-scoped repositories for prompts, skills and the configuration.

Every method takes the owner and filters by it; there is deliberately no way to read
or change a row by id alone. A row of another owner is indistinguishable from a
missing one (``None`` / ``False``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import QueryableAttribute, defer
from sqlmodel import Session, SQLModel, col, select

from oncall_tui.core.prompts import DEFAULT_PROMPT_CONTENT, DEFAULT_PROMPT_LABEL
from oncall_tui.core.skills import SkillDocument
from oncall_tui.errors import OncallError
from oncall_tui.store.tables import (
    ConfigurationRow,
    PromptRow,
    SkillRow,
    TeamPolicyRow,
    utcnow,
)

_SKILL_BODY = cast("QueryableAttribute[str]", SkillRow.content)
"""The ``skill.content`` column as the mapped attribute it is at run time (SQLModel types it as
``str``), for the loader option that leaves it out of listings."""


class PromptRepository:
    def __init__(self, session: Session) -> None:
        self._session = session

    def list(self, owner: str) -> Sequence[PromptRow]:
        query = select(PromptRow).where(PromptRow.owner == owner)
        return self._session.exec(
            query.order_by(col(PromptRow.is_default).desc(), col(PromptRow.id))
        ).all()

    def get(self, owner: str, prompt_id: int) -> PromptRow | None:
        query = select(PromptRow).where(PromptRow.owner == owner, PromptRow.id == prompt_id)
        return self._session.exec(query).first()

    def ensure_default(self, owner: str) -> PromptRow:
        """The owner's default prompt, created on first use."""
        query = select(PromptRow).where(PromptRow.owner == owner, col(PromptRow.is_default))
        existing = self._session.exec(query.order_by(col(PromptRow.id))).first()
        if existing is not None:
            return existing
        return self.add(owner, DEFAULT_PROMPT_LABEL, DEFAULT_PROMPT_CONTENT, is_default=True)

    def add(self, owner: str, label: str, content: str, *, is_default: bool = False) -> PromptRow:
        row = PromptRow(owner=owner, label=label, content=content, is_default=is_default)
        self._session.add(row)
        self._session.flush()
        return row

    def update(
        self, owner: str, prompt_id: int, *, label: str | None, content: str | None
    ) -> PromptRow | None:
        row = self.get(owner, prompt_id)
        if row is None:
            return None
        if label is not None:
            row.label = label
        if content is not None:
            row.content = content
        row.updated_at = utcnow()
        self._session.add(row)
        self._session.flush()
        return row

    def delete(self, owner: str, prompt_id: int) -> bool:
        return _deleted(self._session, self.get(owner, prompt_id))


class SkillRepository:
    def __init__(self, session: Session) -> None:
        self._session = session

    def list(self, owner: str) -> Sequence[SkillRow]:
        """The owner's skills by name, without their bodies: ``content`` is not selected, and
        reading it from a listed row raises instead of loading it. Listings and the
        configuration view show a skill's fields only; a body is read by :meth:`get`,
        :meth:`get_by_name` or :meth:`get_many`, for the skills that need it."""
        query = (
            select(SkillRow)
            .where(SkillRow.owner == owner)
            .options(defer(_SKILL_BODY, raiseload=True))
            .order_by(col(SkillRow.name))
        )
        return self._session.exec(query).all()

    def get(self, owner: str, skill_id: int) -> SkillRow | None:
        query = select(SkillRow).where(SkillRow.owner == owner, SkillRow.id == skill_id)
        return self._session.exec(query).first()

    def get_by_name(self, owner: str, name: str) -> SkillRow | None:
        query = select(SkillRow).where(SkillRow.owner == owner, SkillRow.name == name)
        return self._session.exec(query).first()

    def get_many(self, owner: str, skill_ids: Sequence[int]) -> dict[int, SkillRow]:
        if not skill_ids:
            return {}
        query = select(SkillRow).where(SkillRow.owner == owner, col(SkillRow.id).in_(skill_ids))
        return {row.id: row for row in self._session.exec(query).all() if row.id is not None}

    def add(self, owner: str, filename: str, document: SkillDocument) -> SkillRow:
        if self.get_by_name(owner, document.name) is not None:
            raise OncallError("SKILL_DUPLICATE_NAME", name=document.name)
        row = SkillRow(
            owner=owner,
            filename=filename,
            name=document.name,
            description=document.description,
            content=document.content,
            size_bytes=document.size_bytes,
        )
        self._session.add(row)
        try:
            self._session.flush()
        except IntegrityError:  # a concurrent upload of the same name won the race
            raise OncallError("SKILL_DUPLICATE_NAME", name=document.name) from None
        return row

    def delete(self, owner: str, skill_id: int) -> bool:
        return _deleted(self._session, self.get(owner, skill_id))


class ConfigurationRepository:
    def __init__(self, session: Session) -> None:
        self._session = session

    def get(self, owner: str) -> ConfigurationRow | None:
        return self._session.get(ConfigurationRow, owner)

    def save(self, owner: str, system_prompt_id: int | None, skill_ids: list[int]) -> None:
        row = self.get(owner)
        if row is None:
            row = ConfigurationRow(owner=owner)
        row.system_prompt_id = system_prompt_id
        row.skill_ids = list(skill_ids)
        row.updated_at = utcnow()
        self._session.add(row)
        self._session.flush()


def _deleted(session: Session, row: SQLModel | None) -> bool:
    """Deletes ``row`` if there is one (another owner's is looked up as ``None``); whether
    there was."""
    if row is None:
        return False
    session.delete(row)
    session.flush()
    return True


def allows_user_override(session: Session) -> bool:
    """Whether the database's policy lets an engineer act under another user name than their
    login (``team_policy``: ``allow_user_override`` = ``true``)."""
    row = session.get(TeamPolicyRow, "allow_user_override")
    return row is not None and row.value.strip().lower() == "true"
