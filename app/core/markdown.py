"""Markdown from users rendered to HTML that is safe to embed: no script, no event handlers, no styles."""

from __future__ import annotations

import nh3
from markdown_it import MarkdownIt
from markupsafe import Markup

_markdown = MarkdownIt("commonmark", {"html": False, "linkify": False, "breaks": True}).enable("table")

_ALLOWED_TAGS = {
    "a", "p", "br", "strong", "em", "code", "pre", "ul", "ol", "li", "blockquote",
    "h1", "h2", "h3", "h4", "h5", "h6", "table", "thead", "tbody", "tr", "th", "td", "hr", "del",
}  # fmt: skip


def render_markdown(text: str | None) -> Markup:
    """Renders user Markdown to sanitised HTML; raw HTML in the source is shown as text, never run."""
    if not text:
        return Markup("")
    html = _markdown.render(text)
    clean = nh3.clean(
        html,
        tags=_ALLOWED_TAGS,
        attributes={"a": {"href", "title"}},
        url_schemes={"http", "https", "mailto"},
        link_rel="noopener noreferrer nofollow",
    )
    return Markup(clean)
