"""The one module that talks to GitHub, through PyGithub; it hands plain data to the rest of the app.

PyGithub's object API (`repo.get_pull(n)`) always sends an unconditional GET, and its `update()` needs a
fully loaded object first, so the client issues its requests through PyGithub's own `Requester`
(`Github.requester.requestJson`) with `If-None-Match` set from the ETag stored on each ref. A 304 answer
costs nothing against GitHub's rate limit. Retries, backoff and rate-limit waits are PyGithub's
`GithubRetry` (a urllib3 `Retry`), extended here to retry 429 and to take an injectable sleep function so
the tests stay fast.
"""

from __future__ import annotations

import json
import math
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any
from urllib.parse import quote

import requests
from github import Auth, Github, GithubException, GithubRetry
from github.GithubException import RateLimitExceededExceedsMaxWait, RateLimitExceededException

from app.github_refs.snapshots import RefSnapshot, snapshot_from_issue, snapshot_from_pull

LISTING_PAGE_SIZE = 100
_NEXT_LINK = re.compile(r'<([^>]+)>;\s*rel="next"')
_CAUSE = re.compile(r"Caused by \w+\(['\"](?:[^'\"]*?: )?([^'\"]+)['\"]")


class GitHubError(Exception):
    """GitHub could not answer; the message says why in words a user can act on."""


class RefNotFoundOnGitHub(GitHubError):
    """GitHub answered 404 (or 410 for a deleted issue)."""


class GitHubUnavailable(GitHubError):
    """5xx answers or timeouts persisted after the retries."""


class RateLimited(GitHubError):
    """The rate limit is spent and the wait until its reset is longer than allowed."""

    def __init__(self, message: str, *, reset_at: datetime | None = None):
        super().__init__(message)
        self.reset_at = reset_at


@dataclass
class RequestStats:
    """What a sync cost: HTTP requests sent (retries included) and how many were answered 304."""

    requests: int = 0
    not_modified: int = 0
    retries: int = 0

    @property
    def counted_against_rate_limit(self) -> int:
        return self.requests - self.not_modified


@dataclass(frozen=True)
class Fetched:
    """One conditional GET: a snapshot, or `not_modified` when the stored ETag still matches."""

    snapshot: RefSnapshot | None
    etag: str | None
    last_modified: str | None
    not_modified: bool


@dataclass(frozen=True)
class Listing:
    """Issues and PRs of one repository updated since a moment (all pages), or `not_modified`."""

    snapshots: list[RefSnapshot] = field(default_factory=list)
    etag: str | None = None
    not_modified: bool = False


class SyncRetry(GithubRetry):
    """GithubRetry that also retries 429, sleeps through an injectable function and counts retries."""

    def __init__(
        self,
        *,
        sleep: Callable[[float], None] | None = None,
        stats: RequestStats | None = None,
        **kwargs: Any,
    ):
        self.sleep_function = sleep
        self.stats = stats
        super().__init__(**kwargs)

    def new(self, **kw: Any) -> SyncRetry:
        kw.update(sleep=self.sleep_function, stats=self.stats)
        return super().new(**kw)

    def increment(self, *args: Any, **kwargs: Any) -> SyncRetry:
        retry = super().increment(*args, **kwargs)
        if self.stats is not None:
            self.stats.retries += 1
            self.stats.requests += 1
        return retry

    def sleep(self, response: Any = None) -> None:
        wait = self.get_retry_after(response) if response is not None else None
        if wait is None:
            wait = self.get_backoff_time()
        if self.max_rate_limit_wait is not None and wait > self.max_rate_limit_wait:
            # GithubRetry caps waits derived from X-RateLimit-Reset; cap Retry-After waits the same way.
            if self.stats is not None:  # the retry counted in increment() will not be sent
                self.stats.retries -= 1
                self.stats.requests -= 1
            raise RateLimitExceededExceedsMaxWait(
                response.status if response is not None else 429, None, dict(response.headers), wait=wait
            )
        if wait > 0:
            (self.sleep_function or time.sleep)(wait)


