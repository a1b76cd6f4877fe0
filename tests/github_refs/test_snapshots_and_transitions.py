"""Pure rules: reading GitHub's shapes and deciding which transitions a change makes."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from app.github_refs.models import RefKind
from app.github_refs.snapshots import RefSnapshot, snapshot_from_issue, snapshot_from_pull
from app.github_refs.updates import StoredState, transitions

T1 = datetime(2026, 11, 16, 10, tzinfo=UTC)
T2 = datetime(2026, 11, 18, 10, tzinfo=UTC)


def snap(**fields: object) -> RefSnapshot:
    values: dict[str, object] = {
        "repo": "vllm-project/vllm",
        "number": 1,
        "kind": RefKind.pull,
        "title": "x",
        "state": "open",
        "created_at": T1,
        "updated_at": T2,
    }
    values.update(fields)
    return RefSnapshot(**values)


def test_an_issue_listing_item_for_a_pr_is_a_pull_with_its_merge_time():
    item = {
        "number": 5,
        "title": "t",
        "state": "closed",
        "draft": False,
        "labels": [{"name": "b"}, {"name": "a"}],
        "user": {"login": "u"},
        "created_at": "2026-11-16T10:00:00Z",
        "updated_at": "2026-11-18T10:00:00Z",
        "closed_at": "2026-11-18T10:00:00Z",
        "repository_url": "https://api.github.com/repos/vllm-project/vllm",
        "pull_request": {"merged_at": "2026-11-18T10:00:00Z"},
    }
    snapshot = snapshot_from_issue(item)
    assert (snapshot.repo, snapshot.kind, snapshot.merged, snapshot.labels) == (
        "vllm-project/vllm",
        RefKind.pull,
        True,
        ["a", "b"],
    )
    assert snapshot.merged_at == T2 and not snapshot.partial_pull
    assert snapshot_from_issue({**item, "pull_request": None}).kind == RefKind.issue


def test_a_pull_with_requested_reviewers_is_review_requested():
    pull = {
        "number": 3,
        "state": "open",
        "requested_reviewers": [{"login": "r"}],
        "base": {"repo": {"full_name": "o/r"}},
    }
    assert snapshot_from_pull(pull).review_requested and snapshot_from_pull(pull).repo == "o/r"


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        (StoredState(None, False, False), snap(), ["ref.opened"]),
        (
            StoredState(None, False, False),
            snap(state="closed", merged=True, merged_at=T2),
            ["ref.opened", "ref.merged"],
        ),
        (StoredState(None, True, False), snap(state="closed", closed_at=T2), ["ref.opened", "ref.closed"]),
        (StoredState("open", False, False), snap(state="closed", merged=True, merged_at=T2), ["ref.merged"]),
        (StoredState("open", True, False), snap(state="closed", closed_at=T2), ["ref.closed"]),
        (StoredState("closed", False, False), snap(), ["ref.reopened"]),
        (StoredState("open", True, False), snap(), ["ref.ready_for_review"]),
        (StoredState("open", False, False), snap(draft=True), ["ref.converted_to_draft"]),
        (StoredState("open", False, False), snap(title="renamed"), []),
        (StoredState("closed", False, True), snap(state="closed", merged=True), []),
    ],
)
def test_transitions(old: StoredState, new: RefSnapshot, expected: list[str]):
    assert [transition.kind for transition in transitions(old, new)] == expected


def test_transitions_use_githubs_timestamps():
    found = transitions(StoredState(None, False, False), snap(state="closed", merged=True, merged_at=T2))
    assert [transition.occurred_at for transition in found] == [T1, T2]
