"""GitHub sync cost: requests sent to a fake GitHub for 1,000 tracked refs, idle and with 10 changes.

Counted by the fake server (every HTTP request it answers, retries included), against the budget of
issue 4: at most 20 requests when nothing changed, at most 30 with 10 changed; a naive sync (one
unconditional GET per ref) is measured too, for comparison.
"""

from __future__ import annotations

import time

from sqlmodel import Session

from app.core.database import get_engine
from app.github_refs.client import GitHubClient
from app.github_refs.models import RefKind
from app.github_refs.service import RefAddress, get_or_create_ref
from app.github_refs.sync import run_sync
from benchmarks.support import bench_database
from tests.github_refs.fake_github import FakeGitHub

REPOS = {
    "vllm-project/vllm": 600,
    "flashinfer-ai/flashinfer": 200,
    "sgl-project/sglang": 100,
    "deepseek-ai/DeepGEMM": 100,
}
IDLE_BUDGET = 20
CHANGED_BUDGET = 30


def _client(fake: FakeGitHub) -> GitHubClient:
    return GitHubClient(
        base_url=fake.url,
        token="bench",
        timeout_seconds=5,
        max_rate_limit_wait_seconds=60,
        seconds_between_requests=None,
    )


def _measure(fake: FakeGitHub, session: Session, client: GitHubClient) -> tuple[int, int, float, str]:
    fake.reset_counts()
    started = time.perf_counter()
    report = run_sync(session=session, client=client, trigger="bench")
    elapsed = time.perf_counter() - started
    assert report.status == "ok", report.summary()
    return fake.count(), fake.not_modified_count(), elapsed, report.status


def run() -> list[str]:
    fake = FakeGitHub().start()
    lines: list[str] = []
    try:
        refs: list[tuple[str, int, bool]] = []
        for repo, count in REPOS.items():
            for number in range(1, count + 1):
                is_pull = number % 3 != 0
                fake.add(repo, 1000 + number, pull=is_pull)
                refs.append((repo, 1000 + number, is_pull))
        with bench_database("bench_github") as url:
            engine = get_engine(url)
            with engine.connect() as connection, Session(bind=connection, expire_on_commit=False) as session:
                for index, (repo, number, is_pull) in enumerate(refs):
                    # Half arrive as shorthand (kind unknown until the first sync), half as URLs.
                    kind = RefKind.unknown if index % 2 else (RefKind.pull if is_pull else RefKind.issue)
                    get_or_create_ref(session=session, address=RefAddress(repo, number, kind))
                session.commit()
                client = _client(fake)
                first, _, first_time, _ = _measure(fake, session, client)
                second, second_304, _, _ = _measure(fake, session, client)
                idle, idle_304, idle_time, _ = _measure(fake, session, client)
                changed_numbers = [number for repo, number, _ in refs if repo == "vllm-project/vllm"][:6]
                for number in changed_numbers[:3]:
                    fake.merge("vllm-project/vllm", number)
                for number in changed_numbers[3:]:
                    fake.change("vllm-project/vllm", number, title="renamed")
                for repo, number, _ in [ref for ref in refs if ref[0] == "flashinfer-ai/flashinfer"][:4]:
                    fake.change(repo, number, state="closed")
                changed, changed_304, changed_time, _ = _measure(fake, session, client)
                fake.reset_counts()
                for repo, number, is_pull in refs:
                    (client.fetch_pull if is_pull else client.fetch_issue)(repo, number)
                naive = fake.count()
                client.close()
        lines += [
            f"{len(refs)} tracked refs in {len(REPOS)} repositories (half shorthand, kind unknown)",
            f"first sync (never synced, one GET per ref, two for a shorthand PR): {first} requests, "
            f"{first_time:.1f}s",
            f"second sync (listing ETags not stored yet): {second} requests, {second_304} answered 304",
            f"idle sync, none changed: {idle} requests, {idle_304} answered 304 "
            f"({idle - idle_304} count against the rate limit), {idle_time * 1000:.0f} ms "
            f"[budget {IDLE_BUDGET}: {'OK' if idle <= IDLE_BUDGET else 'OVER'}]",
            f"sync with 10 changed: {changed} requests, {changed_304} answered 304, "
            f"{changed_time * 1000:.0f} ms "
            f"[budget {CHANGED_BUDGET}: {'OK' if changed <= CHANGED_BUDGET else 'OVER'}]",
            f"naive per-ref sync (one unconditional GET each): {naive} requests",
        ]
        if idle > IDLE_BUDGET or changed > CHANGED_BUDGET:
            raise AssertionError("; ".join(lines))
    finally:
        fake.stop()
    return lines
