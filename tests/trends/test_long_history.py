"""Long histories come back downsampled to at most max_points, keeping every flagged run."""

from __future__ import annotations

from tests.trends.long_history import METRIC, insert_long_history


def test_a_long_series_is_downsampled_keeping_the_flagged_run(client, session) -> None:
    ids = insert_long_history(session, runs=3000, regression_at=1234)
    key = "f" * 64
    body = client.get(f"/api/v1/series/{key}/trend", params={"metric": METRIC}).json()
    assert body["total_points"] == 3000
    assert body["returned_points"] <= 2000 and body["downsampled"] is True
    small = client.get(f"/api/v1/series/{key}/trend", params={"metric": METRIC, "max_points": 50}).json()
    assert small["returned_points"] <= 50
    returned = [point["run_id"] for point in small["points"]]
    assert ids[1234] in returned and ids[0] in returned and ids[-1] in returned
    values = [point["value"] for point in small["points"]]
    assert max(values) == max(point["value"] for point in body["points"])
    assert [point["run_time"] for point in small["points"]] == sorted(
        point["run_time"] for point in small["points"]
    )
