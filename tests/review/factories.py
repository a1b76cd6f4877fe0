"""Factories for the review's inputs: change events written exactly as docs/events.md describes them.

The review must work from what the other domains write, so these helpers are the contract in code:
if one of them has to change, docs/events.md changes with it.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlmodel import Session

from app.audit.models import ChangeEvent
from app.github_refs.models import GitHubRef, GitHubRefLink


def at(text: str) -> datetime:
    """`2026-11-18 10:00` as an aware UTC datetime."""
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


class EventLog:
    """Builds events in the documented shapes; keeps each entry's and rule's context for later events."""

    def __init__(self) -> None:
        self.events: list[ChangeEvent] = []
        self._entry_context: dict[int, tuple[int, dict[str, Any]]] = {}
        self._rule_context: dict[int, dict[str, Any]] = {}
        self._page_slug: dict[int, str] = {}
        self._next_id = 1

    def add(
        self, when: str | datetime, *, kind: str, subject_type: str, actor: str = "importer", **fields: Any
    ):
        event = ChangeEvent(
            id=self._next_id,
            occurred_at=at(when) if isinstance(when, str) else when,
            actor=actor,
            kind=kind,
            subject_type=subject_type,
            context=fields.pop("context", {}),
            **fields,
        )
        self._next_id += 1
        self.events.append(event)
        return event

    def page_imported(self, when, *, page_id: int, slug: str, title: str, health: str, entries=()):
        """A first import: one event with the page's health and its entries (no `entry.added` each)."""
        self._page_slug[page_id] = slug
        for item in entries:
            context = {key: item.get(key) for key in ("precision", "component", "backend", "group")}
            self._entry_context[item["id"]] = (page_id, {"slug": slug, **context})
        self.add(
            when,
            kind="page.imported",
            subject_type="page",
            subject_id=page_id,
            page_id=page_id,
            new_value=title,
            context={
                "slug": slug,
                "title": title,
                "health": health,
                "sections": len({item.get("section_id") for item in entries}),
                "entries": len(entries),
                "initial_entries": [dict(item) for item in entries],
            },
        )

    def health_changed(self, when, *, page_id: int, old: str, new: str, actor="alice", reason=None):
        self.add(
            when,
            kind="page.health_changed",
            subject_type="page",
            subject_id=page_id,
            page_id=page_id,
            actor=actor,
            old_value=old,
            new_value=new,
            reason=reason,
            context={"slug": self._page_slug[page_id]},
        )

    def entry_added(
        self,
        when,
        *,
        entry_id: int,
        page_id: int,
        precision: str,
        component: str,
        backend: str,
        status: str,
        group: str | None = None,
        actor: str = "importer",
    ):
        context = {
            "slug": self._page_slug[page_id],
            "precision": precision,
            "component": component,
            "backend": backend,
            "group": group,
        }
        self._entry_context[entry_id] = (page_id, context)
        self.add(
            when,
            kind="entry.added",
            subject_type="entry",
            subject_id=entry_id,
            page_id=page_id,
            actor=actor,
            new_value=status,
            context={**context, "status": status},
        )

    def status_changed(self, when, *, entry_id: int, old: str, new: str, actor="alice", reason=None):
        page_id, context = self._entry_context[entry_id]
        self.add(
            when,
            kind="entry.status_changed",
            subject_type="entry",
            subject_id=entry_id,
            page_id=page_id,
            actor=actor,
            field_name="status",
            old_value=old,
            new_value=new,
            reason=reason,
            context=dict(context),
        )

    def rule(
        self,
        when,
        *,
        kind: str,
        rule_id: int,
        backend_a: str,
        backend_b: str,
        old=None,
        new=None,
        scope="GB200",
        issue=None,
        error=None,
        actor="bob",
        reason=None,
    ):
        context = {"backend_a": backend_a, "backend_b": backend_b, "scope": scope, "issue": issue}
        if error:
            context["error"] = error
        self.add(
            when,
            kind=f"rule.{kind}",
            subject_type="rule",
            subject_id=rule_id,
            actor=actor,
            old_value=old,
            new_value=new,
            reason=reason,
            context=context,
        )

    def ref(
        self,
        when,
        *,
        action: str,
        ref_id: int,
        repo: str,
        number: int,
        title: str,
        kind: str = "pull",
        actor: str = "github-sync",
        updated_at: str | None = None,
    ):
        context: dict[str, Any] = {"repo": repo, "number": number, "title": title, "kind": kind}
        if updated_at:
            context["updated_at"] = at(updated_at).isoformat()
        self.add(
            when, kind=f"ref.{action}", subject_type="ref", subject_id=ref_id, actor=actor, context=context
        )

    def ref_linked(
        self,
        when,
        *,
        ref_id: int,
        repo: str,
        number: int,
        target_type: str,
        target_id: int,
        page_id: int | None = None,
    ):
        self.add(
            when,
            kind="ref.linked",
            subject_type=target_type,
            subject_id=target_id,
            page_id=page_id,
            new_value=f"{repo}#{number}",
            context={"ref_id": ref_id, "repo": repo, "number": number},
        )

    def run_uploaded(
        self,
        when,
        *,
        run_id: int,
        series_key: str,
        hardware: str,
        model: str = "DeepSeek-R1",
        precision: str = "fp8",
        run_time: str | None = None,
        actor="ci",
    ):
        context = {"series_key": series_key, "hardware": hardware, "model": model, "precision": precision}
        if run_time:
            context["run_time"] = at(run_time).isoformat()
        self.add(
            when, kind="run.uploaded", subject_type="run", subject_id=run_id, actor=actor, context=context
        )

    def run_change(
        self,
        when,
        *,
        kind: str,
        run_id: int,
        series_key: str,
        metric: str,
        baseline: float,
        value: float,
        delta_pct: float,
        baseline_run_id: int | None = None,
        label=None,
        hardware=None,
    ):
        context = {
            "series_key": series_key,
            "metric": metric,
            "baseline": baseline,
            "value": value,
            "delta_pct": delta_pct,
            # The detector's verdict, as the trends domain writes it; the run's own label is `run_label`.
            "label": kind,
            "run_label": label,
            "baseline_run_id": baseline_run_id,
            "hardware": hardware,
        }
        self.add(
            when,
            kind=f"run.{kind}",
            subject_type="run",
            subject_id=run_id,
            actor="system",
            field_name=metric,
            old_value=baseline,
            new_value=value,
            context=context,
        )

    def acknowledged(self, when, *, run_id: int, reason: str, metrics=(), series_key=None, actor="alice"):
        """`metrics` empty acknowledges every regressed metric of the run."""
        self.add(
            when,
            kind="regression.acknowledged",
            subject_type="run",
            subject_id=run_id,
            actor=actor,
            field_name=metrics[0] if len(metrics) == 1 else None,
            reason=reason,
            context={"series_key": series_key, "metrics": list(metrics)},
        )

    def distribution_change(self, when, *, series_key: str, run_id: int, note: str, actor="alice"):
        self.add(
            when,
            kind="series.distribution_change",
            subject_type="series",
            subject_id=1,
            actor=actor,
            reason=note,
            context={"series_key": series_key, "run_id": run_id, "note": note},
        )

    def store(self, session: Session) -> None:
        """Writes the events to the database (with fresh ids) in one flush."""
        for event in self.events:
            event.id = None
            session.add(event)
        session.flush()


def make_ref(
    *,
    ref_id: int | None = None,
    repo="vllm-project/vllm",
    number: int,
    title: str,
    state="open",
    kind="pull",
    created: str,
    updated: str | None = None,
    closed: str | None = None,
    merged: str | None = None,
) -> GitHubRef:
    """A tracked ref as the GitHub sync leaves it."""
    return GitHubRef(
        id=ref_id,
        repo=repo,
        number=number,
        kind=kind,
        title=title,
        state=state,
        merged=merged is not None,
        merged_at=at(merged) if merged else None,
        gh_created_at=at(created),
        gh_updated_at=at(updated or created),
        gh_closed_at=at(closed) if closed else None,
        labels=[],
    )


def make_link(*, ref_id: int, target_type: str, target_id: int, created: str) -> GitHubRefLink:
    return GitHubRefLink(ref_id=ref_id, target_type=target_type, target_id=target_id, created_at=at(created))
