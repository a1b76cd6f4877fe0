"""Storing a parsed run: one run per upload, series bookkeeping, metrics, refs and the change event."""

from datetime import UTC, datetime

import pytest
from sqlmodel import select

from app.audit.models import ChangeEvent
from app.benchmarks.formats.base import ParsedMetric, ParsedResult
from app.benchmarks.models import BenchmarkRun, BenchmarkSeries
from app.benchmarks.service import metrics_of, store_run
from app.core.errors import InvalidInput
from app.github_refs.models import GitHubRefLink

CONTEXT = {"hardware": "GB200", "gpu_count": 4, "model": "nvidia/DeepSeek-R1-0528-FP4-v2", "precision": "fp4"}


def parsed(
    raw: bytes = b'{"total_token_throughput": 69219.0}', value: float = 69219.0, **context
) -> ParsedResult:
    return ParsedResult(
        source_format="vllm_serve_json",
        raw=raw,
        metrics=[ParsedMetric("total_token_throughput", value, "tok/s", "higher")],
        context=context,
    )


def store(session, result, **supplied):
    return store_run(
        session=session,
        parsed=result,
        supplied_context={**CONTEXT, **supplied},
        actor="ci",
        default_repo="vllm-project/vllm",
        repo_aliases={},
    )


def test_a_run_is_stored_with_metrics_series_and_event(session):
    run, created = store(session, parsed(run_time="20251204-101500"), links=["#30014"])
    assert created
    assert run.run_time == datetime(2025, 12, 4, 10, 15, tzinfo=UTC)
    assert run.raw_payload == b'{"total_token_throughput": 69219.0}'
    assert [(m.name, m.value, m.unit) for m in metrics_of(session=session, run_id=run.id)] == [
        ("total_token_throughput", 69219.0, "tok/s")
    ]
    series = session.get(BenchmarkSeries, run.series_key)
    assert series.run_count == 1 and series.hardware == "GB200" and "run_time" not in series.context
    uploaded = select(ChangeEvent).where(ChangeEvent.subject_id == run.id, ChangeEvent.kind == "run.uploaded")
    event = session.exec(uploaded).one()
    assert event.kind == "run.uploaded"
    assert event.context == {
        "series_key": run.series_key,
        "hardware": "GB200",
        "model": run.model,
        "precision": "fp4",
    }
    assert (
        session.exec(select(GitHubRefLink).where(GitHubRefLink.target_id == run.id)).one().target_type
        == "run"
    )


def test_the_same_upload_twice_is_one_run(session):
    first, created_first = store(session, parsed())
    second, created_second = store(session, parsed())
    assert created_first and not created_second
    assert first.id == second.id
    assert session.get(BenchmarkSeries, first.series_key).run_count == 1


def test_two_runs_of_one_configuration_share_a_series_and_its_time_range(session):
    before, _ = store(session, parsed(b"before", 69219.0, run_time="20251201-000000"), label="before")
    after, _ = store(session, parsed(b"after", 73714.89, run_time="20251204-000000"), label="after")
    assert before.series_key == after.series_key
    series = session.get(BenchmarkSeries, before.series_key)
    assert series.run_count == 2
    assert series.first_run_time == before.run_time and series.last_run_time == after.run_time


def test_a_bad_reference_stores_nothing(session):
    with pytest.raises(InvalidInput):
        store(session, parsed(b"bad-ref"), links=["not a ref"])
    assert session.exec(select(BenchmarkRun)).all() == []


def test_a_concurrent_identical_upload_answers_with_the_run_that_won(session, monkeypatch):
    from app.benchmarks import ingest as ingest_module

    items = [ingest_module.UploadItem(raw=b'{"duration": 1.0, "completed": 1, "failed": 0}', context=CONTEXT)]
    [first] = ingest_module.ingest(
        session=session,
        items=items,
        actor="ci",
        default_repo="vllm-project/vllm",
        repo_aliases={},
        bulk=False,
    )
    # The second request looked for the digest before the first one committed, so store_run saw nothing and
    # its insert hits the unique digest; ingest then answers with the stored run.
    monkeypatch.setattr("app.benchmarks.service.get_run_by_digest", lambda **kwargs: None)
    [second] = ingest_module.ingest(
        session=session,
        items=items,
        actor="ci",
        default_repo="vllm-project/vllm",
        repo_aliases={},
        bulk=False,
    )
    assert (first.status, second.status) == (201, 200)
    assert second.answer["id"] == first.answer["id"] and second.answer["created"] is False
    assert len(session.exec(select(BenchmarkRun)).all()) == 1
