"""Tracked GitHub pull requests and issues, and the links from statusboard's things to them.

The domain is called `github_refs` so that it never shadows PyGithub's top-level `github` package.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

from sqlalchemy import Column, ForeignKey, Index, Integer, UniqueConstraint, text
from sqlmodel import Field, SQLModel

from app.core.models import json_column, timestamp_column, utcnow


class RefKind(StrEnum):
    pull = "pull"
    issue = "issue"
    # A shorthand such as `flashinfer#1566` does not say which; the first sync finds out.
    unknown = "unknown"


class LinkTarget(StrEnum):
    """What a ref can be linked from: the "cells" of the product."""

    page = "page"
    section = "section"
    row = "row"
    entry = "entry"
    rule = "rule"
    run = "run"


class GitHubRef(SQLModel, table=True):
    __tablename__ = "github_ref"
    __table_args__ = (UniqueConstraint("repo", "number"),)

    id: int | None = Field(default=None, primary_key=True)
    repo: str = Field(max_length=200, index=True)
    number: int
    kind: str = Field(default=RefKind.unknown.value, max_length=16)
    title: str | None = None
    state: str | None = Field(default=None, max_length=16)
    draft: bool = False
    # An open, ready PR with reviewers requested shows as "in review".
    review_requested: bool = Field(default=False, sa_column_kwargs={"server_default": text("false")})
    merged: bool = False
    merged_at: datetime | None = Field(
        default=None, sa_column=timestamp_column(nullable=True, default_now=False)
    )
    labels: list[str] = Field(default_factory=list, sa_column=json_column(default="[]"))
    author: str | None = Field(default=None, max_length=100)
    gh_created_at: datetime | None = Field(
        default=None, sa_column=timestamp_column(nullable=True, default_now=False)
    )
    gh_updated_at: datetime | None = Field(
        default=None, sa_column=timestamp_column(nullable=True, default_now=False)
    )
    gh_closed_at: datetime | None = Field(
        default=None, sa_column=timestamp_column(nullable=True, default_now=False)
    )
    html_url: str | None = None
    etag: str | None = Field(default=None, max_length=200)
    last_modified: str | None = Field(default=None, max_length=100)
    last_synced_at: datetime | None = Field(
        default=None, sa_column=timestamp_column(nullable=True, default_now=False)
    )
    last_sync_error: str | None = None
    not_found: bool = False
    created_at: datetime = Field(default_factory=utcnow, sa_column=timestamp_column())

    @property
    def display_state(self) -> str:
        """One word for chips: merged, draft, in_review, open, closed, not_found or unknown (never synced)."""
        if self.not_found:
            return "not_found"
        if self.merged:
            return "merged"
        if self.state == "open":
            if self.draft:
                return "draft"
            return "in_review" if self.kind == RefKind.pull and self.review_requested else "open"
        if self.state == "closed":
            return "closed"
        return "unknown"

    @property
    def url(self) -> str:
        """The page on GitHub, known before the first sync."""
        if self.html_url:
            return self.html_url
        path = "pull" if self.kind == RefKind.pull else "issues"
        return f"https://github.com/{self.repo}/{path}/{self.number}"

    @property
    def short_name(self) -> str:
        return f"{self.repo}#{self.number}"


class GitHubRefLink(SQLModel, table=True):
    __tablename__ = "github_ref_link"
    __table_args__ = (
        UniqueConstraint("ref_id", "target_type", "target_id"),
        Index("ix_github_ref_link_target", "target_type", "target_id"),
    )

    id: int | None = Field(default=None, primary_key=True)
    ref_id: int = Field(
        sa_column=Column(Integer, ForeignKey("github_ref.id", ondelete="CASCADE"), nullable=False)
    )
    target_type: str = Field(max_length=16)
    target_id: int
    # The link text as the source wrote it ("Fix w8a8 block fp8 linear"), exported back verbatim.
    text_as_written: str | None = None
    position: int = 0
    created_at: datetime = Field(default_factory=utcnow, sa_column=timestamp_column())
    created_by: str = Field(default="system", max_length=100)


class DisplayState(StrEnum):
    """The values of `GitHubRef.display_state`, for filters."""

    open = "open"
    draft = "draft"
    in_review = "in_review"
    merged = "merged"
    closed = "closed"
    not_found = "not_found"
    unknown = "unknown"


class GitHubSyncRun(SQLModel, table=True):
    """One run of the sync job: what it cost and what failed; pages show the last successful one."""

    __tablename__ = "github_sync_run"

    id: int | None = Field(default=None, primary_key=True)
    started_at: datetime = Field(default_factory=utcnow, sa_column=timestamp_column(index=True))
    finished_at: datetime | None = Field(
        default=None, sa_column=timestamp_column(nullable=True, default_now=False)
    )
    # cli, loop, api
    trigger: str = Field(default="cli", max_length=16)
    # running, ok (no errors), partial (some refs or repos failed), failed (stopped early), skipped (locked)
    status: str = Field(default="running", max_length=16)
    requests: int = 0
    not_modified: int = 0
    refs_checked: int = 0
    refs_changed: int = 0
    errors: list[str] = Field(default_factory=list, sa_column=json_column(default="[]"))
    message: str | None = None


class GitHubRepoCursor(SQLModel, table=True):
    """Per repository: list changes since `since`; the listing's ETag makes an idle repository a 304."""

    __tablename__ = "github_repo_cursor"

    repo: str = Field(primary_key=True, max_length=200)
    since: datetime = Field(sa_column=timestamp_column(default_now=False))
    listing_etag: str | None = Field(default=None, max_length=200)
    updated_at: datetime = Field(default_factory=utcnow, sa_column=timestamp_column())


class GitHubWebhookDelivery(SQLModel, table=True):
    """Each `X-GitHub-Delivery` once: a redelivery finds its id here and changes nothing."""

    __tablename__ = "github_webhook_delivery"

    delivery_id: str = Field(primary_key=True, max_length=100)
    event: str = Field(max_length=50)
    action: str | None = Field(default=None, max_length=50)
    repo: str | None = Field(default=None, max_length=200)
    number: int | None = None
    outcome: str = Field(max_length=200)
    received_at: datetime = Field(default_factory=utcnow, sa_column=timestamp_column(index=True))
