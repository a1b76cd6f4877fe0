"""ISO 8601 weeks in UTC: parsing `2026-W47`, their bounds, and the checks behind the 422 answers."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta

from app.core.errors import InvalidInput

EXPECTED_FORM = "YYYY-Www, an ISO 8601 week such as 2026-W47"
_WEEK = re.compile(r"^(?P<year>\d{4})-W(?P<week>\d{2})$", re.IGNORECASE)


@dataclass(frozen=True, order=True)
class IsoWeek:
    """One ISO week; `start` is its Monday 00:00 UTC and `end` the next Monday (exclusive)."""

    year: int
    week: int

    @property
    def label(self) -> str:
        return f"{self.year}-W{self.week:02d}"

    @property
    def start(self) -> datetime:
        return datetime.combine(date.fromisocalendar(self.year, self.week, 1), time(), tzinfo=UTC)

    @property
    def end(self) -> datetime:
        return self.start + timedelta(days=7)

    @property
    def last_day(self) -> date:
        return (self.end - timedelta(days=1)).date()

    def previous(self) -> IsoWeek:
        return week_of(self.start - timedelta(days=1))

    def next(self) -> IsoWeek:
        return week_of(self.end)

    def __str__(self) -> str:
        return self.label


def weeks_in_year(year: int) -> int:
    """Returns 52 or 53: the ISO week number of December 28th, which always lies in the last week."""
    return date(year, 12, 28).isocalendar().week


def week_of(moment: datetime | date) -> IsoWeek:
    """Returns the ISO week (in UTC) that contains `moment`."""
    if isinstance(moment, datetime):
        moment = (moment if moment.tzinfo else moment.replace(tzinfo=UTC)).astimezone(UTC).date()
    calendar = moment.isocalendar()
    return IsoWeek(calendar.year, calendar.week)


def parse_week(text: str, *, field: str = "week") -> IsoWeek:
    """Reads `2026-W47` (case-insensitive `w`); anything else is a 422 naming the expected form."""
    match = _WEEK.match(text.strip())
    if match is None:
        raise InvalidInput(f"{text!r} is not a week; expected {EXPECTED_FORM}", field=field)
    year, week = int(match["year"]), int(match["week"])
    if year < 1:
        raise InvalidInput(f"{text!r} is not a week; expected {EXPECTED_FORM}", field=field)
    last = weeks_in_year(year)
    if not 1 <= week <= last:
        raise InvalidInput(
            f"{text!r} is not a week: {year} has weeks 01 to {last:02d}; expected {EXPECTED_FORM}",
            field=field,
        )
    return IsoWeek(year, week)


def parse_reviewable_week(text: str, *, now: datetime, field: str = "week") -> IsoWeek:
    """Parses a week and refuses one that has not started yet (there is nothing to review)."""
    week = parse_week(text, field=field)
    current = week_of(now)
    if week > current:
        raise InvalidInput(
            f"{week.label} is in the future; the current week is {current.label}",
            field=field,
            details={"current_week": current.label},
        )
    return week
