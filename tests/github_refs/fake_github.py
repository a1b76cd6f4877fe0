"""A fake GitHub REST API on loopback for PyGithub to talk to: real HTTP, GitHub's shapes, counted requests.

It answers `GET /repos/{o}/{r}/pulls/{n}`, `/issues/{n}`, `/issues?since=…` (paginated with `Link`),
`/search/issues` and `/rate_limit`, with content ETags and 304s for `If-None-Match`. Faults are scripted
per path: 502s, 403 primary rate limits with `X-RateLimit-Reset`, 429s with `Retry-After`, slow answers
and 404s. Used by the tests and by `benchmarks/github_sync.py`.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

_PULL = re.compile(r"^/repos/([^/]+/[^/]+)/pulls/(\d+)$")
_ISSUE = re.compile(r"^/repos/([^/]+/[^/]+)/issues/(\d+)$")
_ISSUES = re.compile(r"^/repos/([^/]+/[^/]+)/issues$")


def iso(moment: datetime | None) -> str | None:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ") if moment else None


@dataclass
class FakeItem:
    repo: str
    number: int
    is_pull: bool
    title: str
    created_at: datetime
    updated_at: datetime
    state: str = "open"
    draft: bool = False
    merged_at: datetime | None = None
    closed_at: datetime | None = None
    labels: list[str] = field(default_factory=list)
    author: str = "octocat"
    requested_reviewers: list[str] = field(default_factory=list)


@dataclass
class Fault:
    pattern: re.Pattern[str]
    status: int
    remaining: int
    headers: dict[str, str]
    body: dict[str, Any] | None
    delay: float


@dataclass(frozen=True)
class RecordedRequest:
    method: str
    path: str
    query: dict[str, list[str]]
    status: int
    if_none_match: str | None
    authorization: str | None


class FakeGitHub:
    """State of a few repositories plus scripted faults; `requests` records every request answered."""

    def __init__(self) -> None:
        self.items: dict[tuple[str, int], FakeItem] = {}
        self.requests: list[RecordedRequest] = []
        self.faults: list[Fault] = []
        # GitHub's clock is the real one: the sync compares its own clock with GitHub's `updated_at`.
        self.now = datetime.now(UTC).replace(microsecond=0)
        self.rate_remaining = 5000
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None

    # -- lifecycle
    def start(self) -> FakeGitHub:
        fake = self

        class Handler(_Handler):
            github = fake

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        ).start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()

    @property
    def url(self) -> str:
        assert self._server is not None
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    # -- state
    def tick(self) -> datetime:
        """A fresh moment for a change: now, and always later than the previous change."""
        self.now = max(self.now + timedelta(seconds=1), datetime.now(UTC).replace(microsecond=0))
        return self.now

    def add(self, repo: str, number: int, *, pull: bool = True, **fields: Any) -> FakeItem:
        fields.setdefault("title", f"{'PR' if pull else 'Issue'} {number}")
        fields.setdefault("created_at", self.now - timedelta(days=3))
        fields.setdefault("updated_at", self.now - timedelta(days=1))
        item = FakeItem(repo=repo, number=number, is_pull=pull, **fields)
        with self._lock:
            self.items[(repo, number)] = item
        return item

    def change(self, repo: str, number: int, **fields: Any) -> FakeItem:
        """Changes an item as GitHub would: `updated_at` moves to a fresh moment."""
        with self._lock:
            item = self.items[(repo, number)]
            for name, value in fields.items():
                setattr(item, name, value)
            item.updated_at = self.tick()
            if fields.get("state") == "closed" and item.closed_at is None:
                item.closed_at = item.updated_at
            if fields.get("state") == "open":
                item.closed_at = None
        return item

    def merge(self, repo: str, number: int) -> FakeItem:
        moment = self.tick()
        return self.change(repo, number, state="closed", merged_at=moment, closed_at=moment)

    def fail(
        self,
        path_pattern: str,
        *,
        status: int = 502,
        times: int = 1,
        headers: dict[str, str] | None = None,
        body: dict[str, Any] | None = None,
        delay: float = 0.0,
    ) -> None:
        """Answers the next `times` requests whose path matches with `status` (after `delay` seconds)."""
        self.faults.append(Fault(re.compile(path_pattern), status, times, headers or {}, body, delay))

    def rate_limit_primary(self, path_pattern: str, *, reset_in: int, times: int = 1) -> None:
        reset = int(time.time()) + reset_in
        self.fail(
            path_pattern,
            status=403,
            times=times,
            headers={"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": str(reset)},
            body={"message": "API rate limit exceeded for 127.0.0.1.", "documentation_url": "https://docs"},
        )

    def rate_limit_retry_after(self, path_pattern: str, *, seconds: int, times: int = 1) -> None:
        self.fail(
            path_pattern,
            status=429,
            times=times,
            headers={"Retry-After": str(seconds)},
            body={"message": "You have exceeded a secondary rate limit."},
        )

    def count(self, *, path_contains: str = "") -> int:
        return sum(1 for request in self.requests if path_contains in request.path)

    def not_modified_count(self) -> int:
        return sum(1 for request in self.requests if request.status == 304)

    def reset_counts(self) -> None:
        with self._lock:
            self.requests.clear()

    # -- GitHub's shapes
    def pull_json(self, item: FakeItem) -> dict[str, Any]:
        api = f"{self.url}/repos/{item.repo}"
        return {
            "url": f"{api}/pulls/{item.number}",
            "id": hash((item.repo, item.number)) & 0xFFFFFFF,
            "number": item.number,
            "html_url": f"https://github.com/{item.repo}/pull/{item.number}",
            "state": item.state,
            "title": item.title,
            "user": {"login": item.author, "id": 1, "type": "User"},
            "labels": [{"name": name} for name in item.labels],
            "draft": item.draft,
            "merged": item.merged_at is not None,
            "merged_at": iso(item.merged_at),
            "created_at": iso(item.created_at),
            "updated_at": iso(item.updated_at),
            "closed_at": iso(item.closed_at),
            "requested_reviewers": [{"login": name} for name in item.requested_reviewers],
            "requested_teams": [],
            "base": {"ref": "main", "repo": {"full_name": item.repo}},
            "head": {"ref": f"feature-{item.number}", "repo": {"full_name": item.repo}},
        }

    def issue_json(self, item: FakeItem) -> dict[str, Any]:
        api = f"{self.url}/repos/{item.repo}"
        path = "pull" if item.is_pull else "issues"
        data: dict[str, Any] = {
            "url": f"{api}/issues/{item.number}",
            "repository_url": api,
            "id": hash((item.repo, item.number)) & 0xFFFFFFF,
            "number": item.number,
            "html_url": f"https://github.com/{item.repo}/{path}/{item.number}",
            "state": item.state,
            "state_reason": "completed" if item.state == "closed" else None,
            "title": item.title,
            "user": {"login": item.author, "id": 1, "type": "User"},
            "labels": [{"name": name} for name in item.labels],
            "created_at": iso(item.created_at),
            "updated_at": iso(item.updated_at),
            "closed_at": iso(item.closed_at),
        }
        if item.is_pull:
            data["draft"] = item.draft
            data["pull_request"] = {
                "url": f"{api}/pulls/{item.number}",
                "html_url": data["html_url"],
                "merged_at": iso(item.merged_at),
            }
        return data

    def answer(self, path: str, query: dict[str, list[str]]) -> tuple[int, Any, dict[str, str]]:
        """Returns (status, JSON body, extra headers) for a GET."""
        with self._lock:
            if match := _PULL.match(path):
                item = self.items.get((match[1], int(match[2])))
                if item is None or not item.is_pull:
                    return 404, _not_found(), {}
                return 200, self.pull_json(item), {}
            if match := _ISSUE.match(path):
                item = self.items.get((match[1], int(match[2])))
                if item is None:
                    return 404, _not_found(), {}
                return 200, self.issue_json(item), {}
            if match := _ISSUES.match(path):
                return self._listing(match[1], path, query)
            if path == "/search/issues":
                return self._search(query)
            if path == "/rate_limit":
                core = {
                    "limit": 5000,
                    "remaining": self.rate_remaining,
                    "reset": int(time.time()) + 3600,
                    "used": 0,
                }
                return 200, {"resources": {"core": core, "search": dict(core, limit=30)}, "rate": core}, {}
        return 404, _not_found(), {}

    def _listing(self, repo: str, path: str, query: dict[str, list[str]]) -> tuple[int, Any, dict[str, str]]:
        since = _parse(query.get("since", [None])[0])
        state = query.get("state", ["open"])[0]
        items = [
            item
            for (item_repo, _), item in self.items.items()
            if item_repo == repo
            and (since is None or item.updated_at >= since)
            and (state == "all" or item.state == state)
        ]
        items.sort(
            key=lambda item: (item.updated_at, item.number),
            reverse=query.get("direction", ["desc"])[0] == "desc",
        )
        return self._paginate(path, query, [self.issue_json(item) for item in items])

    def _search(self, query: dict[str, list[str]]) -> tuple[int, Any, dict[str, str]]:
        terms = query.get("q", [""])[0].split()
        items = list(self.items.values())
        for term in terms:
            key, _, value = term.partition(":")
            if key == "repo":
                items = [item for item in items if item.repo == value]
            elif key == "is" and value in ("pr", "issue"):
                items = [item for item in items if item.is_pull == (value == "pr")]
            elif key == "is" and value in ("open", "closed"):
                items = [item for item in items if item.state == value]
            elif key == "updated" and value.startswith(">="):
                moment = _parse(value[2:])
                items = [item for item in items if moment is None or item.updated_at >= moment]
        items.sort(key=lambda item: item.updated_at, reverse=True)
        status, page, headers = self._paginate(
            "/search/issues", query, [self.issue_json(item) for item in items]
        )
        return status, {"total_count": len(items), "incomplete_results": False, "items": page}, headers

    def _paginate(
        self, path: str, query: dict[str, list[str]], rows: list[Any]
    ) -> tuple[int, Any, dict[str, str]]:
        per_page = int(query.get("per_page", ["30"])[0])
        page = int(query.get("page", ["1"])[0])
        chunk = rows[(page - 1) * per_page : page * per_page]
        headers = {}
        if page * per_page < len(rows):
            next_query = {key: values[0] for key, values in query.items()}
            next_query["page"] = str(page + 1)
            headers["Link"] = f'<{self.url}{path}?{urlencode(next_query)}>; rel="next"'
        return 200, chunk, headers

    def take_fault(self, path: str) -> Fault | None:
        with self._lock:
            for fault in self.faults:
                if fault.remaining > 0 and fault.pattern.search(path):
                    fault.remaining -= 1
                    return fault
        return None


def _not_found() -> dict[str, str]:
    return {"message": "Not Found", "documentation_url": "https://docs.github.com/rest"}


def _parse(value: str | None) -> datetime | None:
    if not value:
        return None
    return datetime.fromisoformat(value.replace("Z", "+00:00"))


class _Handler(BaseHTTPRequestHandler):
    github: FakeGitHub
    protocol_version = "HTTP/1.1"
    # Headers and body go out in separate writes; without this, Nagle + delayed ACK add 40 ms a request.
    disable_nagle_algorithm = True

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
        """Quiet: the tests read `FakeGitHub.requests` instead."""

    def do_GET(self) -> None:  # noqa: N802 - http.server's naming
        parts = urlsplit(self.path)
        query = parse_qs(parts.query)
        fake = self.github
        fault = fake.take_fault(parts.path)
        extra: dict[str, str] = {}
        if fault is not None:
            if fault.delay:
                time.sleep(fault.delay)
            status, body, extra = fault.status, fault.body or {"message": "Server Error"}, dict(fault.headers)
        else:
            status, body, extra = fake.answer(parts.path, query)
        payload = json.dumps(body).encode()
        etag = f'W/"{hashlib.sha1(payload).hexdigest()}"'
        if status == 200 and self.headers.get("If-None-Match") == etag:
            status, payload = 304, b""
        elif status != 304 and status < 400:
            fake.rate_remaining = max(0, fake.rate_remaining - 1)
        with fake._lock:
            fake.requests.append(
                RecordedRequest(
                    "GET",
                    parts.path,
                    query,
                    status,
                    self.headers.get("If-None-Match"),
                    self.headers.get("Authorization"),
                )
            )
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json; charset=utf-8")
            self.send_header("Content-Length", str(len(payload)))
            if status in (200, 304):
                self.send_header("ETag", etag)
            self.send_header("X-RateLimit-Limit", "5000")
            extra.setdefault("X-RateLimit-Remaining", str(fake.rate_remaining))
            extra.setdefault("X-RateLimit-Reset", str(int(time.time()) + 3600))
            for name, value in extra.items():
                self.send_header(name, value)
            self.end_headers()
            if payload:
                self.wfile.write(payload)
        except (BrokenPipeError, ConnectionResetError):
            # The client gave up (a timeout test); nothing to answer.
            pass
