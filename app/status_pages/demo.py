"""Demo data: the B200 status page, a small SM120 page and the GB200 cutedsl incompatibility.

The seed texts live in `demo_data/` inside the package so that a fresh clone loads them without the
shared folder. Loading twice changes nothing: a re-import of an unchanged page writes no event, and
rules that already exist are not added again.
"""

from __future__ import annotations

import json
from pathlib import Path

from sqlmodel import Session, col, select

from app.core.settings import get_settings
from app.github_refs.service import get_or_create_ref, parse_ref
from app.status_pages.compat import add_rule
from app.status_pages.importing import read_markdown_upload, store_document
from app.status_pages.models import CompatRule

DEMO_DATA = Path(__file__).parent / "demo_data"
PAGES = ["dsr1-vllm-b200.md", "nemotron-vllm-sm120.md"]
RULES = "gb200-cutedsl-rules.json"
ACTOR = "importer"


def _load_rules(session: Session) -> int:
    settings = get_settings()
    data = json.loads((DEMO_DATA / RULES).read_text())
    # The issue's title as the report states it, until the GitHub sync fills in the live one.
    address = parse_ref(
        data["issue"], default_repo=settings.github_default_repo, aliases=settings.github_repo_aliases
    )
    get_or_create_ref(session=session, address=address, title=data["issue_title"])
    added = 0
    for values in data["rules"]:
        exists = session.exec(
            select(CompatRule).where(
                col(CompatRule.page_id).is_(None),
                CompatRule.component_a == values["component_a"],
                CompatRule.backend_a == values["backend_a"],
                CompatRule.component_b == values["component_b"],
                CompatRule.backend_b == values["backend_b"],
                CompatRule.hardware == data["hardware"],
            )
        ).first()
        if exists:
            continue
        add_rule(
            session=session,
            values={**values, "hardware": data["hardware"], "precision": data["precision"]},
            page=None,
            issue=data["issue"],
            reason=f"reported in {data['source']}",
            actor=ACTOR,
            default_repo=settings.github_default_repo,
            aliases=settings.github_repo_aliases,
        )
        added += 1
    return added


def load(*, session: Session) -> str:
    """Imports the demo pages and rules; returns a one-line summary."""
    settings = get_settings()
    results = []
    for name in PAGES:
        document = read_markdown_upload(
            (DEMO_DATA / name).read_bytes(),
            max_bytes=settings.import_max_bytes,
            default_repo=settings.github_default_repo,
            aliases=settings.github_repo_aliases,
        )
        result = store_document(session=session, document=document, slug=None, actor=ACTOR)
        results.append(f"{result.page.slug} ({'created' if result.created else f'{result.changes} changes'})")
    added = _load_rules(session)
    session.flush()
    return f"status pages: {', '.join(results)}; {added} compatibility rules added"
