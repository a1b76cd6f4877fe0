"""The status page as a plain document: what the importer reads and the exporter writes.

Pure dataclasses, no database. Cell texts keep the author's wording with `<br>` turned into newlines, so a
page can be written back cell for cell; the structured fields (entries, statuses, refs, rules) are read
from those texts. Line numbers are left out of equality: an import of the export equals the original.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from app.status_pages.status_mapping import HealthLevel, Status

# The roles a status table column can play; any other column is kept under its own header.
COMPONENT, BACKENDS, FASTEST, INVOCATION, NOTES, REFS, EXTRA = (
    "component",
    "backends",
    "fastest",
    "invocation",
    "notes",
    "refs",
    "extra",
)


class MarkdownImportError(ValueError):
    """The document cannot be imported; `line` is 1-based, 0 when the whole document is at fault."""

    def __init__(self, reason: str, *, line: int = 0):
        super().__init__(f"line {line}: {reason}" if line else reason)
        self.reason = reason
        self.line = line


@dataclass
class ImportWarning:
    line: int
    message: str


@dataclass
class RefText:
    """A PR/issue reference as written: `[#25696](https://…/pull/25696) Fix w8a8 block fp8 linear`."""

    repo: str
    number: int
    kind: str
    title: str | None
    # The whole line as written in a "Related PRs" cell (exported verbatim); None for inline mentions.
    text_as_written: str | None
    position: int
    line: int = field(default=0, compare=False)


@dataclass
class SourceRef:
    """A source file, optionally with lines or a symbol: `vllm/platforms/cuda.py:269-291`."""

    path: str
    line_start: int | None = None
    line_end: int | None = None
    symbol: str | None = None


@dataclass
class Entry:
    name: str
    group: str | None
    status: Status
    is_default: bool = False
    is_fastest: bool = False
    is_fallback: bool = False
    invocation: str = ""
    notes: str = ""
    # The label as the backends cell wrote it ("CUTLASS MLA(default)"); written back unless edited.
    label_as_written: str = ""
    # False for a backend named only in the invocation/notes columns (e.g. one that fails), not in the list.
    listed: bool = True
    refs: list[RefText] = field(default_factory=list)
    # What the label stood for when it was read; an entry edited since is written with canonical qualifiers.
    imported_status: Status | None = field(default=None, compare=False)
    imported_default: bool | None = field(default=None, compare=False)

    @property
    def key(self) -> tuple[str, str]:
        return (self.group or "", self.name)


@dataclass
class Row:
    component: str
    fastest_text: str = ""
    invocation: str = ""
    notes: str = ""
    extra_cells: dict[str, str] = field(default_factory=dict)
    entries: list[Entry] = field(default_factory=list)
    # Refs of the "Related PRs" cell (text_as_written set) and those mentioned inside other cells.
    refs: list[RefText] = field(default_factory=list)
    source_refs: list[SourceRef] = field(default_factory=list)
    # Formatting kept for a faithful export: bold component name, plain lines of the refs cell.
    layout: dict = field(default_factory=dict)
    line: int = field(default=0, compare=False)


@dataclass
class Section:
    heading: str
    precision: str
    columns: list[str]
    roles: list[str]
    rows: list[Row] = field(default_factory=list)
    intro: str = ""
    outro: str = ""
    line: int = field(default=0, compare=False)


@dataclass
class RecipeBlock:
    kind: str  # heading, prose or code
    text: str
    level: int = 0
    language: str = ""


@dataclass
class Recipe:
    title: str
    body: str
    blocks: list[RecipeBlock] = field(default_factory=list)
    refs: list[RefText] = field(default_factory=list)
    position: int = 0


@dataclass
class Rule:
    """backend_a × backend_b → works/fails/untested, optionally only for one precision or hardware."""

    component_a: str
    backend_a: str
    component_b: str
    backend_b: str
    outcome: str
    precision: str | None = None
    hardware: str | None = None
    error_text: str = ""
    # "notes" when read from a table's prose (written back through that prose), "table" otherwise.
    origin: str = "table"
    issue: RefText | None = None

    @property
    def key(self) -> tuple[str, str, str, str, str, str]:
        return (
            self.component_a,
            self.backend_a,
            self.component_b,
            self.backend_b,
            self.precision or "",
            self.hardware or "",
        )


@dataclass
class Document:
    title: str
    engine: str
    model: str
    hardware: str
    serving_mode: str
    health_text: str
    health_level: HealthLevel
    # True when the health line states its level explicitly ("**Overall Health** (broken): …").
    health_level_explicit: bool = False
    preamble: str = ""
    sections: list[Section] = field(default_factory=list)
    recipes: list[Recipe] = field(default_factory=list)
    rules: list[Rule] = field(default_factory=list)
    page_refs: list[RefText] = field(default_factory=list)
    # Order of sections and recipes as they appear: ("section", i) / ("recipe", i) / ("rules", 0).
    order: list[tuple[str, int]] = field(default_factory=list)
    warnings: list[ImportWarning] = field(default_factory=list, compare=False)
