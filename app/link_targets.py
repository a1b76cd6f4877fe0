"""Wires each domain's describer of the cells a GitHub ref can be linked from (github_refs/targets.py)."""

from __future__ import annotations

from app.benchmarks.link_targets import describe_runs
from app.github_refs.models import LinkTarget
from app.github_refs.targets import register_target_describer
from app.status_pages.link_targets import describe_entries, describe_pages, describe_rows, describe_rules


def register_link_targets() -> None:
    """Registers every domain's describer; safe to call more than once."""
    register_target_describer(LinkTarget.run.value, describe_runs)
    register_target_describer(LinkTarget.page.value, describe_pages)
    register_target_describer(LinkTarget.row.value, describe_rows)
    register_target_describer(LinkTarget.entry.value, describe_entries)
    register_target_describer(LinkTarget.rule.value, describe_rules)
