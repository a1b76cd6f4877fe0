"""The weekly review on a year of history: how long a past week and the current week take to compose."""

from __future__ import annotations

import random
import time
from datetime import timedelta

from sqlalchemy import create_engine, insert
from sqlmodel import Session

from app.audit.models import ChangeEvent
from app.core.models import utcnow
from app.github_refs.models import GitHubRef, GitHubRefLink
from app.review.markdown import render_review_markdown
from app.review.service import build_review
from app.review.weeks import week_of
from benchmarks.support import bench_database

PAGES = 20
ENTRIES_PER_PAGE = 150
REFS = 2_000
WEEKS = 52
STATUS_CHANGES_PER_WEEK = 1_000
UPLOADS_PER_WEEK = 500
SERIES = 300
STATUSES = ["working", "failing", "wip", "in_review", "needs_evaluation"]


def _history(now) -> tuple[list[dict], list[dict], list[dict]]:
    """A year of events for 20 pages, 3,000 entries, 2,000 refs and 300 benchmark series."""
    rng = random.Random(7)
    start = now - timedelta(weeks=WEEKS)
    events: list[dict] = []
    status: dict[int, str] = {}

    def event(moment, **fields):
        fields.setdefault("actor", "importer")
        fields.setdefault("context", {})
        events.append({"occurred_at": moment, **fields})

    for page in range(1, PAGES + 1):
        slug = f"page-{page}"
        event(
            start,
            kind="page.imported",
            subject_type="page",
            subject_id=page,
            page_id=page,
            new_value="ok",
            context={"slug": slug, "title": f"Page {page}", "health": "ok"},
        )
        for index in range(ENTRIES_PER_PAGE):
            entry = page * 1000 + index
            status[entry] = rng.choice(STATUSES)
            event(
                start,
                kind="entry.added",
                subject_type="entry",
                subject_id=entry,
                page_id=page,
                new_value=status[entry],
                context={
                    "slug": slug,
                    "precision": "FP8",
                    "component": f"c{index % 12}",
                    "backend": f"b{index}",
                    "status": status[entry],
                },
            )
    entries = list(status)
    for week in range(WEEKS):
        week_start = start + timedelta(weeks=week)
        for _ in range(STATUS_CHANGES_PER_WEEK):
            entry = rng.choice(entries)
            new = rng.choice(STATUSES)
            event(
                week_start + timedelta(seconds=rng.randrange(7 * 86400)),
                kind="entry.status_changed",
                subject_type="entry",
                subject_id=entry,
                page_id=entry // 1000,
                old_value=status[entry],
                new_value=new,
                actor="alice",
                reason="bench",
                context={
                    "slug": f"page-{entry // 1000}",
                    "precision": "FP8",
                    "component": "c",
                    "backend": "b",
                },
            )
            status[entry] = new
        for _ in range(UPLOADS_PER_WEEK):
            series = rng.randrange(SERIES)
            event(
                week_start + timedelta(seconds=rng.randrange(7 * 86400)),
                kind="run.uploaded",
                subject_type="run",
                subject_id=rng.randrange(10**6),
                actor="ci",
                context={"series_key": f"series-{series}", "hardware": f"gpu-{series % 5}"},
            )
        for _ in range(20):
            event(
                week_start + timedelta(days=rng.randrange(7)),
                kind="run.regression",
                subject_type="run",
                subject_id=rng.randrange(10**6),
                actor="system",
                context={
                    "series_key": f"series-{rng.randrange(SERIES)}",
                    "metric": "output_throughput",
                    "baseline": 100.0,
                    "value": 80.0,
                    "delta_pct": -20.0,
                    "baseline_run_id": 1,
                },
            )
    refs = [
        {
            "id": number,
            "repo": "vllm-project/vllm",
            "number": number,
            "kind": "pull",
            "state": "open",
            "labels": [],
            "draft": False,
            "merged": False,
            "not_found": False,
            "gh_created_at": start + timedelta(hours=rng.randrange(WEEKS * 168)),
            "gh_updated_at": now - timedelta(days=rng.randrange(60)),
        }
        for number in range(1, REFS + 1)
    ]
    links = [
        {
            "ref_id": rng.randrange(1, REFS + 1),
            "target_type": "entry",
            "target_id": entry,
            "position": 0,
            "created_at": start,
            "created_by": "importer",
        }
        for entry in entries
    ]
    events.sort(key=lambda row: row["occurred_at"])
    return events, refs, links


def run() -> list[str]:
    now = utcnow()
    events, refs, links = _history(now)
    lines = [f"{len(events):,} events, {len(refs):,} refs, {len(links):,} links over {WEEKS} weeks"]
    with bench_database("bench_review") as url:
        engine = create_engine(url)
        with Session(engine) as session:
            session.execute(insert(GitHubRef), refs)
            session.execute(insert(GitHubRefLink), links)
            for offset in range(0, len(events), 10_000):
                session.execute(insert(ChangeEvent), events[offset : offset + 10_000])
            session.commit()
        current = week_of(now)
        for label, week in (
            ("past week (4 weeks ago)", week_of(now - timedelta(weeks=4))),
            ("current week", current),
        ):
            with Session(engine) as session:
                started = time.perf_counter()
                review = build_review(session=session, week=week, now=now, stale_after_days=14)
                composed = time.perf_counter() - started
                started = time.perf_counter()
                text = render_review_markdown(review, base_url="http://127.0.0.1:8000")
                rendered = time.perf_counter() - started
            lines.append(
                f"{label}: composed in {composed * 1000:.0f} ms, Markdown in {rendered * 1000:.0f} ms "
                f"({len(review.needs_attention)} attention items, {len(text):,} chars)"
            )
        engine.dispose()
    return lines
