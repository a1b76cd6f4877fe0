"""`statusboard sync` on a real database against the fake GitHub."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from sqlmodel import Session, select
from typer.testing import CliRunner

from app.cli import app
from app.core import migrations
from app.core.database import get_engine
from app.core.settings import get_settings
from app.github_refs.models import GitHubRef, GitHubSyncRun, RefKind
from app.github_refs.service import RefAddress, get_or_create_ref
from tests.github_refs.fake_github import FakeGitHub


@pytest.fixture
def cli_database(scratch_database, monkeypatch, fake_github: FakeGitHub) -> Iterator[str]:
    url = scratch_database("github_cli")
    migrations.upgrade(url)
    monkeypatch.setenv("DATABASE_URL", url)
    monkeypatch.setenv("GITHUB_API_URL", fake_github.url)
    monkeypatch.setenv("GITHUB_TOKEN", "cli-token")
    get_settings.cache_clear()
    yield url
    get_settings.cache_clear()
    get_engine(url).dispose()


def test_sync_command_refreshes_refs_and_prints_the_cost(cli_database: str, fake_github: FakeGitHub):
    fake_github.add("vllm-project/vllm", 5)
    fake_github.merge("vllm-project/vllm", 5)
    with Session(get_engine(cli_database)) as session:
        get_or_create_ref(session=session, address=RefAddress("vllm-project/vllm", 5, RefKind.pull))
        get_or_create_ref(session=session, address=RefAddress("vllm-project/vllm", 6, RefKind.pull))
        session.commit()

    result = CliRunner().invoke(app, ["sync"])

    assert result.exit_code == 0, result.output
    # #6 is missing: asked as a pull, then as an issue (a `/pull/` link may point at an issue).
    assert "sync ok: 2 refs checked" in result.output and "3 GitHub requests" in result.output
    assert "ref.merged vllm-project/vllm#5" in result.output
    assert "not found on GitHub" in result.output
    with Session(get_engine(cli_database)) as session:
        states = {ref.number: ref.display_state for ref in session.exec(select(GitHubRef))}
        assert states == {5: "merged", 6: "not_found"}
        assert session.exec(select(GitHubSyncRun)).one().trigger == "cli"


def test_sync_command_fails_loudly_when_github_is_down(
    cli_database: str, fake_github: FakeGitHub, monkeypatch
):
    monkeypatch.setenv("GITHUB_TIMEOUT_SECONDS", "1")
    with Session(get_engine(cli_database)) as session:
        get_or_create_ref(session=session, address=RefAddress("vllm-project/vllm", 5, RefKind.pull))
        session.commit()
    fake_github.fail("/repos/", status=503, times=100)
    monkeypatch.setattr("app.github_refs.client.time.sleep", lambda _seconds: None)

    result = CliRunner().invoke(app, ["sync"])

    assert result.exit_code == 1
    assert "sync failed" in result.output and "503" in result.output
