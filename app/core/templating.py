"""The one Jinja2 environment: page templates with named blocks that htmx requests can render alone."""

from __future__ import annotations

import hashlib
import secrets
from datetime import UTC, datetime
from functools import lru_cache

from fastapi import Request
from jinja2_fragments.fastapi import Jinja2Blocks

from app.core.markdown import render_markdown
from app.core.paths import STATIC_DIR, TEMPLATES_DIR

HTMX_FILE = "vendor/htmx-2.0.11.min.js"
# Subresource integrity of the pinned htmx build (npm htmx.org@2.0.11, dist/htmx.min.js).
HTMX_INTEGRITY = "sha384-2OatzQy1H+Zd/IIrjr1TcuDGqLXeHhbooAyJY1KdQMKnr4LZ22k31GBLdYKHmVjg"

NAVIGATION = [
    ("Status", "/"),
    ("GitHub", "/github"),
    ("Benchmarks", "/benchmarks"),
    ("Trends", "/trends"),
    ("Review", "/review"),
]

templates = Jinja2Blocks(directory=str(TEMPLATES_DIR))


def csrf_token(request: Request) -> str:
    """Returns this browser session's CSRF token, creating it on first use."""
    token = request.session.get("csrf_token")
    if not token:
        token = secrets.token_urlsafe(32)
        request.session["csrf_token"] = token
    return token


@lru_cache(maxsize=64)
def _asset_version(path: str) -> str:
    try:
        return hashlib.sha256((STATIC_DIR / path).read_bytes()).hexdigest()[:10]
    except OSError:
        return "0"


def static_url(path: str) -> str:
    """Returns the URL of a static asset with a content hash, so browsers never keep a stale copy."""
    return f"/static/{path}?v={_asset_version(path)}"


def humanize_age(moment: datetime | None, now: datetime | None = None) -> str:
    """Says how long ago `moment` was, in the largest whole unit ("3d", "5h", "just now")."""
    if moment is None:
        return "never"
    now = now or datetime.now(UTC)
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    seconds = int((now - moment).total_seconds())
    if seconds < 60:
        return "just now"
    for unit, size in (("y", 365 * 86400), ("mo", 30 * 86400), ("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size:
            return f"{seconds // size}{unit} ago"
    return "just now"


def format_time(moment: datetime | None) -> str:
    """Formats a timestamp in UTC for pages."""
    if moment is None:
        return ""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")


templates.env.globals.update(
    csrf_token=csrf_token,
    static_url=static_url,
    navigation=NAVIGATION,
    htmx_file=HTMX_FILE,
    htmx_integrity=HTMX_INTEGRITY,
)
templates.env.filters.update(markdown=render_markdown, age=humanize_age, utc=format_time)
