"""Change events are recorded with the change and read back in time order, filtered as asked."""

from datetime import UTC, datetime, timedelta

from app.audit.service import list_events, record_event

MONDAY = datetime(2026, 11, 16, tzinfo=UTC)


def record(session, kind: str, *, days: float, subject_id: int = 1, page_id: int | None = None):
    return record_event(
        session=session,
        actor="alice",
        kind=kind,
        subject_type=kind.split(".")[0],
        subject_id=subject_id,
        page_id=page_id,
        old_value="working",
        new_value="failing",
        reason="fails with assert",
        context={"component": "MOE", "backend": "FlashInfer CUTLASS"},
        occurred_at=MONDAY + timedelta(days=days),
    )


def test_events_come_back_oldest_first_within_the_window(session):
    record(session, "entry.status_changed", days=3)
    record(session, "entry.status_changed", days=1)
    record(session, "ref.merged", days=8)
    session.flush()
    week = list_events(session=session, since=MONDAY, until=MONDAY + timedelta(days=7))
    assert [event.occurred_at for event in week] == [MONDAY + timedelta(days=1), MONDAY + timedelta(days=3)]
    first = week[0]
    assert (first.actor, first.old_value, first.new_value, first.reason) == (
        "alice",
        "working",
        "failing",
        "fails with assert",
    )
    assert first.context == {"component": "MOE", "backend": "FlashInfer CUTLASS"}


def test_events_filter_by_kind_prefix_subject_and_page(session):
    record(session, "entry.status_changed", days=1, subject_id=7, page_id=3)
    record(session, "entry.updated", days=2, subject_id=8, page_id=3)
    record(session, "ref.merged", days=2, subject_id=7)
    session.flush()
    assert [event.kind for event in list_events(session=session, kind_prefix="entry.")] == [
        "entry.status_changed",
        "entry.updated",
    ]
    assert [event.kind for event in list_events(session=session, kinds=["ref.merged"])] == ["ref.merged"]
    assert len(list_events(session=session, subject_type="entry", subject_ids=[7])) == 1
    assert len(list_events(session=session, page_id=3)) == 2
    assert len(list_events(session=session, page_id=3, limit=1)) == 1
