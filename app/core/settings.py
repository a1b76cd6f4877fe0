"""One settings object for the whole service, read from the environment and `.env`."""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Annotated, Literal

from pydantic import Field, field_validator, model_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError

from app.core.paths import DATA_DIR, PROJECT_ROOT

PLACEHOLDER_SECRET_KEYS = {"", "change-me", "changeme", "secret", "dev", "development"}
DEFAULT_SECRET_KEY = "change-me"


class SettingsError(ValueError):
    """A setting has a value the service cannot run with; the message names the variable."""


def normalise_database_url(raw: str) -> str:
    """Checks a PostgreSQL URL and returns it with the psycopg 3 driver named."""
    try:
        url = make_url(raw)
    except (ArgumentError, ValueError) as exc:
        raise SettingsError(
            f"DATABASE_URL is malformed ({exc}); expected postgresql+psycopg://USER:PASSWORD@HOST:PORT/DB"
        ) from None
    if url.get_backend_name() != "postgresql":
        raise SettingsError(
            f"DATABASE_URL must point at PostgreSQL (postgresql+psycopg://…), not {url.drivername!r}"
        )
    if url.get_driver_name() not in ("psycopg", "psycopg2", "") and url.drivername != "postgresql":
        raise SettingsError(f"DATABASE_URL uses driver {url.drivername!r}; use postgresql+psycopg://")
    if not url.database:
        raise SettingsError("DATABASE_URL names no database; add /DBNAME at the end")
    return url.set(drivername="postgresql+psycopg").render_as_string(hide_password=False)


def parse_mapping(value: object, *, variable: str, pair: str) -> object:
    """Reads a mapping written as JSON or as `key=value` pairs joined by commas; other values pass through."""
    if not isinstance(value, str):
        return value
    text = value.strip()
    if text.startswith("{"):
        return json.loads(text)
    pairs = [item.split("=", 1) for item in text.split(",") if item.strip()]
    if any(len(item) != 2 for item in pairs):
        raise ValueError(f"{variable} must be JSON or {pair} pairs separated by commas")
    return {key.strip(): item.strip() for key, item in pairs}


class Settings(BaseSettings):
    """Every knob of statusboard; `.env.example` documents each one."""

    model_config = SettingsConfigDict(env_file=PROJECT_ROOT / ".env", extra="ignore", populate_by_name=True)

    environment: Literal["development", "test", "production"] = Field(
        default="development", validation_alias="ENVIRONMENT"
    )
    database_url: str | None = Field(default=None, validation_alias="DATABASE_URL")
    embedded_postgres_dir: Path = Field(
        default=DATA_DIR / "postgres", validation_alias="EMBEDDED_POSTGRES_DIR"
    )
    database_startup_timeout_seconds: float = Field(
        default=30.0, ge=0, validation_alias="DATABASE_STARTUP_TIMEOUT_SECONDS"
    )
    secret_key: str = Field(default=DEFAULT_SECRET_KEY, validation_alias="SECRET_KEY")
    session_cookie_secure: bool = Field(default=False, validation_alias="SESSION_COOKIE_SECURE")
    reads_open: bool = Field(default=True, validation_alias="READS_OPEN")
    upload_max_bytes: int = Field(default=20 * 1024 * 1024, gt=0, validation_alias="UPLOAD_MAX_BYTES")
    import_max_bytes: int = Field(default=2 * 1024 * 1024, gt=0, validation_alias="IMPORT_MAX_BYTES")
    webhook_max_bytes: int = Field(default=25 * 1000 * 1000, gt=0, validation_alias="WEBHOOK_MAX_BYTES")

    github_token: str | None = Field(default=None, validation_alias="GITHUB_TOKEN")
    github_api_url: str = Field(default="https://api.github.com", validation_alias="GITHUB_API_URL")
    github_default_repo: str = Field(default="vllm-project/vllm", validation_alias="GITHUB_DEFAULT_REPO")
    github_webhook_secret: str | None = Field(default=None, validation_alias="GITHUB_WEBHOOK_SECRET")
    github_repo_aliases: Annotated[dict[str, str], NoDecode] = Field(
        default_factory=lambda: {
            "vllm": "vllm-project/vllm",
            "flashinfer": "flashinfer-ai/flashinfer",
            "deepgemm": "deepseek-ai/DeepGEMM",
            "sglang": "sgl-project/sglang",
        },
        validation_alias="GITHUB_REPO_ALIASES",
    )
    github_sync_interval_seconds: int = Field(
        default=600, gt=0, validation_alias="GITHUB_SYNC_INTERVAL_SECONDS"
    )
    github_timeout_seconds: float = Field(default=15.0, gt=0, validation_alias="GITHUB_TIMEOUT_SECONDS")
    github_max_rate_limit_wait_seconds: float = Field(
        default=900.0, ge=0, validation_alias="GITHUB_MAX_RATE_LIMIT_WAIT_SECONDS"
    )
    stale_after_days: int = Field(default=14, gt=0, validation_alias="STALE_AFTER_DAYS")
    regression_threshold_pct: float = Field(default=5.0, ge=0, validation_alias="REGRESSION_THRESHOLD_PCT")
    regression_thresholds: Annotated[dict[str, float], NoDecode] = Field(
        default_factory=dict, validation_alias="REGRESSION_THRESHOLDS"
    )

    @field_validator("github_repo_aliases", mode="before")
    @classmethod
    def _parse_aliases(cls, value: object) -> object:
        """Accepts JSON (`{"flashinfer": "flashinfer-ai/flashinfer"}`) or `short=owner/name,…`."""
        mapping = parse_mapping(value, variable="GITHUB_REPO_ALIASES", pair="short=owner/name")
        return {key.lower(): repo for key, repo in mapping.items()} if isinstance(mapping, dict) else mapping

    @field_validator("regression_thresholds", mode="before")
    @classmethod
    def _parse_thresholds(cls, value: object) -> object:
        """Accepts JSON (`{"p99_ttft_ms": 10}`) or `metric=percent,…`."""
        return parse_mapping(value, variable="REGRESSION_THRESHOLDS", pair="metric=percent")

    @field_validator("database_url", mode="before")
    @classmethod
    def _empty_url_is_none(cls, value: object) -> object:
        return None if isinstance(value, str) and not value.strip() else value

    @model_validator(mode="after")
    def _check(self) -> Settings:
        if self.database_url is not None:
            self.database_url = normalise_database_url(self.database_url)
        if self.environment != "development" and self.secret_key.strip().lower() in PLACEHOLDER_SECRET_KEYS:
            raise SettingsError(
                f"SECRET_KEY is a placeholder ({self.secret_key!r}); set a long random value "
                f"when ENVIRONMENT={self.environment}"
            )
        if self.environment != "development" and len(self.secret_key) < 16:
            raise SettingsError("SECRET_KEY must be at least 16 characters outside development")
        return self

    @property
    def uses_embedded_postgres(self) -> bool:
        return self.database_url is None


@lru_cache
def get_settings() -> Settings:
    """Returns the process-wide settings, read once."""
    return Settings()
