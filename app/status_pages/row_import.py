"""Reading one status table row: backends with their groups and statuses, invocations, notes, refs."""

from __future__ import annotations

import re
from dataclasses import replace

from app.status_pages.attribution import (
    entry_named_at_start,
    labelled_lines,
    match_entry,
    split_labelled_blocks,
    squash,
)
from app.status_pages.document import (
    BACKENDS,
    COMPONENT,
    FASTEST,
    INVOCATION,
    NOTES,
    REFS,
    Entry,
    MarkdownImportError,
    Row,
)
from app.status_pages.status_mapping import Status, split_label, status_from_prefix, status_from_prose
from app.status_pages.text_refs import RefContext, find_refs, find_source_refs, read_refs_cell

_GROUP = re.compile(r"^\*\*(?P<label>[^*]+)\*\*$")
_BULLET = re.compile(r"^[-*+]\s+(?P<label>.+)$")
_BOLD = re.compile(r"^\*\*(?P<name>.+)\*\*$")
_DEFAULT_IN_TEXT = re.compile(r"\(default\b|^default\b", re.I)
_FALLBACK_IN_TEXT = re.compile(r"\bfallback\b", re.I)
_PARENTHETICAL = re.compile(r"\([^()]*\)")
# Rows refer to inline refs past the "Related PRs" lines so that export can tell them apart.
INLINE_REF_POSITION = 1000


def read_entries(text: str, *, line: int) -> list[Entry]:
    """Reads the "Available Backends" cell: bold group labels, then `-` items, each maybe qualified."""
    entries: list[Entry] = []
    group: str | None = None
    for cell_line in text.split("\n"):
        stripped = cell_line.strip()
        if not stripped:
            continue
        if match := _GROUP.match(stripped):
            group = match["label"].strip()
            continue
        label = match["label"].strip() if (match := _BULLET.match(stripped)) else stripped
        parsed = split_label(label)
        if not parsed.name:
            raise MarkdownImportError(f"backend item {stripped!r} has no name", line=line)
        entry = Entry(
            name=parsed.name,
            group=group,
            status=parsed.qualifiers.status or Status.working,
            is_default=parsed.qualifiers.is_default,
            is_fallback=parsed.qualifiers.is_fallback,
            label_as_written=label,
        )
        if any(existing.key == entry.key for existing in entries):
            group_text = f" in group {group!r}" if group else ""
            raise MarkdownImportError(f"backend {parsed.name!r} is listed twice{group_text}", line=line)
        entries.append(entry)
    return entries


def _append(existing: str, addition: str) -> str:
    return f"{existing}\n{addition}" if existing else addition


def _explicit_status(entry: Entry) -> bool:
    return split_label(entry.label_as_written).qualifiers.status is not None


def _attribute_invocations(row: Row, notes_labels: set[str]) -> None:
    def is_plain_label(label: str) -> bool:
        return match_entry(label, row.entries) is not None or squash(split_label(label).name) in notes_labels

    for block in split_labelled_blocks(row.invocation, is_plain_label=is_plain_label):
        if block.label is None:
            continue
        entry = match_entry(block.label, row.entries)
        if entry is None:
            continue
        entry.invocation = _append(entry.invocation, block.text.strip())
        qualifiers = split_label(f"{block.label} {block.qualifier}".strip()).qualifiers
        first_line = block.text.split("\n", 1)[0]
        if qualifiers.is_default or _DEFAULT_IN_TEXT.search(first_line.strip()):
            entry.is_default = True
        if qualifiers.is_fallback or _FALLBACK_IN_TEXT.search(first_line):
            entry.is_fallback = True
        if qualifiers.status and not _explicit_status(entry):
            entry.status = qualifiers.status


def _unlisted_entries(row: Row) -> list[Entry]:
    """Backends the notes say fail and the invocation column names, though the list leaves them out."""
    invocation_labels = {
        squash(split_label(block.label).name)
        for block in split_labelled_blocks(row.invocation, is_plain_label=lambda _label: True)
        if block.label
    }
    found: list[Entry] = []
    for label, rest in labelled_lines(row.notes):
        name = split_label(label).name
        status = status_from_prose(rest)
        if status is None or squash(name) not in invocation_labels:
            continue
        if match_entry(label, row.entries) is not None or any(e.name == name for e in found):
            continue
        found.append(Entry(name=name, group=None, status=status, label_as_written=name, listed=False))
    return found


