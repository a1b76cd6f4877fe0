"""How statuses written in prose become structured statuses, and back.

The team writes statuses as qualifiers: a trailing parenthetical on a backend ("TRT-LLM Ragged Attention
(WIP)", "CUTLASS MLA(default)", "Marlin GEMM (fallback)"), a prefix on a PR title ("WIP: …",
"In Review: …"), or a phrase in a note ("… fails with `assert …`"). The tables below are the whole
mapping; docs/status-pages.md lists them and tests/status_pages/test_status_mapping.py checks each one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum


class Status(StrEnum):
    working = "working"
    failing = "failing"
    wip = "wip"
    in_review = "in_review"
    needs_evaluation = "needs_evaluation"
    unsupported = "unsupported"
    deprecated = "deprecated"


class HealthLevel(StrEnum):
    ok = "ok"
    degraded = "degraded"
    broken = "broken"


ALLOWED_STATUSES = [status.value for status in Status]
ALLOWED_HEALTH_LEVELS = [level.value for level in HealthLevel]

# Qualifier text (lower-cased, inner whitespace collapsed) → status. Checked as whole qualifiers.
QUALIFIER_STATUSES: dict[str, Status] = {
    "working": Status.working,
    "works": Status.working,
    "wip": Status.wip,
    "work in progress": Status.wip,
    "in review": Status.in_review,
    "under review": Status.in_review,
    "in-review": Status.in_review,
    "fails": Status.failing,
    "failing": Status.failing,
    "failed": Status.failing,
    "broken": Status.failing,
    "blocked": Status.failing,
    "needs to be evaluated": Status.needs_evaluation,
    "needs evaluation": Status.needs_evaluation,
    "to be evaluated": Status.needs_evaluation,
    "untested": Status.needs_evaluation,
    "unsupported": Status.unsupported,
    "not supported": Status.unsupported,
    "deprecated": Status.deprecated,
}
# Qualifiers that are flags rather than statuses; an entry carrying only these is `working`.
FLAG_QUALIFIERS = {"default", "fallback"}

# How an edited status is written back when the entry's original wording no longer fits.
CANONICAL_QUALIFIER: dict[Status, str] = {
    Status.working: "",
    Status.failing: "(failing)",
    Status.wip: "(WIP)",
    Status.in_review: "(in review)",
    Status.needs_evaluation: "(needs evaluation)",
    Status.unsupported: "(unsupported)",
    Status.deprecated: "(deprecated)",
}

_TRAILING_PARENTHETICAL = re.compile(r"\s*\(([^()]*)\)\s*$")
_PREFIX = re.compile(r"^\s*(?P<prefix>WIP|In Review|In-Review|Draft|Blocked|Deprecated)\s*:\s*", re.I)
_PREFIX_STATUSES = {
    "wip": Status.wip,
    "draft": Status.wip,
    "in review": Status.in_review,
    "in-review": Status.in_review,
    "blocked": Status.failing,
    "deprecated": Status.deprecated,
}
# Phrases in free prose (notes) that say a backend does not work. Word-bounded to avoid "failsafe".
_FAILING_PROSE = re.compile(r"\b(fails?|failing|failed|broken|crash(es|ed)?|blocked)\b", re.I)
_EVALUATION_PROSE = re.compile(r"\b(needs? (to be )?evaluat(ed|ion)|to be evaluated)\b", re.I)
_BROKEN_HEALTH = re.compile(r"\b(broken|nothing works|not working|unusable|all paths fail)\b", re.I)
_DEGRADED_HEALTH = re.compile(
    r"\b(fail\w*|degraded|regress\w*|crash\w*|partial(ly)?|blocked|issues?)\b", re.I
)


@dataclass(frozen=True)
class Qualifiers:
    """What the qualifiers of one label said: a status (None when none was given) and flags."""

    status: Status | None = None
    is_default: bool = False
    is_fallback: bool = False


@dataclass(frozen=True)
class Label:
    """A backend label split into its name and the qualifier text as written."""

    name: str
    qualifier_text: str
    qualifiers: Qualifiers


def _normalise(text: str) -> str:
    return " ".join(text.lower().split())


def classify_qualifier(text: str) -> Qualifiers | None:
    """Reads one parenthetical's content; None when it is not a status or flag (e.g. "SM90/SM100")."""
    parts = [_normalise(part) for part in re.split(r"[,;/]", text) if part.strip()]
    if not parts:
        return None
    status: Status | None = None
    is_default = is_fallback = False
    for part in parts:
        if part in QUALIFIER_STATUSES:
            status = status or QUALIFIER_STATUSES[part]
        elif part == "default" or part.startswith("default "):
            is_default = True
        elif part == "fallback" or part.endswith(" fallback"):
            is_fallback = True
        else:
            return None
    return Qualifiers(status=status, is_default=is_default, is_fallback=is_fallback)


def split_label(label: str) -> Label:
    """Splits "CUTLASS MLA(default)" into name "CUTLASS MLA" and its qualifiers, as many as trail it."""
    name = label.strip()
    status: Status | None = None
    is_default = is_fallback = False
    while match := _TRAILING_PARENTHETICAL.search(name):
        qualifiers = classify_qualifier(match.group(1))
        if qualifiers is None or not name[: match.start()].strip():
            break
        status = status or qualifiers.status
        is_default = is_default or qualifiers.is_default
        is_fallback = is_fallback or qualifiers.is_fallback
        name = name[: match.start()].rstrip()
    qualifier_text = label.strip()[len(name) :].strip()
    return Label(name, qualifier_text, Qualifiers(status, is_default, is_fallback))


def status_from_prefix(text: str) -> tuple[Status | None, str]:
    """Reads a "WIP: …" / "In Review: …" prefix; returns the status and the text after it."""
    match = _PREFIX.match(text)
    if not match:
        return None, text
    return _PREFIX_STATUSES[_normalise(match["prefix"])], text[match.end() :]


def status_from_prose(text: str) -> Status | None:
    """Finds a status stated in a note ("fails with …", "needs evaluation"); None when it states none."""
    if _FAILING_PROSE.search(text):
        return Status.failing
    if _EVALUATION_PROSE.search(text):
        return Status.needs_evaluation
    return None


def health_level_from_text(text: str) -> HealthLevel:
    """Derives the health level from the "Overall Health" sentence."""
    if _BROKEN_HEALTH.search(text):
        return HealthLevel.broken
    if _DEGRADED_HEALTH.search(text):
        return HealthLevel.degraded
    return HealthLevel.ok


def render_label(name: str, status: Status, *, is_default: bool) -> str:
    """Writes a label for an edited entry: the name with an explicit status, so notes cannot override it."""
    parts = [name, CANONICAL_QUALIFIER[status] or "(working)"]
    if is_default:
        parts.append("(default)")
    return " ".join(parts)


def parse_status(value: str) -> Status:
    """Reads a status name as the API accepts it ("in_review", "in review", "In-Review")."""
    key = _normalise(value).replace("-", "_").replace(" ", "_")
    try:
        return Status(key)
    except ValueError:
        raise ValueError(f"unknown status {value!r}; allowed: {', '.join(ALLOWED_STATUSES)}") from None
