"""Level shifts: steps below the threshold found by change-point detection, listed as open regressions."""

from __future__ import annotations

import numpy as np
from sqlmodel import select

from app.audit.models import ChangeEvent
from tests.trends.factories import START, STEADY, upload, upload_history

SINCE = START.isoformat()


def small_step(client, headers) -> list[dict]:
    """20 nights at 100 tok/s then 10 at 97 (1 % noise): a 3 % step, below the 5 % threshold."""
    rng = np.random.default_rng(11)
    values = np.r_[100 * (1 + rng.normal(0, 0.01, 20)), 97 * (1 + rng.normal(0, 0.01, 10))]
    return [upload(client, headers, float(value), day=day) for day, value in enumerate(values)]


def test_a_step_below_the_threshold_is_listed_as_a_level_shift(client, auth_header) -> None:
    answers = small_step(client, auth_header("upload"))
    assert all(answer["baseline"]["regressions"] == [] for answer in answers)
    found = client.get("/api/v1/regressions", params={"since": SINCE}).json()
    shifts = [
        item for item in found if item["kind"] == "change_point" and item["metric"] == "output_throughput"
    ]
    assert len(shifts) == 1
    shift = shifts[0]
    assert abs(shift["run_id"] - answers[20]["id"]) <= 1
    assert -4.5 < shift["delta_pct"] < -1.5
    assert shift["baseline"] > shift["value"]
    assert shift["links"]["trend_page"].endswith("&metric=output_throughput")
    page = client.get("/regressions", params={"since": START.date().isoformat()})
    assert "level shift" in page.text


def test_acknowledging_a_level_shift_closes_it(client, auth_header, session) -> None:
    small_step(client, auth_header("upload"))
    shift = next(
        item
        for item in client.get("/api/v1/regressions", params={"since": SINCE}).json()
        if item["metric"] == "output_throughput"
    )
    response = client.post(
        f"/api/v1/runs/{shift['run_id']}/acknowledgements",
        json={"metric": "output_throughput", "note": "expected: smaller batch"},
        headers=auth_header("edit"),
    )
    assert response.status_code == 201, response.text
    left = client.get("/api/v1/regressions", params={"since": SINCE}).json()
    assert [item for item in left if item["metric"] == "output_throughput"] == []
    event = session.exec(select(ChangeEvent).where(ChangeEvent.kind == "regression.acknowledged")).one()
    assert event.context["metrics"] == ["output_throughput"]


def test_a_step_already_labelled_a_regression_is_not_listed_twice(client, auth_header) -> None:
    answers = upload_history(client, auth_header("upload"), [*STEADY, 74.0, 73.5, 74.1, 73.9])
    found = client.get("/api/v1/regressions", params={"since": SINCE}).json()
    throughput = [item for item in found if item["metric"] == "output_throughput"]
    assert [item["kind"] for item in throughput] == ["threshold"]
    assert [run["run_id"] for run in throughput[0]["runs"]] == [answer["id"] for answer in answers[-3:]]
    assert throughput[0]["run_id"] == answers[-3]["id"]
    without = client.get("/api/v1/regressions", params={"since": SINCE, "shifts": "false"}).json()
    assert {item["kind"] for item in without} == {"threshold"}
