"""What the page view shows: filters read from the URL, the filtered matrix, pivots, cell rendering."""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field
from urllib.parse import urlencode

from markupsafe import Markup

from app.core.markdown import render_markdown
from app.github_refs.models import GitHubRef, GitHubRefLink
from app.status_pages.models import BackendEntry, ComponentRow, PageSection
from app.status_pages.service import LoadedPage
from app.status_pages.status_mapping import ALLOWED_STATUSES, status_from_prose
from app.status_pages.text_refs import source_url

ALL_PRECISIONS = "all"
STATUS_LABELS = {
    "working": "working",
    "failing": "failing",
    "wip": "WIP",
    "in_review": "in review",
    "needs_evaluation": "needs evaluation",
    "unsupported": "unsupported",
    "deprecated": "deprecated",
}
_SOURCE_CODE = re.compile(
    r"<code>(?P<path>(?:[\w.-]+/)+[\w.-]+\.(?:py|cu|cuh|cpp|cc|c|h|hpp|md|yaml|yml|toml|json|sh))"
    r"(?::(?:(?P<start>\d+)(?:-(?P<end>\d+))?|(?P<symbol>[A-Za-z_]\w*)))?</code>"
)
_CODE = re.compile(r"<code>(?P<text>[^<]+)</code>")
_COMMAND = re.compile(r"^([A-Z][A-Z0-9_]*=\S*(\s|$)|vllm |python |--)")


@dataclass
class Filters:
    """The view's filters; the URL holds them, so a shared link reproduces the view."""

    precision: str | None = None
    components: list[str] = field(default_factory=list)
    backends: list[str] = field(default_factory=list)
    statuses: list[str] = field(default_factory=list)
    text: str = ""

    @classmethod
    def from_query(cls, params) -> Filters:
        """Reads `precision`, repeated `component`/`backend`/`status`, `q`; drops unknown statuses."""
        return cls(
            precision=(params.get("precision") or None),
            components=[value for value in params.getlist("component") if value],
            backends=[value for value in params.getlist("backend") if value],
            statuses=[value for value in params.getlist("status") if value in ALLOWED_STATUSES],
            text=(params.get("q") or "").strip(),
        )

    def query(self, **overrides) -> str:
        """The query string of these filters, with `overrides` (e.g. precision="FP4")."""
        values = {
            "precision": self.precision,
            "component": self.components,
            "backend": self.backends,
            "status": self.statuses,
            "q": self.text,
        }
        values.update(overrides)
        pairs = []
        for key, value in values.items():
            for item in value if isinstance(value, list) else [value]:
                if item:
                    pairs.append((key, item))
        return urlencode(pairs)

    @property
    def narrows_entries(self) -> bool:
        return bool(self.backends or self.statuses or self.text)


@dataclass
class RowView:
    row: ComponentRow
    entries: list[BackendEntry]
    refs: list[tuple[GitHubRef, GitHubRefLink]]
    extra_cells: list[str]


@dataclass
class SectionView:
    section: PageSection
    rows: list[RowView]
    extra_columns: list[str]


def _row_text(row: ComponentRow) -> str:
    return " ".join(
        [row.component, row.fastest_text, row.invocation, row.notes, *row.extra_cells.values()]
    ).lower()


def _entry_matches(entry: BackendEntry, filters: Filters, row_text: str) -> bool:
    if filters.statuses and entry.status not in filters.statuses:
        return False
    if filters.backends and entry.name not in filters.backends:
        return False
    if filters.text:
        needle = filters.text.lower()
        entry_text = " ".join([entry.name, entry.group_label, entry.notes, entry.invocation]).lower()
        return needle in entry_text or needle in row_text
    return True


def chosen_precision(loaded: LoadedPage, filters: Filters) -> str | None:
    """The tab to show: the one asked for, "all", or the first precision."""
    precisions = [section.precision for section in loaded.sections]
    if filters.precision == ALL_PRECISIONS:
        return ALL_PRECISIONS
    if filters.precision in precisions:
        return filters.precision
    return precisions[0] if precisions else None


