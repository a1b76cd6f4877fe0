"""Tracked refs: parsing references as people write them, creating refs and linking them to cells."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from sqlalchemy import tuple_
from sqlalchemy.dialects.postgresql import insert
from sqlmodel import Session, col, select

from app.audit.service import record_event
from app.core.errors import InvalidInput, NotFound
from app.github_refs.models import (
    GitHubRef,
    GitHubRefLink,
    LinkTarget,
    RefKind,
)

_URL = re.compile(
    r"https?://github\.com/(?P<repo>[\w.-]+/[\w.-]+)/(?P<path>pull|pulls|issues)/(?P<number>\d+)",
    re.IGNORECASE,
)
_FULL = re.compile(r"^(?P<repo>[\w.-]+/[\w.-]+)#(?P<number>\d+)$")
_SHORT = re.compile(r"^(?P<alias>[\w.-]+)#(?P<number>\d+)$")
_BARE = re.compile(r"^#?(?P<number>\d+)$")


@dataclass(frozen=True)
class RefAddress:
    """A parsed reference: which repository, which number, and what kind if the text said so."""

    repo: str
    number: int
    kind: RefKind = RefKind.unknown


class UnknownRepository(InvalidInput):
    """A shorthand names a repository alias that is not configured."""


def parse_ref(text: str, *, default_repo: str, aliases: Mapping[str, str]) -> RefAddress:
    """Reads a PR/issue URL, `owner/name#123`, `alias#123` (e.g. `flashinfer#1566`) or `#123`."""
    text = text.strip()
    if match := _URL.search(text):
        kind = RefKind.pull if match["path"].lower().startswith("pull") else RefKind.issue
        return RefAddress(match["repo"], int(match["number"]), kind)
    if match := _FULL.match(text):
        return RefAddress(match["repo"], int(match["number"]))
    if match := _SHORT.match(text):
        alias = match["alias"].lower()
        lowered = {key.lower(): value for key, value in aliases.items()}
        if alias not in lowered:
            known = ", ".join(sorted(lowered)) or "none configured"
            raise UnknownRepository(
                f"unknown repository alias {match['alias']!r} in {text!r} (known: {known}; "
                "set GITHUB_REPO_ALIASES)",
                field="ref",
            )
        return RefAddress(lowered[alias], int(match["number"]))
    if match := _BARE.match(text):
        return RefAddress(default_repo, int(match["number"]))
    raise InvalidInput(
        f"cannot read {text!r} as a GitHub reference; use a URL, owner/name#123, alias#123 or #123",
        field="ref",
    )


def get_or_create_ref(*, session: Session, address: RefAddress, title: str | None = None) -> GitHubRef:
    """Returns the tracked ref for `address`, creating it (race-free) when it is new."""
    statement = (
        insert(GitHubRef)
        .values(repo=address.repo, number=address.number, kind=address.kind.value, labels=[])
        .on_conflict_do_nothing(index_elements=["repo", "number"])
    )
    session.execute(statement)
    ref = session.exec(
        select(GitHubRef).where(GitHubRef.repo == address.repo, GitHubRef.number == address.number)
    ).one()
    if ref.kind == RefKind.unknown and address.kind != RefKind.unknown:
        ref.kind = address.kind.value
        session.add(ref)
    if ref.title is None and title:
        ref.title = title
        session.add(ref)
    return ref


def link_ref(
    *,
    session: Session,
    ref: GitHubRef,
    target_type: LinkTarget,
    target_id: int,
    text_as_written: str | None = None,
    position: int = 0,
    actor: str = "system",
    page_id: int | None = None,
    audit: bool = True,
) -> GitHubRefLink:
    """Links `ref` to a cell; linking twice keeps one link and updates its text and position."""
    existing = session.exec(
        select(GitHubRefLink).where(
            GitHubRefLink.ref_id == ref.id,
            GitHubRefLink.target_type == target_type.value,
            GitHubRefLink.target_id == target_id,
        )
    ).first()
    if existing is not None:
        existing.text_as_written = text_as_written
        existing.position = position
        session.add(existing)
        return existing
    link = GitHubRefLink(
        ref_id=ref.id,
        target_type=target_type.value,
        target_id=target_id,
        text_as_written=text_as_written,
        position=position,
        created_by=actor,
    )
    session.add(link)
    session.flush()
    if audit:
        record_event(
            session=session,
            actor=actor,
            kind="ref.linked",
            subject_type=target_type.value,
            subject_id=target_id,
            page_id=page_id,
            new_value=ref.short_name,
            context={"ref_id": ref.id, "repo": ref.repo, "number": ref.number},
        )
    return link


def unlink_ref(
    *,
    session: Session,
    ref_id: int,
    target_type: LinkTarget,
    target_id: int,
    actor: str,
    reason: str | None = None,
    page_id: int | None = None,
) -> None:
    """Removes one link; only ever a user's action, never a side effect of a sync."""
    link = session.exec(
        select(GitHubRefLink).where(
            GitHubRefLink.ref_id == ref_id,
            GitHubRefLink.target_type == target_type.value,
            GitHubRefLink.target_id == target_id,
        )
    ).first()
    if link is None:
        raise NotFound(f"ref {ref_id} is not linked to {target_type.value} {target_id}", field="ref_id")
    ref = session.get(GitHubRef, ref_id)
    session.delete(link)
    record_event(
        session=session,
        actor=actor,
        kind="ref.unlinked",
        subject_type=target_type.value,
        subject_id=target_id,
        page_id=page_id,
        old_value=ref.short_name if ref else str(ref_id),
        reason=reason,
        context={"ref_id": ref_id},
    )


