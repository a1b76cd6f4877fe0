"""The sync job against the fake GitHub: state, transitions, request cost, faults, the lock."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import text
from sqlmodel import Session, select

from app.audit.service import list_events
from app.github_refs.client import GitHubClient
from app.github_refs.models import GitHubRef, GitHubRefLink, GitHubSyncRun, LinkTarget, RefKind
from app.github_refs.service import RefAddress, get_or_create_ref, link_ref
from app.github_refs.sync import SYNC_LOCK_KEY, run_sync
from tests.github_refs.fake_github import FakeGitHub

VLLM = "vllm-project/vllm"
FLASHINFER = "flashinfer-ai/flashinfer"


def track(session: Session, repo: str, number: int, kind: RefKind = RefKind.unknown) -> GitHubRef:
    ref = get_or_create_ref(session=session, address=RefAddress(repo, number, kind))
    session.flush()
    return ref


def ref_events(session: Session, ref: GitHubRef) -> list[str]:
    return [event.kind for event in list_events(session=session, subject_type="ref", subject_ids=[ref.id])]


def test_first_sync_stores_state_and_records_only_what_github_timestamps_prove(
    session: Session, fake_github: FakeGitHub, github_client: GitHubClient
):
    merged = fake_github.add(VLLM, 100, title="Fix fp8", labels=["ready"], author="alice")
    fake_github.merge(VLLM, 100)
    fake_github.add(VLLM, 101, draft=True)
    fake_github.add(FLASHINFER, 7, pull=False, title="Crash on SM120")
    refs = [track(session, VLLM, 100, RefKind.pull), track(session, VLLM, 101), track(session, FLASHINFER, 7)]

    report = run_sync(session=session, client=github_client)

    assert report.status == "ok", report
    pr, draft, issue = refs
    assert (pr.display_state, pr.title, pr.labels, pr.author) == ("merged", "Fix fp8", ["ready"], "alice")
    assert pr.merged_at == merged.merged_at and pr.etag
    assert (draft.kind, draft.display_state) == ("pull", "draft")
    assert (issue.kind, issue.display_state, issue.title) == ("issue", "open", "Crash on SM120")
    assert ref_events(session, pr) == ["ref.opened", "ref.merged"]
    assert ref_events(session, draft) == ["ref.opened"]
    opened = list_events(session=session, kinds=["ref.opened"], subject_ids=[pr.id])[0]
    assert opened.occurred_at == merged.created_at
    assert opened.actor == "github-sync"
    assert opened.context == {
        "repo": VLLM,
        "number": 100,
        "title": "Fix fp8",
        "kind": "pull",
        "updated_at": pr.gh_updated_at.isoformat(),
    }
    # Known PR: 1 GET; unknown kind that is a PR: issue then pull; issue: 1 GET.
    assert fake_github.count() == 4
    run = session.get(GitHubSyncRun, report.run_id)
    assert run.status == "ok" and run.requests == 4 and run.finished_at is not None


def test_an_unchanged_repository_costs_one_request_answered_304(
    session: Session, fake_github: FakeGitHub, github_client: GitHubClient
):
    for number in range(1, 41):
        fake_github.add(VLLM, number, pull=number % 2 == 0)
        track(session, VLLM, number, RefKind.pull if number % 2 == 0 else RefKind.issue)
    fake_github.add(FLASHINFER, 1)
    track(session, FLASHINFER, 1, RefKind.pull)
    run_sync(session=session, client=github_client)  # first sync: one GET per ref
    run_sync(session=session, client=github_client)  # establishes the listing ETags
    fake_github.reset_counts()

    report = run_sync(session=session, client=github_client)

    assert report.status == "ok"
    assert fake_github.count() == 2
    assert fake_github.not_modified_count() == 2
    assert report.requests == 2 and report.not_modified == 2 and report.refs_checked == 41


def test_changes_between_syncs_become_transition_events_at_github_times(
    session: Session, fake_github: FakeGitHub, github_client: GitHubClient
):
    fake_github.add(VLLM, 1, draft=True)
    fake_github.add(VLLM, 2)
    fake_github.add(VLLM, 3, pull=False)
    fake_github.add(VLLM, 4, state="closed", closed_at=fake_github.now - timedelta(hours=5))
    fake_github.add(VLLM, 5, requested_reviewers=[])
    refs = {number: track(session, VLLM, number) for number in range(1, 6)}
    for number in range(6, 30):  # untouched refs must not cost a request each
        fake_github.add(VLLM, number)
        track(session, VLLM, number, RefKind.pull)
    run_sync(session=session, client=github_client)

    fake_github.change(VLLM, 1, draft=False)
    merged = fake_github.merge(VLLM, 2)
    closed = fake_github.change(VLLM, 3, state="closed")
    fake_github.change(VLLM, 4, state="open")
    fake_github.change(VLLM, 5, requested_reviewers=["bob"])
    fake_github.reset_counts()
    report = run_sync(session=session, client=github_client)

    assert report.status == "ok"
    assert ref_events(session, refs[1])[-1] == "ref.ready_for_review"
    assert ref_events(session, refs[2])[-1] == "ref.merged"
    assert ref_events(session, refs[3])[-1] == "ref.closed"
    assert ref_events(session, refs[4])[-1] == "ref.reopened"
    assert refs[5].display_state == "in_review"
    merge_event = list_events(session=session, kinds=["ref.merged"], subject_ids=[refs[2].id])[-1]
    assert merge_event.occurred_at == merged.merged_at
    assert merge_event.old_value == "open" and merge_event.new_value == "merged"
    close_event = list_events(session=session, kinds=["ref.closed"], subject_ids=[refs[3].id])[-1]
    assert close_event.occurred_at == closed.closed_at
    # One listing, plus one pull GET for each of the four changed PRs; the issue came with the listing.
    assert fake_github.count() == 5
    assert report.refs_changed == 5

    fake_github.change(VLLM, 1, draft=True)
    run_sync(session=session, client=github_client)
    assert ref_events(session, refs[1])[-1] == "ref.converted_to_draft"
    # Seen again without change: no new events.
    before = len(list_events(session=session, subject_type="ref"))
    run_sync(session=session, client=github_client)
    assert len(list_events(session=session, subject_type="ref")) == before


def test_a_404_marks_the_ref_not_found_and_keeps_it_and_its_links(
    session: Session, fake_github: FakeGitHub, github_client: GitHubClient
):
    ref = track(session, VLLM, 999)
    link_ref(session=session, ref=ref, target_type=LinkTarget.entry, target_id=12, audit=False)

    report = run_sync(session=session, client=github_client)

    assert report.status == "ok"
    assert ref.not_found and "not found" in ref.last_sync_error
    assert ref.display_state == "not_found"
    assert any("vllm-project/vllm#999" in error for error in report.errors)
    assert session.exec(select(GitHubRefLink).where(GitHubRefLink.ref_id == ref.id)).one()
    fake_github.reset_counts()
    run_sync(session=session, client=github_client)
    assert fake_github.count(path_contains="/999") == 0, "a 404 is asked again only after a day"


def test_transient_502s_are_retried_with_backoff(
    session: Session, fake_github: FakeGitHub, github_client: GitHubClient, slept: list[float]
):
    fake_github.add(VLLM, 1)
    ref = track(session, VLLM, 1, RefKind.pull)
    fake_github.fail(r"/pulls/1$", status=502, times=2)

    report = run_sync(session=session, client=github_client)

    assert report.status == "ok"
    assert ref.display_state == "open"
    assert fake_github.count() == 3
    # urllib3's exponential backoff: the first retry goes at once, the second after backoff_factor * 2.
    assert slept == [pytest.approx(0.02)]


def test_github_down_keeps_the_last_known_state_and_reports_the_failure(
    session: Session, fake_github: FakeGitHub, github_client: GitHubClient
):
    fake_github.add(VLLM, 1)
    ref = track(session, VLLM, 1, RefKind.pull)
    link_ref(session=session, ref=ref, target_type=LinkTarget.row, target_id=3, audit=False)
    run_sync(session=session, client=github_client)
    fake_github.merge(VLLM, 1)
    fake_github.fail("/repos/", status=502, times=100)

    report = run_sync(session=session, client=github_client)

    assert report.status == "failed"
    assert "502" in report.message and report.errors
    session.refresh(ref)
    assert ref.display_state == "open", "the last known state stays"
    assert session.exec(select(GitHubRefLink).where(GitHubRefLink.ref_id == ref.id)).one()
    fake_github.faults.clear()
    assert run_sync(session=session, client=github_client).status == "ok"
    session.refresh(ref)
    assert ref.display_state == "merged", "the changes missed during the outage are picked up"


def test_slow_answers_past_the_timeout_fail_the_run_without_losing_state(
    session: Session, fake_github: FakeGitHub, make_client
):
    fake_github.add(VLLM, 1)
    ref = track(session, VLLM, 1, RefKind.pull)
    fake_github.fail(r"/pulls/1$", status=200, delay=1.3, times=1)

    report = run_sync(session=session, client=make_client(retries=0))

    assert report.status == "failed"
    assert "did not answer in time" in report.message
    assert ref.last_synced_at is None


def test_a_rate_limit_reset_within_the_allowed_wait_is_waited_for(
    session: Session, fake_github: FakeGitHub, github_client: GitHubClient, slept: list[float]
):
    fake_github.add(VLLM, 1)
    ref = track(session, VLLM, 1, RefKind.pull)
    fake_github.rate_limit_primary(r"/pulls/1$", reset_in=30)

    report = run_sync(session=session, client=github_client)

    assert report.status == "ok" and ref.display_state == "open"
    assert 25 < slept[-1] <= 32


def test_a_rate_limit_wait_longer_than_allowed_stops_and_reports(
    session: Session, fake_github: FakeGitHub, github_client: GitHubClient, slept: list[float]
):
    fake_github.add(VLLM, 1)
    fake_github.add(FLASHINFER, 2)
    track(session, VLLM, 1, RefKind.pull)
    track(session, FLASHINFER, 2, RefKind.pull)
    fake_github.rate_limit_primary(r"flashinfer", reset_in=3600)

    report = run_sync(session=session, client=github_client)

    assert report.status == "failed"
    assert "rate limit" in report.message and "flashinfer" in report.message
    assert slept == []
    assert fake_github.count(path_contains="vllm") == 0, "stopped before the next repository"


def test_retry_after_on_429_is_honoured(
    session: Session, fake_github: FakeGitHub, github_client: GitHubClient, slept: list[float]
):
    fake_github.add(VLLM, 1)
    track(session, VLLM, 1, RefKind.pull)
    fake_github.rate_limit_retry_after(r"/pulls/1$", seconds=7)

    assert run_sync(session=session, client=github_client).status == "ok"
    assert slept == [7]


def test_only_one_sync_runs_at_a_time(session: Session, engine, github_client: GitHubClient, fake_github):
    with engine.connect() as other:
        other.execute(text("SELECT pg_advisory_lock(:key)"), {"key": SYNC_LOCK_KEY})
        try:
            report = run_sync(session=session, client=github_client)
        finally:
            other.execute(text("SELECT pg_advisory_unlock(:key)"), {"key": SYNC_LOCK_KEY})
    assert report.status == "skipped"
    assert fake_github.count() == 0


def test_a_repository_that_disappeared_is_reported_and_the_others_still_sync(
    session: Session, fake_github: FakeGitHub, github_client: GitHubClient
):
    fake_github.add(VLLM, 1)
    fake_github.add(FLASHINFER, 2)
    gone = track(session, FLASHINFER, 2, RefKind.pull)
    kept = track(session, VLLM, 1, RefKind.pull)
    run_sync(session=session, client=github_client)
    fake_github.merge(VLLM, 1)
    fake_github.fail(r"^/repos/flashinfer-ai/flashinfer/issues$", status=404, times=10)

    report = run_sync(session=session, client=github_client)

    assert report.status == "ok"
    flashinfer_errors = [error for error in report.errors if error.startswith("flashinfer-ai/flashinfer:")]
    assert flashinfer_errors and "not found" in flashinfer_errors[0]
    assert kept.display_state == "merged"
    assert gone.display_state == "open", "its last known state stays"


def test_request_budget_idle_and_with_ten_changes_does_not_grow_with_the_number_of_refs(
    session: Session, fake_github: FakeGitHub, github_client: GitHubClient
):
    repos = [VLLM, FLASHINFER, "sgl-project/sglang", "deepseek-ai/DeepGEMM"]
    for repo in repos:
        for number in range(1, 21):
            fake_github.add(repo, number, pull=number % 3 != 0)
            track(session, repo, number)
    run_sync(session=session, client=github_client)
    run_sync(session=session, client=github_client)
    fake_github.reset_counts()

    run_sync(session=session, client=github_client)
    idle = fake_github.count()
    for number in range(1, 11):
        fake_github.change(repos[number % 4], number, title=f"changed {number}")
    fake_github.reset_counts()
    report = run_sync(session=session, client=github_client)

    assert idle == len(repos) <= 20
    assert fake_github.count() <= 30 and report.refs_changed == 10


def test_a_pull_link_to_an_issue_is_read_as_the_issue(
    session: Session, fake_github: FakeGitHub, github_client: GitHubClient
):
    fake_github.add(VLLM, 3, pull=False, title="Actually an issue")
    ref = track(session, VLLM, 3, RefKind.pull)

    run_sync(session=session, client=github_client)

    assert (ref.kind, ref.title, ref.not_found) == ("issue", "Actually an issue", False)
