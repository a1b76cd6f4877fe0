"""Demo data for `make run`: each domain contributes a loader; loading twice changes nothing."""

from __future__ import annotations

import importlib
import logging

from sqlmodel import Session

logger = logging.getLogger(__name__)

# Loaders run in this order; each is `load(*, session) -> str` returning a one-line summary.
DEMO_LOADERS: list[str] = ["app.benchmarks.demo"]


def load_demo_data(*, session: Session) -> list[str]:
    """Runs every domain's demo loader in one transaction and returns their summaries."""
    summaries = []
    for module_name in DEMO_LOADERS:
        module = importlib.import_module(module_name)
        summaries.append(module.load(session=session))
    session.commit()
    return summaries
