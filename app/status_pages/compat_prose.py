"""Compatibility rules read from a table's notes, where the prose is regular enough to read reliably.

Recognised sentences (anything else stays a note):
- "With X MOE: Can only use A or B"  → X × A works, X × B works, X × every other backend of A's group fails
- "With X MOE: Can use A or B"       → X × A works, X × B works
- "A only works with FP4 quantization (not compatible with FP8)" → A × FP4 works, A × FP8 fails
Names are resolved against the section's entries; a name that matches no entry, or several, drops the
sentence (it stays a note) rather than guessing.
"""

from __future__ import annotations

import re

from app.status_pages.attribution import match_entry
from app.status_pages.document import Row, Rule, Section

PRECISION_COMPONENT = "Precision"
_PRECISIONS = r"NVFP4|MXFP4|MXFP8|FP4|FP8|BF16|FP16|INT8|INT4"
_WITH = re.compile(
    r"^With (?P<other>.+?)(?:\s+(?P<component>MOE|MoE|GEMMs?|Gemms?|Attention|MLA))?\s*:\s*"
    r"Can (?P<only>only )?use (?P<list>.+?)\.?$",
    re.I,
)
_ONLY_PRECISION = re.compile(
    rf"^(?P<backend>.+?) only works with (?P<good>{_PRECISIONS})\b[^(]*"
    rf"(?:\(not compatible with (?P<bad>{_PRECISIONS})\))?",
    re.I,
)


def _names(listing: str) -> list[str]:
    return [part.strip() for part in re.split(r"\s+or\s+|\s+and\s+|,", listing) if part.strip()]


def _find_other(name: str, component: str | None, section: Section, row: Row):
    rows = [candidate for candidate in section.rows if candidate is not row]
    if component:
        wanted = component.lower().rstrip("s")
        rows = [candidate for candidate in rows if candidate.component.lower().startswith(wanted)] or rows
    matches = [(candidate, entry) for candidate in rows if (entry := match_entry(name, candidate.entries))]
    return matches[0] if len(matches) == 1 else None


def _with_rules(text: str, match: re.Match, section: Section, row: Row) -> list[Rule]:
    found = _find_other(match["other"], match["component"], section, row)
    allowed = [match_entry(name, row.entries) for name in _names(match["list"])]
    if found is None or not allowed or any(entry is None for entry in allowed):
        return []
    other_row, other = found
    rules = [
        Rule(
            other_row.component,
            other.name,
            row.component,
            entry.name,
            "works",
            section.precision,
            origin="notes",
        )
        for entry in allowed
    ]
    if match["only"]:
        groups = {entry.group for entry in allowed}
        allowed_names = {entry.name for entry in allowed}
        for entry in row.entries:
            if entry.group in groups and entry.name not in allowed_names and entry.listed:
                rules.append(
                    Rule(
                        other_row.component,
                        other.name,
                        row.component,
                        entry.name,
                        "fails",
                        section.precision,
                        error_text=text,
                        origin="notes",
                    )
                )
    return rules


def _precision_rules(text: str, match: re.Match, row: Row) -> list[Rule]:
    entry = match_entry(match["backend"], row.entries)
    if entry is None:
        return []
    rules = [
        Rule(row.component, entry.name, PRECISION_COMPONENT, match["good"].upper(), "works", origin="notes")
    ]
    if match["bad"]:
        rules.append(
            Rule(
                row.component,
                entry.name,
                PRECISION_COMPONENT,
                match["bad"].upper(),
                "fails",
                error_text=text,
                origin="notes",
            )
        )
    return rules


def rules_from_notes(section: Section) -> list[Rule]:
    """Every rule the section's notes state in a recognised sentence, without duplicates."""
    rules: list[Rule] = []
    for row in section.rows:
        for line in row.notes.split("\n"):
            text = line.strip().removeprefix("- ").strip()
            if match := _WITH.match(text):
                rules.extend(_with_rules(text, match, section, row))
            elif match := _ONLY_PRECISION.match(text):
                rules.extend(_precision_rules(text, match, row))
    unique: dict[tuple, Rule] = {}
    for rule in rules:
        unique.setdefault(rule.key, rule)
    return list(unique.values())