def build_matrix(loaded: LoadedPage, filters: Filters) -> list[SectionView]:
    """The sections of the chosen tab with only the rows and entries the filters keep."""
    precision = chosen_precision(loaded, filters)
    views = []
    for section in loaded.sections:
        if precision != ALL_PRECISIONS and section.precision != precision:
            continue
        extra_columns = [header for header, role in zip(section.columns, section.roles, strict=False)
                         if role == "extra"]  # fmt: skip
        rows = []
        for row in loaded.rows.get(section.id, []):
            if filters.components and row.component not in filters.components:
                continue
            row_text = _row_text(row)
            entries = [e for e in loaded.entries.get(row.id, []) if _entry_matches(e, filters, row_text)]
            if filters.narrows_entries and not entries:
                continue
            refs = [pair for pair in loaded.row_refs.get(row.id, []) if pair[1].text_as_written is not None]
            extras = [row.extra_cells.get(header, "") for header in extra_columns]
            rows.append(RowView(row, entries, refs, extras))
        views.append(SectionView(section, rows, extra_columns))
    return views


def filter_options(loaded: LoadedPage) -> dict[str, list[str]]:
    """The components and backends the filter form offers, in page order."""
    components = [row.component for rows in loaded.rows.values() for row in rows]
    backends = [entry.name for entries in loaded.entries.values() for entry in entries]
    return {"components": list(dict.fromkeys(components)), "backends": sorted(set(backends), key=str.lower)}


def pivot(loaded: LoadedPage, precision: str | None) -> tuple[list[str], list[str], dict]:
    """Components × backends of one precision (or all): the cell holds the entries found there."""
    components: list[str] = []
    backends: list[str] = []
    cells: dict[tuple[str, str], list[BackendEntry]] = {}
    for section in loaded.sections:
        if precision not in (None, ALL_PRECISIONS) and section.precision != precision:
            continue
        for row in loaded.rows.get(section.id, []):
            components.append(row.component)
            for entry in loaded.entries.get(row.id, []):
                backends.append(entry.name)
                cells.setdefault((row.component, entry.name), []).append(entry)
    return list(dict.fromkeys(components)), list(dict.fromkeys(backends)), cells


def render_cell(text: str | None, *, repo: str = "vllm-project/vllm", copy_buttons: bool = False) -> Markup:
    """Cell Markdown rendered safely, source paths linked to GitHub, commands given a copy button."""
    rendered = str(render_markdown(text))

    def link_source(match: re.Match) -> str:
        data = {"path": match["path"], "line_start": match["start"], "line_end": match["end"]}
        url = html.escape(source_url(data, repo=repo), quote=True)
        return f'<a class="source" href="{url}" target="_blank" rel="noopener">{match.group(0)}</a>'

    rendered = _SOURCE_CODE.sub(link_source, rendered)
    if copy_buttons:

        def add_copy(match: re.Match) -> str:
            if not _COMMAND.match(html.unescape(match["text"])):
                return match.group(0)
            value = html.escape(html.unescape(match["text"]), quote=True)
            return f'{match.group(0)}<button type="button" class="copy" data-copy="{value}">copy</button>'

        rendered = _CODE.sub(add_copy, rendered)
    return Markup(rendered)


_LEADING_LINK = re.compile(r"^\s*\[[^\]]*\]\([^)]*\)\s*")


def link_title(link: GitHubRefLink) -> str:
    """The title the source wrote after a PR link ("[#25696](…) Fix w8a8 block fp8 linear" → the words)."""
    return _LEADING_LINK.sub("", link.text_as_written or "").strip()


def copyable_command(invocation: str) -> str:
    """The commands and env settings of an entry's invocation, joined, for its copy button."""
    found = []
    for line in invocation.split("\n"):
        # Not what turns the backend on: switches that disable or debug, and settings said to fail.
        if line.strip().lower().startswith(("disable", "debug")) or status_from_prose(line):
            continue
        found += [code for code in re.findall(r"`([^`]+)`", line) if _COMMAND.match(code)]
    return " ".join(dict.fromkeys(found))
