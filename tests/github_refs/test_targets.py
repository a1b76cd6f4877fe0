"""The link-target registry: registered describers label cells, unknown types read as "entry 12"."""

from __future__ import annotations

from sqlmodel import Session

from app.github_refs import targets
from app.github_refs.models import LinkTarget, RefKind
from app.github_refs.service import RefAddress, get_or_create_ref, link_ref
from app.github_refs.targets import (
    TargetLabel,
    describe_links,
    register_target_describer,
    unregister_target_describer,
)


def test_describe_links_calls_each_describer_once_and_falls_back_for_unknown_types(
    session: Session, monkeypatch
):
    # Start from an empty registry: the app registers the real domains' describers when it is created.
    monkeypatch.setattr(targets, "_DESCRIBERS", {})
    ref = get_or_create_ref(session=session, address=RefAddress("vllm-project/vllm", 1, RefKind.pull))
    session.flush()
    links = [
        link_ref(session=session, ref=ref, target_type=LinkTarget.entry, target_id=i, audit=False)
        for i in (1, 2, 3)
    ]
    links.append(link_ref(session=session, ref=ref, target_type=LinkTarget.run, target_id=9, audit=False))
    calls: list[list[int]] = []

    def entries(_session: Session, ids: list[int]) -> dict[int, TargetLabel]:
        calls.append(ids)
        return {i: TargetLabel(f"B200 · FP8 · entry {i}", f"/pages/x#entry-{i}") for i in ids if i != 3}

    register_target_describer("entry", entries)
    try:
        labels = describe_links(session=session, links=links)
    finally:
        unregister_target_describer("entry")
    assert calls == [[1, 2, 3]]
    assert labels[links[0].id] == TargetLabel("B200 · FP8 · entry 1", "/pages/x#entry-1")
    assert labels[links[2].id].label == "entry 3 (gone)"
    assert labels[links[3].id] == TargetLabel("run 9", None)