def refs_for_targets(
    *, session: Session, target_type: LinkTarget, target_ids: Iterable[int]
) -> dict[int, list[tuple[GitHubRef, GitHubRefLink]]]:
    """Returns the refs linked to each target, in link order, in one query (no N+1 on big pages)."""
    ids = list(set(target_ids))
    result: dict[int, list[tuple[GitHubRef, GitHubRefLink]]] = defaultdict(list)
    if not ids:
        return result
    rows = session.exec(
        select(GitHubRef, GitHubRefLink)
        .join(GitHubRefLink, col(GitHubRefLink.ref_id) == col(GitHubRef.id))
        .where(GitHubRefLink.target_type == target_type.value, col(GitHubRefLink.target_id).in_(ids))
        .order_by(GitHubRefLink.target_id, GitHubRefLink.position, GitHubRefLink.id)
    )
    for ref, link in rows:
        result[link.target_id].append((ref, link))
    return result


def find_refs(*, session: Session, addresses: Iterable[RefAddress]) -> dict[tuple[str, int], GitHubRef]:
    """Returns the tracked refs among `addresses`, keyed by (repo, number)."""
    keys = {(address.repo, address.number) for address in addresses}
    if not keys:
        return {}
    rows = session.exec(select(GitHubRef).where(tuple_(GitHubRef.repo, GitHubRef.number).in_(list(keys))))
    return {(ref.repo, ref.number): ref for ref in rows}


def track_ref(
    *,
    session: Session,
    text: str,
    default_repo: str,
    aliases: Mapping[str, str],
    actor: str,
    target_type: LinkTarget | None = None,
    target_id: int | None = None,
    link_text: str | None = None,
) -> GitHubRef:
    """Starts tracking the ref `text` names (by hand: UI or API), linking it to a cell when one is given."""
    address = parse_ref(text, default_repo=default_repo, aliases=aliases)
    if (target_type is None) != (target_id is None):
        raise InvalidInput("give both target_type and target_id, or neither", field="target_id")
    ref = get_or_create_ref(session=session, address=address)
    session.flush()
    if target_type is not None and target_id is not None:
        check_target_exists(session=session, target_type=target_type, target_id=target_id)
        link_ref(
            session=session,
            ref=ref,
            target_type=target_type,
            target_id=target_id,
            text_as_written=link_text,
            actor=actor,
        )
    return ref


def check_target_exists(*, session: Session, target_type: LinkTarget, target_id: int) -> None:
    """Refuses a link to a cell its owning domain does not know (when that domain registered a describer)."""
    from app.github_refs.targets import describe_targets, has_describer

    if has_describer(target_type.value) and target_id not in describe_targets(
        session=session, target_type=target_type.value, ids=[target_id]
    ):
        raise NotFound(f"{target_type.value} {target_id} does not exist", field="target_id")


def get_ref(*, session: Session, ref_id: int) -> GitHubRef:
    """Returns one tracked ref or raises NotFound."""
    ref = session.get(GitHubRef, ref_id)
    if ref is None:
        raise NotFound(f"no tracked ref with id {ref_id}", field="ref_id")
    return ref
