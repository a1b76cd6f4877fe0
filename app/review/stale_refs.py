"""Refs as known at an instant: open or not, last activity, and the cells they were linked to."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any, Protocol

from app.review.history import FAILING, History, page_slug, page_url, ref_url, trend_url
from app.review.schema import LinkedCell, StaleRef


class RefLike(Protocol):
    id: int | None
    repo: str
    number: int
    kind: str
    title: str | None
    state: str | None
    merged: bool
    merged_at: datetime | None
    gh_created_at: datetime | None
    gh_updated_at: datetime | None
    gh_closed_at: datetime | None


class LinkLike(Protocol):
    ref_id: int
    target_type: str
    target_id: int
    created_at: datetime


def stale_refs(
    history: History,
    refs: Sequence[RefLike],
    links: Sequence[LinkLike],
    *,
    as_of: datetime,
    live: bool,
    stale_after_days: int,
) -> list[StaleRef]:
    """Open refs whose last known activity is at least `stale_after_days` before `as_of`."""
    cells_by_ref = _cells_at(history, links, as_of)
    threshold = timedelta(days=stale_after_days)
    stale = []
    for ref in refs:
        if ref.id is None:
            continue
        known = history.refs.get(ref.id)
        is_open, last_activity = _ref_at(ref, known, as_of=as_of, live=live)
        if not is_open or last_activity is None or as_of - last_activity < threshold:
            continue
        cells = cells_by_ref.get(ref.id, [])
        stale.append(
            StaleRef(
                ref_id=ref.id,
                repo=ref.repo,
                number=ref.number,
                title=ref.title or (known.title if known else None),
                kind=ref.kind,
                url=ref_url(ref.repo, ref.number, ref.kind if ref.kind != "unknown" else "pull"),
                last_activity_at=last_activity,
                idle_days=(as_of - last_activity).days,
                blocks_failing_entry=any(
                    cell.target_type == "entry" and cell.status == FAILING for cell in cells
                ),
                cells=cells,
            )
        )
    return sorted(stale, key=lambda ref: (not ref.blocks_failing_entry, ref.last_activity_at))


def _ref_at(ref: RefLike, known: Any, *, as_of: datetime, live: bool) -> tuple[bool, datetime | None]:
    """Whether a ref was open at `as_of`, and its last activity known then."""
    moments = [known.last_activity_at] if known is not None and known.last_activity_at else []
    if ref.gh_created_at is not None and ref.gh_created_at < as_of:
        moments.append(ref.gh_created_at)
    if live and ref.state is not None:
        if ref.gh_updated_at is not None:
            moments.append(ref.gh_updated_at)
        is_open = ref.state == "open" and not ref.merged
    elif known is not None and known.state is not None:
        is_open = known.state == "open"
    elif ref.gh_created_at is not None and ref.gh_created_at < as_of:
        ended = [moment for moment in (ref.gh_closed_at, ref.merged_at) if moment is not None]
        is_open = not any(moment < as_of for moment in ended)
    else:
        return False, None
    return is_open, max(moments) if moments else None


def _cells_at(history: History, links: Sequence[LinkLike], as_of: datetime) -> dict[int, list[LinkedCell]]:
    """The cells each ref was linked to at `as_of`: link rows created before then, corrected by events."""
    linked: dict[tuple[int, str, int], bool] = {}
    for link in links:
        if link.created_at < as_of:
            linked[(link.ref_id, link.target_type, link.target_id)] = True
    created = {(link.ref_id, link.target_type, link.target_id): link.created_at for link in links}
    for key, (is_linked, moment) in history.link_events.items():
        # An event older than the current link row describes an earlier link of the same pair.
        if key not in created or moment >= created[key]:
            linked[key] = is_linked
    cells: dict[int, list[LinkedCell]] = defaultdict(list)
    for (ref_id, target_type, target_id), is_linked in sorted(linked.items()):
        if is_linked:
            cells[ref_id].append(_cell(history, target_type, target_id))
    return cells


def _cell(history: History, target_type: str, target_id: int) -> LinkedCell:
    """Names a linked cell from what the events said about it."""
    if target_type == "entry" and target_id in history.entries:
        entry = history.entries[target_id]
        status = None if entry.removed else entry.status
        return LinkedCell(
            target_type, target_id, entry.label, page_url(entry.slug) if entry.slug else None, status
        )
    if target_type == "page" and target_id in history.pages:
        page = history.pages[target_id]
        return LinkedCell(target_type, target_id, page.title, page_url(page.slug), page.health)
    if target_type == "rule" and target_id in history.rules:
        rule = history.rules[target_id]
        return LinkedCell(target_type, target_id, rule.label, None, rule.outcome)
    if target_type == "row" and target_id in history.rows:
        row = history.rows[target_id]
        slug = page_slug(row)
        where = " · ".join(str(row[name]) for name in ("precision", "component") if row.get(name))
        label = where + (f" on {slug}" if slug else "")
        return LinkedCell(
            target_type, target_id, label or f"row {target_id}", page_url(slug) if slug else None
        )
    if target_type == "section" and target_id in history.sections:
        section = history.sections[target_id]
        slug = page_slug(section)
        label = f"{section.get('precision') or 'section'} on {slug}"
        return LinkedCell(target_type, target_id, label, page_url(slug) if slug else None)
    if target_type == "run" and target_id in history.runs:
        series_key = history.runs[target_id].get("series_key")
        url = trend_url(str(series_key)) if series_key else None
        return LinkedCell(target_type, target_id, f"run {target_id} ({series_key})", url)
    return LinkedCell(target_type, target_id, f"{target_type} {target_id}", None)
