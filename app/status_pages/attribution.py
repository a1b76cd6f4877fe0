"""Which backend a piece of prose is about: matching names as people abbreviate them.

"**DeepGemm**: `VLLM_USE_DEEP_GEMM=1`" in the invocation column belongs to the entry "DeepGemm";
"**CUTLASS BlockScale**: …" to "vLLM CUTLASS BlockScale (SM90/SM100)"; "DeepEP HT" to
"DeepEP High-Throughput". A label that matches several entries equally well is attributed to none: a wrong
attribution is worse than a note left on the row.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from app.status_pages.document import Entry
from app.status_pages.status_mapping import split_label

_BOLD_LABEL = re.compile(r"^\*\*(?P<label>[^*]+?)\*\*\s*(?P<qualifier>\([^)]*\))?\s*:?\s*(?P<rest>.*)$")
_PLAIN_LABEL = re.compile(r"^(?P<label>[A-Za-z][\w .+/()-]{0,60}?):\s+(?P<rest>.+)$")


def _squash(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", text.lower())


def _tokens(text: str) -> list[str]:
    return [token for token in re.split(r"[\s(),]+", text.lower()) if token]


def _initials(token: str) -> str:
    return "".join(part[0] for part in re.split(r"[-_]", token) if part)


def _token_match(label: str, name: str) -> bool:
    """Every label token is a name token's prefix or its initials ("DeepEP HT" ~ "DeepEP High-Throughput")."""
    name_tokens = _tokens(name)
    label_tokens = _tokens(label)
    if not label_tokens:
        return False
    return all(
        any(
            token == name_token or (len(token) >= 2 and _initials(name_token) == token)
            for name_token in name_tokens
        )
        for token in label_tokens
    )


def match_entry(label: str, entries: Sequence[Entry]) -> Entry | None:
    """The one entry `label` names: exact, then prefix, then containment, then abbreviation; else None."""
    name = split_label(label).name
    wanted = _squash(name)
    if not wanted:
        return None
    tiers = (
        lambda entry: _squash(entry.name) == wanted,
        lambda entry: _squash(entry.name).startswith(wanted),
        lambda entry: wanted in _squash(entry.name),
        lambda entry: _token_match(name, entry.name),
    )
    for matches in tiers:
        found = [entry for entry in entries if matches(entry)]
        if len(found) == 1:
            return found[0]
        if len(found) > 1:
            return None
    return None


@dataclass
class LabelledBlock:
    """A run of lines of one cell that starts with a label ("**DeepGemm**: …") or has none."""

    label: str | None
    qualifier: str
    text: str


def split_labelled_blocks(text: str, *, is_plain_label: Callable[[str], bool]) -> list[LabelledBlock]:
    """Splits a cell at bold labels, and at "Name: …" lines whose name `is_plain_label` accepts."""
    blocks: list[LabelledBlock] = []
    current: LabelledBlock | None = None
    for line in text.split("\n"):
        stripped = line.strip()
        bold = _BOLD_LABEL.match(stripped)
        plain = _PLAIN_LABEL.match(stripped)
        if bold:
            current = LabelledBlock(bold["label"].strip().rstrip(":"), bold["qualifier"] or "", bold["rest"])
            blocks.append(current)
        elif plain and is_plain_label(plain["label"]):
            current = LabelledBlock(plain["label"].strip(), "", plain["rest"])
            blocks.append(current)
        elif not stripped:
            current = None
        elif current is None:
            current = LabelledBlock(None, "", stripped)
            blocks.append(current)
        else:
            current.text += "\n" + stripped
    return blocks


def labelled_lines(text: str) -> list[tuple[str, str]]:
    """The "Label: text" lines of a notes cell (labels bold or plain, "- " bullets allowed)."""
    found = []
    for line in text.split("\n"):
        stripped = line.strip().removeprefix("- ").strip()
        match = _BOLD_LABEL.match(stripped) or _PLAIN_LABEL.match(stripped)
        if match and match["rest"].strip():
            found.append((match["label"].strip().rstrip(":"), match["rest"].strip()))
    return found


def entry_named_at_start(line: str, entries: Sequence[Entry]) -> Entry | None:
    """The entry whose full name opens `line` ("DeepGemm requires …"); the longest name wins."""
    lowered = line.strip().lower()
    candidates = [
        entry
        for entry in entries
        if lowered.startswith(entry.name.lower()) and re.match(r"\W|$", lowered[len(entry.name) :] or "")
    ]
    if not candidates:
        return None
    return max(candidates, key=lambda entry: len(entry.name))


def squash(text: str) -> str:
    """Lower-case letters and digits only: how labels are compared."""
    return _squash(text)
