"""Naming the cells that link a ref ("FP8 · MoE · FLASHINFER_CUTLASS", a benchmark run) without owning them.

Status pages and benchmarks own their tables; each registers a describer for its target types, so this
domain can label and link them in one query per type. A type nobody registered reads as "entry 12".
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from sqlmodel import Session

from app.github_refs.models import GitHubRefLink


@dataclass(frozen=True)
class TargetLabel:
    label: str
    url: str | None = None


TargetDescriber = Callable[[Session, list[int]], dict[int, TargetLabel]]

_DESCRIBERS: dict[str, TargetDescriber] = {}


def register_target_describer(target_type: str, fn: TargetDescriber) -> None:
    """Registers how to label targets of `target_type`: `fn(session, ids) -> {id: TargetLabel}`."""
    _DESCRIBERS[target_type] = fn


def unregister_target_describer(target_type: str) -> None:
    """Removes a describer (tests register their own)."""
    _DESCRIBERS.pop(target_type, None)


def has_describer(target_type: str) -> bool:
    return target_type in _DESCRIBERS


def describe_targets(*, session: Session, target_type: str, ids: Iterable[int]) -> dict[int, TargetLabel]:
    """Labels targets of one type; ids the describer does not know are missing from the answer."""
    wanted = sorted(set(ids))
    describer = _DESCRIBERS.get(target_type)
    if describer is None or not wanted:
        return {target_id: TargetLabel(f"{target_type} {target_id}") for target_id in wanted}
    return describer(session, wanted)


def describe_links(*, session: Session, links: Iterable[GitHubRefLink]) -> dict[int, TargetLabel]:
    """Labels each link's target, keyed by link id, with one describer call per target type."""
    links = list(links)
    ids_by_type: dict[str, set[int]] = defaultdict(set)
    for link in links:
        ids_by_type[link.target_type].add(link.target_id)
    labels_by_type = {
        target_type: describe_targets(session=session, target_type=target_type, ids=ids)
        for target_type, ids in ids_by_type.items()
    }
    described = {}
    for link in links:
        label = labels_by_type[link.target_type].get(link.target_id)
        described[link.id] = label or TargetLabel(f"{link.target_type} {link.target_id} (gone)")
    return described