class GitHubClient:
    """Reads PRs and issues with conditional requests; every answer is plain data."""

    def __init__(
        self,
        *,
        base_url: str,
        token: str | None,
        timeout_seconds: float,
        max_rate_limit_wait_seconds: float,
        retries: int = 3,
        backoff_factor: float = 1.0,
        seconds_between_requests: float | None = 0.25,
        sleep: Callable[[float], None] | None = None,
    ):
        self.stats = RequestStats()
        retry = SyncRetry(
            sleep=sleep,
            stats=self.stats,
            total=retries,
            backoff_factor=backoff_factor,
            status_forcelist=[*range(500, 600), 429],
            max_rate_limit_wait=max_rate_limit_wait_seconds,
            secondary_rate_wait=min(60.0, max_rate_limit_wait_seconds),
        )
        self._github = Github(
            base_url=base_url.rstrip("/"),
            auth=Auth.Token(token) if token else None,
            # PyGithub accepts whole seconds only.
            timeout=max(1, math.ceil(timeout_seconds)),
            retry=retry,
            seconds_between_requests=seconds_between_requests,
            seconds_between_writes=None,
        )

    @classmethod
    def from_settings(cls, settings: Any, **overrides: Any) -> GitHubClient:
        """Builds a client from GITHUB_API_URL, GITHUB_TOKEN and the timeout/rate-limit settings."""
        options: dict[str, Any] = {
            "base_url": settings.github_api_url,
            "token": settings.github_token,
            "timeout_seconds": settings.github_timeout_seconds,
            "max_rate_limit_wait_seconds": settings.github_max_rate_limit_wait_seconds,
        }
        options.update(overrides)
        return cls(**options)

    def close(self) -> None:
        self._github.close()

    def fetch_pull(self, repo: str, number: int, *, etag: str | None = None) -> Fetched:
        """GETs `/repos/{repo}/pulls/{number}`, conditionally when `etag` is known."""
        status, headers, body = self._get(f"/repos/{repo}/pulls/{number}", etag=etag)
        return self._fetched(
            status, headers, body, lambda data: snapshot_from_pull(data, repo=repo), repo, number
        )

    def fetch_issue(self, repo: str, number: int, *, etag: str | None = None) -> Fetched:
        """GETs `/repos/{repo}/issues/{number}` (PRs too: they answer with a `pull_request` key)."""
        status, headers, body = self._get(f"/repos/{repo}/issues/{number}", etag=etag)
        return self._fetched(
            status, headers, body, lambda data: snapshot_from_issue(data, repo=repo), repo, number
        )

    def list_updated_since(self, repo: str, since: datetime, *, etag: str | None = None) -> Listing:
        """Lists issues and PRs of `repo` updated at or after `since`, oldest change first, every page.

        The first page is conditional: when nothing in the repository changed, GitHub answers 304 and the
        whole listing costs one request that does not count against the rate limit.
        """
        since_text = since.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        url = (
            f"/repos/{repo}/issues?state=all&sort=updated&direction=asc"
            f"&since={quote(since_text)}&per_page={LISTING_PAGE_SIZE}"
        )
        status, headers, body = self._get(url, etag=etag)
        if status == 304:
            return Listing(etag=etag, not_modified=True)
        self._raise_for(status, headers, body, what=f"the issues of {repo}")
        first_etag = headers.get("etag")
        snapshots = [snapshot_from_issue(item, repo=repo) for item in json.loads(body)]
        while match := _NEXT_LINK.search(headers.get("link", "")):
            status, headers, body = self._get(match.group(1))
            self._raise_for(status, headers, body, what=f"the issues of {repo}")
            snapshots.extend(snapshot_from_issue(item, repo=repo) for item in json.loads(body))
        return Listing(snapshots=snapshots, etag=first_etag)

    def _get(self, url: str, *, etag: str | None = None) -> tuple[int, dict[str, Any], str]:
        headers = {"Accept": "application/vnd.github+json"}
        if etag:
            headers["If-None-Match"] = etag
        self.stats.requests += 1
        try:
            status, response_headers, body = self._github.requester.requestJson("GET", url, headers=headers)
        except RateLimitExceededExceedsMaxWait as exc:
            reset_at = _reset_time(exc.headers)
            when = f" (it resets at {reset_at:%H:%M:%S} UTC)" if reset_at else ""
            raise RateLimited(
                f"GitHub's rate limit is spent; waiting {exc.wait or 0:.0f}s{when} is longer than "
                "GITHUB_MAX_RATE_LIMIT_WAIT_SECONDS allows",
                reset_at=reset_at,
            ) from None
        except RateLimitExceededException as exc:
            raise RateLimited(
                f"GitHub's rate limit is spent: {exc}", reset_at=_reset_time(exc.headers)
            ) from None
        except GithubException as exc:
            error = GitHubUnavailable if (exc.status or 0) >= 500 else GitHubError
            raise error(f"GitHub answered {exc.status}: {_message(exc.data)}") from None
        except requests.exceptions.RetryError as exc:
            raise GitHubUnavailable(f"GitHub kept failing after retries: {_reason(exc)}") from None
        except requests.RequestException as exc:
            raise GitHubUnavailable(
                f"GitHub did not answer in time or the connection failed: {_reason(exc)}"
            ) from None
        if status == 304:
            self.stats.not_modified += 1
        return status, response_headers, body

    def _fetched(
        self,
        status: int,
        headers: dict[str, Any],
        body: str,
        read: Callable[[dict[str, Any]], RefSnapshot],
        repo: str,
        number: int,
    ) -> Fetched:
        if status == 304:
            return Fetched(None, headers.get("etag"), headers.get("last-modified"), not_modified=True)
        self._raise_for(status, headers, body, what=f"{repo}#{number}")
        return Fetched(read(json.loads(body)), headers.get("etag"), headers.get("last-modified"), False)

    @staticmethod
    def _raise_for(status: int, headers: dict[str, Any], body: str, *, what: str) -> None:
        if status < 400:
            return
        message = _message(_json_or_text(body))
        if status in (404, 410):
            raise RefNotFoundOnGitHub(f"{what} was not found on GitHub ({status}: {message})")
        if status in (403, 429) and (
            headers.get("x-ratelimit-remaining") == "0" or "rate limit" in message.lower()
        ):
            raise RateLimited(f"GitHub's rate limit is spent: {message}", reset_at=_reset_time(headers))
        if status >= 500:
            raise GitHubUnavailable(f"GitHub answered {status} for {what}: {message}")
        raise GitHubError(f"GitHub answered {status} for {what}: {message}")


def _json_or_text(body: str) -> Any:
    try:
        return json.loads(body) if body else None
    except ValueError:
        return body


def _message(data: Any) -> str:
    if isinstance(data, dict):
        return str(data.get("message") or data)
    return str(data or "no details")[:200]


def _reason(exc: BaseException) -> str:
    """The cause urllib3 buries in its MaxRetryError text, e.g. "too many 502 error responses"."""
    text = str(exc)
    if match := _CAUSE.search(text):
        return match.group(1)[:200]
    if "timed out" in text.lower():
        return "read timed out"
    return (text.strip().splitlines() or [type(exc).__name__])[0][:200]


def _reset_time(headers: Any) -> datetime | None:
    if not headers:
        return None
    lowered = {str(key).lower(): value for key, value in dict(headers).items()}
    value = lowered.get("x-ratelimit-reset")
    if value and str(value).isdigit():
        return datetime.fromtimestamp(int(value), UTC)
    return None
