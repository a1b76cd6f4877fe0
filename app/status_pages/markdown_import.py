"""Reads a status page written in the team's Markdown into a `Document` (pure: no database).

The shape: a title line, an "**Overall Health**: …" line, then `##` sections. A section holding a table
with Component and Backends columns is a precision's status table; a "Compatibility" table (Backend A,
Backend B, Result …) holds rules; a section without a table is a recipe (headings, prose, code blocks).
Anything else is refused with the line and the reason; see docs/status-pages.md.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from app.status_pages.compat_prose import rules_from_notes
from app.status_pages.document import (
    BACKENDS,
    COMPONENT,
    EXTRA,
    FASTEST,
    INVOCATION,
    NOTES,
    REFS,
    Document,
    ImportWarning,
    MarkdownImportError,
    Recipe,
    RecipeBlock,
    Rule,
    Section,
)
from app.status_pages.row_import import read_row
from app.status_pages.status_mapping import HealthLevel, health_level_from_text
from app.status_pages.text_refs import RefContext, find_refs, read_issue_cell

_HEALTH = re.compile(
    r"^\*\*Overall Health\*\*\s*(?:\((?P<level>ok|degraded|broken)\))?\s*:?\s*(?P<text>.*)$", re.I
)
_SEPARATOR_ROW = re.compile(r"^\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$")
_PRECISION = re.compile(r"\b(NVFP4|MXFP4|MXFP8|FP4|FP8|BF16|FP16|FP32|INT8|INT4|W4A16|W8A8|W4A8)\b", re.I)
_TITLE = re.compile(
    r"^(?P<model>.+?)\s+Status with\s+(?P<engine>[^:]+?):\s*(?P<mode>.+?)\s+on\s+(?P<hw>.+)$", re.I
)
_ENGINES = ("vLLM", "SGLang", "TensorRT-LLM", "TRT-LLM")
# Short model names the team writes in titles; the page's model field carries the full name.
MODEL_ALIASES = {"dsr1": "DeepSeek-R1", "dsv3": "DeepSeek-V3", "dsv32": "DeepSeek-V3.2"}
_RULE_HEADERS = {
    "component a",
    "backend a",
    "component b",
    "backend b",
    "precision",
    "hardware",
    "result",
    "error",
    "issue",
}


def decode_markdown(data: bytes) -> str:
    """Bytes to text: refuses binary data and anything that is not UTF-8."""
    nul = data.find(b"\x00")
    if nul >= 0:
        line = data[:nul].count(b"\n") + 1
        raise MarkdownImportError(f"binary data (a NUL byte at offset {nul}), not Markdown", line=line)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise MarkdownImportError(f"not UTF-8 text (byte {exc.start})", line=line) from None
    return text.replace("\r\n", "\n").replace("\r", "\n")


def split_cells(line: str) -> list[str]:
    """Splits a table line at unescaped pipes; cell text keeps escapes and `<br>` becomes a newline."""
    body = line.strip()
    body = body[1:] if body.startswith("|") else body
    body = body[:-1] if body.endswith("|") and not body.endswith("\\|") else body
    cells = re.split(r"(?<!\\)\|", body)
    return [re.sub(r"<br\s*/?>", "\n", cell.strip(), flags=re.I) for cell in cells]


def column_role(header: str) -> str:
    """What a column holds, from its header as people name it ("Related Recent PRs" → refs)."""
    name = " ".join(re.sub(r"[*_`]", "", header).lower().split())
    if "component" in name:
        return COMPONENT
    if any(word in name for word in ("performant", "fastest", "best", "recommended")):
        return FASTEST
    if "backend" in name:
        return BACKENDS
    if any(word in name for word in ("invoke", "invocation", "usage", "how to", "enable")):
        return INVOCATION
    if "note" in name or "comment" in name:
        return NOTES
    if re.search(r"\b(prs?|issues?|links?|related)\b", name):
        return REFS
    return EXTRA


def _parse_title(title: str) -> dict[str, str]:
    if match := _TITLE.match(title):
        model = match["model"].strip()
        return {
            "model": MODEL_ALIASES.get(model.lower().replace("-", ""), model),
            "engine": match["engine"].strip(),
            "serving_mode": match["mode"].strip(),
            "hardware": match["hw"].strip(),
        }
    engine = next((name for name in _ENGINES if name.lower() in title.lower()), "")
    hardware = title.rsplit(" on ", 1)[1].strip() if " on " in title else ""
    return {"model": title, "engine": engine, "serving_mode": "", "hardware": hardware}


def _strip_rules(lines: list[str]) -> str:
    """Joins body lines, dropping the `---` separators that stand between sections."""
    while lines and lines[-1].strip() in ("", "---"):
        lines = lines[:-1]
    while lines and lines[0].strip() in ("", "---"):
        lines = lines[1:]
    return "\n".join(lines)


def _find_table(body: list[tuple[int, str]]) -> tuple[int, int] | None:
    """Index range of the first table outside code fences, or None; a header without separator is refused."""
    in_fence = False
    for index, (number, line) in enumerate(body):
        if line.lstrip().startswith("```"):
            in_fence = not in_fence
        if in_fence or not line.lstrip().startswith("|"):
            continue
        if index + 1 >= len(body) or not _SEPARATOR_ROW.match(body[index + 1][1].strip()):
            raise MarkdownImportError("a table row without a header separator (|---|) before it", line=number)
        end = index + 2
        while end < len(body) and body[end][1].lstrip().startswith("|"):
            end += 1
        return index, end
    return None


def _recipe(heading: str, body: list[tuple[int, str]], context: RefContext, position: int) -> Recipe:
    blocks: list[RecipeBlock] = []
    fence: RecipeBlock | None = None
    prose: list[str] = []

    def flush_prose() -> None:
        if prose:
            blocks.append(RecipeBlock("prose", "\n".join(prose)))
            prose.clear()

    for _, line in body:
        if fence is not None:
            if line.strip().startswith("```"):
                blocks.append(fence)
                fence = None
            else:
                fence.text = f"{fence.text}\n{line}" if fence.text else line
        elif line.strip().startswith("```"):
            flush_prose()
            fence = RecipeBlock("code", "", language=line.strip()[3:].strip())
        elif match := re.match(r"^(#{3,6})\s+(.*)$", line):
            flush_prose()
            blocks.append(RecipeBlock("heading", match[2].strip(), level=len(match[1])))
        elif line.strip() in ("", "---"):
            flush_prose()
        else:
            prose.append(line.strip())
    flush_prose()
    if fence is not None:
        blocks.append(fence)
    text = _strip_rules([line for _, line in body])
    line = body[0][0] if body else 0
    return Recipe(heading, text, blocks, find_refs(text, context=context, line=line), position)


def _rules_table(rows: list[tuple[int, list[str]]], headers: list[str], context: RefContext) -> list[Rule]:
    keys = [" ".join(header.lower().split()) for header in headers]
    rules = []
    for number, cells in rows:
        values = dict(zip(keys, cells, strict=True))
        outcome = values.get("result", "").strip().lower()
        if outcome not in ("works", "fails", "untested"):
            raise MarkdownImportError(f"result {outcome!r} must be works, fails or untested", line=number)
        issue = read_issue_cell(values.get("issue", ""), context=context, line=number)
        rules.append(
            Rule(
                values.get("component a", ""),
                values.get("backend a", ""),
                values.get("component b", ""),
                values.get("backend b", ""),
                outcome,
                values.get("precision") or None,
                values.get("hardware") or None,
                values.get("error", ""),
                "table",
                issue,
            )
        )
    return rules


def _table_section(
    heading: str, body: list[tuple[int, str]], span: tuple[int, int], document: Document, context: RefContext
) -> None:
    start, end = span
    header_line, header_text = body[start]
    headers = split_cells(header_text)
    rows = []
    for number, line in body[start + 2 : end]:
        cells = split_cells(line)
        if len(cells) != len(headers):
            raise MarkdownImportError(
                f"row has {len(cells)} cells but the table header has {len(headers)}", line=number
            )
        rows.append((number, cells))
    if {" ".join(h.lower().split()) for h in headers} >= {"backend a", "backend b", "result"}:
        unknown = [h for h in headers if " ".join(h.lower().split()) not in _RULE_HEADERS]
        if unknown:
            raise MarkdownImportError(f"unknown compatibility column {unknown[0]!r}", line=header_line)
        document.rules.extend(_rules_table(rows, headers, context))
        document.order.append(("rules", 0))
        return
    roles = [column_role(header) for header in headers]
    if COMPONENT not in roles or BACKENDS not in roles:
        raise MarkdownImportError(
            f"unknown section shape: the table under '## {heading}' needs a Component and a Backends column "
            f"(found: {', '.join(headers)})",
            line=header_line,
        )
    precision_match = _PRECISION.search(heading)
    precision = precision_match[1].upper() if precision_match else heading.split(" - ")[0].strip()
    if any(section.precision == precision for section in document.sections):
        raise MarkdownImportError(f"a second section for precision {precision!r}", line=header_line - 2)
    section = Section(heading, precision, headers, roles, line=header_line)
    section.intro = _strip_rules([line for _, line in body[:start]])
    section.outro = _strip_rules([line for _, line in body[end:]])
    for number, cells in rows:
        by_role: dict[str, str] = {}
        extra: dict[str, str] = {}
        for header, role, cell in zip(headers, roles, cells, strict=True):
            if role == EXTRA or role in by_role:
                extra[header] = cell
            else:
                by_role[role] = cell
        row = read_row(by_role, extra, context=context, line=number)
        if any(existing.component == row.component for existing in section.rows):
            raise MarkdownImportError(
                f"component {row.component!r} appears twice in {heading!r}", line=number
            )
        section.rows.append(row)
    document.order.append(("section", len(document.sections)))
    document.sections.append(section)
    document.rules.extend(rules_from_notes(section))


def parse_markdown(text: str, *, default_repo: str, aliases: Mapping[str, str]) -> Document:
    """Reads a whole status page; raises MarkdownImportError with the line and reason when it cannot."""
    lines = list(enumerate(text.split("\n"), start=1))
    non_empty = [(number, line) for number, line in lines if line.strip()]
    if not non_empty:
        raise MarkdownImportError("the document is empty")
    title_line, title = non_empty[0]
    title = title.strip().lstrip("#").strip()
    context = RefContext(default_repo=default_repo, aliases=aliases)
    headings = [index for index, (_, line) in enumerate(lines) if line.startswith("## ")]
    first_heading = headings[0] if headings else len(lines)
    health_text, health_level, explicit, preamble = "", None, False, []
    for _number, line in lines[title_line:first_heading]:
        if match := _HEALTH.match(line.strip()):
            health_text = match["text"].strip()
            explicit = bool(match["level"])
            health_level = HealthLevel(match["level"].lower()) if match["level"] else None
        else:
            preamble.append(line)
    document = Document(
        title=title,
        health_text=health_text,
        health_level=health_level or health_level_from_text(health_text),
        health_level_explicit=explicit,
        preamble=_strip_rules(preamble),
        **_parse_title(title),
    )
    if not health_text:
        document.warnings.append(ImportWarning(title_line, "no '**Overall Health**: …' line; health is ok"))
    document.page_refs = find_refs(f"{health_text}\n{document.preamble}", context=context, line=title_line)
    for position, index in enumerate(headings):
        end = headings[position + 1] if position + 1 < len(headings) else len(lines)
        heading = lines[index][1][3:].strip()
        body = lines[index + 1 : end]
        span = _find_table(body)
        if span is None:
            document.order.append(("recipe", len(document.recipes)))
            document.recipes.append(_recipe(heading, body, context, len(document.recipes)))
        else:
            _table_section(heading, body, span, document, context)
    if not document.sections:
        raise MarkdownImportError(
            "no recognisable status table: expected a '## …' section whose table has Component and "
            "Available Backends columns"
        )
    unique = {(warning.line, warning.message): warning for warning in context.warnings + document.warnings}
    document.warnings = sorted(unique.values(), key=lambda warning: warning.line)
    return document
