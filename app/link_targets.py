"""Wires each domain's describer of the cells a GitHub ref can be linked from (github_refs/targets.py)."""

from __future__ import annotations

from app.benchmarks.link_targets import describe_runs
from app.github_refs.models import LinkTarget
from app.github_refs.targets import register_target_describer


def register_link_targets() -> None:
    """Registers every domain's describer; safe to call more than once."""
    register_target_describer(LinkTarget.run.value, describe_runs)
