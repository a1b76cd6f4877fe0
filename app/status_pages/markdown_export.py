"""Writes a `Document` back to the team's Markdown, in the shape it was read from (pure)."""

from __future__ import annotations

from app.status_pages.document import (
    BACKENDS,
    COMPONENT,
    FASTEST,
    INVOCATION,
    NOTES,
    REFS,
    Document,
    Entry,
    Recipe,
    Row,
    Rule,
    Section,
)
from app.status_pages.status_mapping import health_level_from_text, render_label

RULE_COLUMNS = [
    "Component A",
    "Backend A",
    "Component B",
    "Backend B",
    "Precision",
    "Hardware",
    "Result",
    "Error",
    "Issue",
]
SECTION_SEPARATOR = "\n\n---\n\n"


def cell(text: str) -> str:
    """A cell's text as Markdown table source: newlines become `<br>`, bare pipes are escaped."""
    escaped = "".join(
        "\\|" if char == "|" and (index == 0 or text[index - 1] != "\\") else char
        for index, char in enumerate(text)
    )
    return escaped.replace("\n", "<br>")


def entry_label(entry: Entry) -> str:
    """The label as written, unless the entry was edited since: then its name with canonical qualifiers."""
    edited = entry.imported_status is not None and (
        entry.status != entry.imported_status or entry.is_default != entry.imported_default
    )
    if edited or not entry.label_as_written:
        return render_label(entry.name, entry.status, is_default=entry.is_default)
    return entry.label_as_written


def backends_cell(entries: list[Entry]) -> str:
    """Listed entries as `- name` items, under bold group labels separated by a blank line."""
    listed = [entry for entry in entries if entry.listed]
    # Ungrouped items first: after a group label, an item would be read back as part of that group.
    ordered = [entry for entry in listed if not entry.group] + [entry for entry in listed if entry.group]
    lines: list[str] = []
    group: str | None = None
    for entry in ordered:
        if entry.group and entry.group != group:
            if lines:
                lines.append("")
            lines.append(f"**{entry.group}**")
            group = entry.group
        lines.append(f"{'  - ' if entry.group else '- '}{entry_label(entry)}")
    return "\n".join(lines)


def refs_cell(row: Row) -> str:
    """The "Related PRs" lines as written, plain lines kept in their places."""
    items = [(ref.position, ref.text_as_written) for ref in row.refs if ref.text_as_written is not None]
    items += [(position, text) for position, text in row.layout.get("refs_plain_lines", [])]
    return "\n".join(text for _, text in sorted(items, key=lambda item: item[0]))


def _row_cells(section: Section, row: Row) -> list[str]:
    values = {
        COMPONENT: f"**{row.component}**" if row.layout.get("component_bold") else row.component,
        BACKENDS: backends_cell(row.entries),
        FASTEST: row.fastest_text,
        INVOCATION: row.invocation,
        NOTES: row.notes,
        REFS: refs_cell(row),
    }
    cells, used = [], set()
    for header, role in zip(section.columns, section.roles, strict=True):
        if role in values and role not in used:
            cells.append(values[role])
            used.add(role)
        else:
            cells.append(row.extra_cells.get(header, ""))
    return cells


def _table(headers: list[str], rows: list[list[str]]) -> str:
    lines = [
        "| " + " | ".join(headers) + " |",
        "|" + "|".join("-" * (len(header) + 2) for header in headers) + "|",
    ]
    lines += ["| " + " | ".join(cell(value) for value in values) + " |" for values in rows]
    return "\n".join(lines)


def _section(section: Section) -> str:
    parts = [f"## {section.heading}"]
    if section.intro:
        parts.append(section.intro)
    parts.append(_table(section.columns, [_row_cells(section, row) for row in section.rows]))
    if section.outro:
        parts.append(section.outro)
    return "\n\n".join(parts)


def _recipe(recipe: Recipe) -> str:
    return f"## {recipe.title}\n\n{recipe.body}" if recipe.body else f"## {recipe.title}"


def _rules(rules: list[Rule]) -> str:
    rows = [
        [
            rule.component_a,
            rule.backend_a,
            rule.component_b,
            rule.backend_b,
            rule.precision or "",
            rule.hardware or "",
            rule.outcome,
            rule.error_text,
            (rule.issue.text_as_written or f"{rule.issue.repo}#{rule.issue.number}") if rule.issue else "",
        ]
        for rule in rules
    ]
    return "## Compatibility\n\n" + _table(RULE_COLUMNS, rows)


def _health_line(document: Document) -> str:
    derived = health_level_from_text(document.health_text)
    if document.health_level_explicit or document.health_level != derived:
        return f"**Overall Health** ({document.health_level.value}): {document.health_text}"
    return f"**Overall Health**: {document.health_text}"


def export_markdown(document: Document) -> str:
    """The whole page as Markdown; importing it gives back an equal `Document`."""
    head = [document.title]
    if document.health_text or document.health_level_explicit:
        head.append(_health_line(document))
    if document.preamble:
        head.append(document.preamble)
    table_rules = [rule for rule in document.rules if rule.origin == "table"]
    order = list(dict.fromkeys(document.order))
    if table_rules and ("rules", 0) not in order:
        order.append(("rules", 0))
    blocks = []
    for kind, index in order:
        if kind == "section":
            blocks.append(_section(document.sections[index]))
        elif kind == "recipe":
            blocks.append(_recipe(document.recipes[index]))
        elif table_rules:
            blocks.append(_rules(table_rules))
    return "\n\n".join(head) + SECTION_SEPARATOR + SECTION_SEPARATOR.join(blocks) + "\n"
