"""Finding PR/issue references and source-file references inside cell text."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from app.github_refs.service import UnknownRepository, parse_ref
from app.status_pages.document import ImportWarning, RefText, SourceRef

_MARKDOWN_LINK = re.compile(r"\[(?P<label>[^\]]*)\]\((?P<url>https?://github\.com/[^)\s]+)\)")
_BARE_URL = re.compile(r"(?<!\()https?://github\.com/[\w.-]+/[\w.-]+/(?:pull|pulls|issues)/\d+")
# `flashinfer#1566` or `owner/name#12`, not inside a URL or a link label, not a bare `#12`.
_SHORTHAND = re.compile(r"(?<![\w/#\[.-])(?P<ref>[A-Za-z][\w.-]*(?:/[\w.-]+)?#\d+)\b")
_SOURCE = re.compile(
    r"`(?P<path>(?:[\w.-]+/)+[\w.-]+\.(?:py|cu|cuh|cpp|cc|c|h|hpp|md|yaml|yml|toml|json|sh))"
    r"(?::(?:(?P<start>\d+)(?:-(?P<end>\d+))?|(?P<symbol>[A-Za-z_]\w*)))?`"
)


@dataclass
class RefContext:
    """What reading references needs: where a bare `#123` points, the aliases, and a warnings sink."""

    default_repo: str
    aliases: Mapping[str, str]
    warnings: list[ImportWarning] = field(default_factory=list)


def _address(text: str, *, context: RefContext, line: int):
    try:
        return parse_ref(text, default_repo=context.default_repo, aliases=context.aliases)
    except UnknownRepository as exc:
        context.warnings.append(ImportWarning(line, f"reference {text!r} skipped: {exc.message}"))
    except ValueError as exc:  # noqa: BLE001 - any unreadable reference is a warning, never a failure
        context.warnings.append(ImportWarning(line, f"reference {text!r} skipped: {exc}"))
    return None


def find_refs(text: str, *, context: RefContext, line: int, start_position: int = 0) -> list[RefText]:
    """Every reference mentioned in `text` (links, bare URLs, shorthands), in order, once each."""
    found: list[tuple[int, str, str | None]] = []
    masked = text
    for match in _MARKDOWN_LINK.finditer(text):
        found.append((match.start(), match["url"], None))
        masked = masked[: match.start()] + " " * (match.end() - match.start()) + masked[match.end() :]
    for match in _BARE_URL.finditer(masked):
        found.append((match.start(), match.group(0), None))
    for match in _SHORTHAND.finditer(masked):
        found.append((match.start(), match["ref"], None))
    refs: list[RefText] = []
    seen: set[tuple[str, int]] = set()
    for _, raw, _title in sorted(found):
        address = _address(raw, context=context, line=line)
        if address is None or (address.repo, address.number) in seen:
            continue
        seen.add((address.repo, address.number))
        position = start_position + len(refs)
        refs.append(RefText(address.repo, address.number, address.kind.value, None, None, position, line))
    return refs


def read_refs_cell(
    text: str, *, context: RefContext, line: int
) -> tuple[list[RefText], list[tuple[int, str]]]:
    """Reads a "Related PRs" cell: one reference per line with its title; plain lines are returned apart."""
    refs: list[RefText] = []
    plain: list[tuple[int, str]] = []
    for position, cell_line in enumerate(text.split("\n")):
        if not cell_line.strip():
            plain.append((position, cell_line))
            continue
        mentioned = find_refs(cell_line, context=context, line=line, start_position=position)
        if not mentioned:
            plain.append((position, cell_line))
            continue
        first = mentioned[0]
        link = _MARKDOWN_LINK.match(cell_line.strip())
        title = cell_line.strip()[link.end() :].strip() if link else None
        refs.append(RefText(first.repo, first.number, first.kind, title or None, cell_line, position, line))
    return refs, plain


def read_issue_cell(text: str, *, context: RefContext, line: int) -> RefText | None:
    """The one reference of a rule's Issue cell, which may also be a bare `#123`."""
    if not text.strip():
        return None
    found = find_refs(text, context=context, line=line)
    if found:
        ref = found[0]
    elif (address := _address(text.strip(), context=context, line=line)) is not None:
        ref = RefText(address.repo, address.number, address.kind.value, None, None, 0, line)
    else:
        return None
    ref.text_as_written = text
    return ref


def find_source_refs(text: str) -> list[SourceRef]:
    """Source files named in backticks, with their line range or symbol when given."""
    refs = []
    for match in _SOURCE.finditer(text):
        refs.append(
            SourceRef(
                path=match["path"],
                line_start=int(match["start"]) if match["start"] else None,
                line_end=int(match["end"]) if match["end"] else None,
                symbol=match["symbol"],
            )
        )
    return refs


def source_url(source: SourceRef | dict, *, repo: str, ref: str = "main") -> str:
    """The file's page on GitHub, anchored at its lines when known."""
    data = source if isinstance(source, dict) else source.__dict__
    url = f"https://github.com/{repo}/blob/{ref}/{data['path']}"
    if data.get("line_start"):
        url += f"#L{data['line_start']}"
        if data.get("line_end"):
            url += f"-L{data['line_end']}"
    return url