def _attribute_notes(row: Row) -> None:
    for note_line in row.notes.split("\n"):
        stripped = note_line.strip().removeprefix("- ").strip()
        if not stripped:
            continue
        labelled = labelled_lines(stripped)
        entry = match_entry(labelled[0][0], row.entries) if labelled else None
        text = labelled[0][1] if entry is not None else stripped
        if entry is None:
            entry = entry_named_at_start(stripped, row.entries)
        if entry is not None:
            entry.notes = _append(entry.notes, text)
    for entry in row.entries:
        if entry.listed and not _explicit_status(entry) and entry.notes:
            entry.status = status_from_prose(entry.notes) or entry.status


def _mark_fastest(row: Row) -> None:
    candidates = [
        part.strip()
        for part in re.split(r"\s+or\s+|,|\s+and\s+", _PARENTHETICAL.sub(" ", row.fastest_text))
        if part.strip()
    ]
    listed = [entry for entry in row.entries if entry.listed]
    previous: str | None = None
    for candidate in candidates:
        entry = match_entry(candidate, listed)
        # "FlashInfer TRTLLM (latency) or CUTLASS (throughput)": the second shares the first's vendor word.
        if entry is None and previous and len(previous.split()) > 1:
            entry = match_entry(f"{previous.split()[0]} {candidate}", listed)
        if entry is not None:
            entry.is_fastest = True
        previous = candidate


def _apply_title_prefixes(row: Row) -> None:
    """A "WIP: <backend>" PR title links the PR to that backend and, unless its label says otherwise,
    gives it the prefix's status ("[#26397](…) WIP: TRT-LLM Ragged Attention")."""
    for ref in row.refs:
        status, rest = status_from_prefix(ref.title or "")
        entry = match_entry(rest, row.entries) if status else None
        if entry is None:
            continue
        if all((known.repo, known.number) != (ref.repo, ref.number) for known in entry.refs):
            entry.refs.append(replace(ref, text_as_written=None, position=len(entry.refs)))
        if not _explicit_status(entry) and entry.status == Status.working:
            entry.status = status


def read_row(cells: dict[str, str], extra: dict[str, str], *, context: RefContext, line: int) -> Row:
    """Builds a row from its cells by role; `extra` holds unknown columns under their headers."""
    component = cells.get(COMPONENT, "").strip()
    layout: dict = {}
    if match := _BOLD.match(component):
        component = match["name"].strip()
        layout["component_bold"] = True
    if not component:
        raise MarkdownImportError("a row has an empty Component cell", line=line)
    row = Row(
        component=component,
        fastest_text=cells.get(FASTEST, ""),
        invocation=cells.get(INVOCATION, ""),
        notes=cells.get(NOTES, ""),
        extra_cells=dict(extra),
        layout=layout,
        line=line,
    )
    row.entries = read_entries(cells.get(BACKENDS, ""), line=line)
    row.entries.extend(_unlisted_entries(row))
    notes_labels = {squash(split_label(label).name) for label, _ in labelled_lines(row.notes)}
    _attribute_invocations(row, notes_labels)
    _attribute_notes(row)
    _mark_fastest(row)

    refs_cell, plain_lines = read_refs_cell(cells.get(REFS, ""), context=context, line=line)
    if cells.get(REFS, "").strip() and plain_lines:
        layout["refs_plain_lines"] = [[position, text] for position, text in plain_lines]
    row.refs = list(refs_cell)
    seen = {(ref.repo, ref.number) for ref in row.refs}
    for entry in row.entries:
        entry.refs = find_refs(f"{entry.invocation}\n{entry.notes}", context=context, line=line)
        seen.update((ref.repo, ref.number) for ref in entry.refs)
    _apply_title_prefixes(row)
    inline_text = "\n".join([row.fastest_text, row.invocation, row.notes, *row.extra_cells.values()])
    for ref in find_refs(inline_text, context=context, line=line, start_position=INLINE_REF_POSITION):
        if (ref.repo, ref.number) not in seen:
            row.refs.append(ref)
            seen.add((ref.repo, ref.number))
    row.source_refs = find_source_refs(f"{row.invocation}\n{row.notes}")
    return row
