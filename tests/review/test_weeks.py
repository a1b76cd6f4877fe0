"""ISO weeks in UTC: bounds, year edges, and the messages of malformed or future weeks."""

from datetime import UTC, datetime

import pytest

from app.core.errors import InvalidInput
from app.review.weeks import parse_reviewable_week, parse_week, week_of, weeks_in_year


def test_a_week_runs_from_monday_midnight_utc_to_the_next_monday():
    week = parse_week("2026-W47")
    assert week.start == datetime(2026, 11, 16, tzinfo=UTC)
    assert week.end == datetime(2026, 11, 23, tzinfo=UTC)
    assert (week.previous().label, week.next().label) == ("2026-W46", "2026-W48")


def test_iso_years_differ_from_calendar_years_at_the_edges():
    assert week_of(datetime(2027, 1, 1, 12, tzinfo=UTC)).label == "2026-W53"
    assert week_of(datetime(2024, 12, 30, tzinfo=UTC)).label == "2025-W01"
    assert (weeks_in_year(2026), weeks_in_year(2025)) == (53, 52)
    assert parse_week("2026-W53").next().label == "2027-W01"


def test_a_moment_just_before_monday_belongs_to_the_previous_week():
    assert week_of(datetime(2026, 11, 22, 23, 59, 59, tzinfo=UTC)).label == "2026-W47"
    assert week_of(datetime(2026, 11, 23, 0, 0, tzinfo=UTC)).label == "2026-W48"


@pytest.mark.parametrize("text", ["abc", "2026-47", "2026-W7", "2026W47", "26-W47", "2026-W47-1", ""])
def test_malformed_weeks_name_the_expected_form(text):
    with pytest.raises(InvalidInput) as raised:
        parse_week(text)
    assert "YYYY-Www" in raised.value.message
    assert raised.value.field == "week"


@pytest.mark.parametrize("text", ["2026-W60", "2026-W00", "2025-W53"])
def test_week_numbers_outside_the_year_are_refused_with_the_years_range(text):
    with pytest.raises(InvalidInput) as raised:
        parse_week(text)
    assert "has weeks 01 to" in raised.value.message


def test_a_lowercase_w_is_accepted():
    assert parse_week("2026-w05").label == "2026-W05"


def test_a_future_week_is_refused_and_the_current_week_is_reviewable():
    now = datetime(2026, 11, 18, 10, tzinfo=UTC)
    assert parse_reviewable_week("2026-W47", now=now).label == "2026-W47"
    with pytest.raises(InvalidInput) as raised:
        parse_reviewable_week("2026-W48", now=now)
    assert raised.value.message == "2026-W48 is in the future; the current week is 2026-W47"
