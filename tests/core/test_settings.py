"""Settings refuse values the service cannot run with, naming the variable."""

import pytest
from pydantic import ValidationError

from app.core.settings import Settings


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch):
    """These tests read defaults, so the CI's DATABASE_URL and the suite's own variables must not leak in."""
    for name in ("DATABASE_URL", "ENVIRONMENT", "SECRET_KEY", "GITHUB_API_URL", "GITHUB_REPO_ALIASES"):
        monkeypatch.delenv(name, raising=False)


def build(**values):
    return Settings(_env_file=None, **values)


def test_placeholder_secret_is_refused_outside_development():
    with pytest.raises(ValidationError, match="SECRET_KEY is a placeholder"):
        build(ENVIRONMENT="production", SECRET_KEY="change-me")


def test_placeholder_secret_is_accepted_in_development():
    assert build(ENVIRONMENT="development", SECRET_KEY="change-me").secret_key == "change-me"


def test_malformed_database_url_names_the_variable():
    with pytest.raises(ValidationError, match="DATABASE_URL is malformed"):
        build(DATABASE_URL="not a url at all")


def test_non_postgres_database_url_is_refused():
    with pytest.raises(ValidationError, match="DATABASE_URL must point at PostgreSQL"):
        build(DATABASE_URL="sqlite:///x.db")


def test_database_url_gets_the_psycopg_driver():
    settings = build(DATABASE_URL="postgresql://u:p@db:5432/statusboard")
    assert settings.database_url == "postgresql+psycopg://u:p@db:5432/statusboard"


def test_repo_aliases_read_from_pairs_or_json():
    assert build(
        GITHUB_REPO_ALIASES="fi=flashinfer-ai/flashinfer, v=vllm-project/vllm"
    ).github_repo_aliases == {
        "fi": "flashinfer-ai/flashinfer",
        "v": "vllm-project/vllm",
    }
    assert build(GITHUB_REPO_ALIASES='{"x": "o/x"}').github_repo_aliases == {"x": "o/x"}


def test_defaults_match_the_documented_ones():
    settings = build()
    assert settings.github_default_repo == "vllm-project/vllm"
    assert settings.upload_max_bytes == 20 * 1024 * 1024
    assert settings.reads_open is True
    assert settings.stale_after_days == 14
    assert settings.uses_embedded_postgres
