"""Fixtures for the GitHub domain: a fake GitHub on loopback per test and a fast client pointed at it."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from app.github_refs.client import GitHubClient
from tests.github_refs.fake_github import FakeGitHub


@pytest.fixture
def fake_github() -> Iterator[FakeGitHub]:
    fake = FakeGitHub().start()
    yield fake
    fake.stop()


@pytest.fixture
def slept() -> list[float]:
    """The waits the client asked for (recorded instead of slept, so rate-limit tests stay fast)."""
    return []


@pytest.fixture
def make_client(fake_github: FakeGitHub, slept: list[float]) -> Iterator[Callable[..., GitHubClient]]:
    clients: list[GitHubClient] = []

    def factory(**overrides: object) -> GitHubClient:
        options: dict[str, object] = {
            "base_url": fake_github.url,
            "token": "test-token",
            "timeout_seconds": 1,
            "max_rate_limit_wait_seconds": 60,
            "retries": 2,
            "backoff_factor": 0.01,
            "seconds_between_requests": None,
            "sleep": slept.append,
        }
        options.update(overrides)
        client = GitHubClient(**options)  # type: ignore[arg-type]
        clients.append(client)
        return client

    yield factory
    for client in clients:
        client.close()


@pytest.fixture
def github_client(make_client: Callable[..., GitHubClient]) -> GitHubClient:
    return make_client()
