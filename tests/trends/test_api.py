"""The trends API end to end: uploads evaluated on arrival, trends, comparisons, regressions, annotations."""

from __future__ import annotations

from sqlmodel import select

from app.audit.models import ChangeEvent
from tests.trends.factories import STEADY, upload, upload_history


def test_the_upload_answer_compares_the_run_with_its_baseline(client, auth_header) -> None:
    headers = auth_header("upload")
    answers = upload_history(client, headers, [*STEADY, 74.0, 73.5])
    first, suspicious, regression = answers[0]["baseline"], answers[-2]["baseline"], answers[-1]["baseline"]
    assert first["label"] == "insufficient_data"
    assert suspicious["label"] == "suspicious"
    assert regression["label"] == "regression"
    assert "output_throughput" in regression["regressions"]
    row = next(item for item in regression["metrics"] if item["metric"] == "output_throughput")
    assert row["baseline"] == 92.05
    assert round(row["delta_pct"]) == -20
    assert row["direction"] == "regression"
    assert regression["links"]["trend_page"] == f"/trends?series={answers[-1]['series_key']}"


def test_confirmed_regressions_become_change_events(client, auth_header, session) -> None:
    answers = upload_history(client, auth_header("upload", name="ci"), [*STEADY, 74.0, 73.5])
    events = session.exec(select(ChangeEvent).where(ChangeEvent.kind == "run.regression")).all()
    throughput = next(event for event in events if event.context["metric"] == "output_throughput")
    assert throughput.subject_id == answers[-1]["id"]
    assert throughput.actor == "ci"
    assert throughput.context["label"] == "regression"
    assert throughput.context["hardware"] == "RTX PRO 6000"
    assert throughput.context["delta_pct"] < -19
    # The run that stands for the baseline is a steady one (closest to the median), for compare links.
    steady_ids = {answer["id"] for answer in answers[: len(STEADY)]}
    assert throughput.context["baseline_run_id"] in steady_ids
    assert "run_label" in throughput.context
    # The first drop alone is only suspicious: no event.
    assert all(event.subject_id == answers[-1]["id"] for event in events)


def test_trend_returns_points_labels_and_versions(client, auth_header) -> None:
    answers = upload_history(client, auth_header("upload"), [*STEADY, 74.0, 73.5])
    key = answers[0]["series_key"]
    body = client.get(f"/api/v1/series/{key}/trend", params={"metric": "output_throughput"}).json()
    assert body["total_points"] == body["returned_points"] == 12
    assert body["downsampled"] is False
    assert body["unit"] == "tok/s" and body["better_direction"] == "higher"
    assert [point["label"] for point in body["points"][-2:]] == ["suspicious", "regression"]
    assert body["points"][0]["engine_version"] == "0.19.0"
    assert body["baseline_note"] is None


def test_trend_since_limits_the_runs(client, auth_header) -> None:
    answers = upload_history(client, auth_header("upload"), STEADY)
    key = answers[0]["series_key"]
    since = answers[6]["run_time"]
    body = client.get(f"/api/v1/series/{key}/trend", params={"metric": "output_throughput", "since": since})
    assert body.json()["total_points"] == 4


def test_a_series_with_one_run_says_why_there_is_no_baseline(client, auth_header) -> None:
    key = upload(client, auth_header("upload"), 92.0, day=0)["series_key"]
    body = client.get(f"/api/v1/series/{key}/trend", params={"metric": "output_throughput"}).json()
    assert len(body["points"]) == 1
    assert "only one run" in body["baseline_note"]


def test_unknown_series_or_metric_is_404_naming_it(client, auth_header) -> None:
    key = upload(client, auth_header("upload"), 92.0, day=0)["series_key"]
    missing_metric = client.get(f"/api/v1/series/{key}/trend", params={"metric": "warp_speed"})
    assert missing_metric.status_code == 404
    assert "warp_speed" in missing_metric.json()["error"]["message"]
    missing_series = client.get("/api/v1/series/deadbeef/trend", params={"metric": "output_throughput"})
    assert missing_series.status_code == 404
    assert "deadbeef" in missing_series.json()["error"]["message"]


def test_max_points_outside_2_to_10000_is_422(client, auth_header) -> None:
    key = upload(client, auth_header("upload"), 92.0, day=0)["series_key"]
    for bad in (1, 10001):
        response = client.get(
            f"/api/v1/series/{key}/trend", params={"metric": "output_throughput", "max_points": bad}
        )
        assert response.status_code == 422
        assert response.json()["error"]["field"] == "max_points"


def test_series_list_filters_by_backend_and_workload(client, auth_header) -> None:
    headers = auth_header("upload")
    marlin = upload(client, headers, 92.0, day=0, backend="MARLIN")
    cutlass = upload(client, headers, 74.0, day=0, backend="FLASHINFER_CUTLASS")
    everything = client.get("/api/v1/series", params={"hardware": "rtx pro 6000"}).json()
    assert {item["series_key"] for item in everything} >= {marlin["series_key"], cutlass["series_key"]}
    only = client.get("/api/v1/series", params={"backend": "flashinfer_cutlass", "input_len": 1024}).json()
    assert [item["series_key"] for item in only] == [cutlass["series_key"]]
    assert "moe=FLASHINFER_CUTLASS" in only[0]["name"]
    assert client.get("/api/v1/series", params={"input_len": 2048, "backend": "MARLIN"}).json() == []


def test_compare_reads_plus_six_and_a_half_percent_for_pr_30014(client, auth_header) -> None:
    headers = auth_header("upload")
    context = {
        "hardware": "GB200",
        "gpu_count": 4,
        "model": "nvidia/DeepSeek-R1-0528-FP4-v2",
        "precision": "fp4",
    }
    before = upload(client, headers, 69219.00 / 3, day=0, context=context)
    after = upload(client, headers, 73714.89 / 3, day=3, context=context)
    body = client.get("/api/v1/compare", params={"a": before["id"], "b": after["id"]}).json()
    row = next(item for item in body["metrics"] if item["metric"] == "total_token_throughput")
    assert (row["a"], row["b"]) == (69219.00, 73714.89)
    assert f"{row['delta_pct']:+.1f}%" == "+6.5%"
    assert row["tone"] == "better" and row["direction"] == "improvement"
    assert row["beyond_noise"] is None  # two runs: the series' noise is unknown
    ttft = next(item for item in body["metrics"] if item["metric"] == "median_ttft_ms")
    assert ttft["delta_pct"] == 0 and ttft["direction"] is None
    assert body["same_series"] is True


def test_compare_unknown_run_is_404_naming_it(client) -> None:
    response = client.get("/api/v1/compare", params={"a": 999999, "b": 999998})
    assert response.status_code == 404
    assert response.json()["error"]["field"] == "a"


def test_regressions_list_until_acknowledged(client, auth_header, session) -> None:
    answers = upload_history(client, auth_header("upload"), [*STEADY, 74.0, 73.5])
    regressions = client.get("/api/v1/regressions").json()
    run_id = answers[-1]["id"]
    assert "output_throughput" in {item["metric"] for item in regressions if item["run_id"] == run_id}
    item = next(item for item in regressions if item["metric"] == "output_throughput")
    assert item["links"]["trend_page"].startswith("/trends?series=")
    assert item["baseline"] == 92.05
    refused = client.post(f"/api/v1/runs/{run_id}/acknowledgements", json={"note": "known"})
    assert refused.status_code == 401
    acknowledged = client.post(
        f"/api/v1/runs/{run_id}/acknowledgements",
        json={"note": "FLASHINFER_CUTLASS became the default; see #38971"},
        headers=auth_header("edit", name="alice"),
    )
    assert acknowledged.status_code == 201
    assert [item for item in client.get("/api/v1/regressions").json() if item["run_id"] == run_id] == []
    event = session.exec(select(ChangeEvent).where(ChangeEvent.kind == "regression.acknowledged")).one()
    assert event.reason.startswith("FLASHINFER_CUTLASS became") and event.actor == "alice"


def test_an_acknowledgement_covers_earlier_regressions_and_later_ones_reopen(client, auth_header) -> None:
    headers = auth_header("upload")
    answers = upload_history(client, headers, [*STEADY, 74.0, 73.5, 74.1])
    editor = auth_header("edit")
    acknowledged = client.post(
        f"/api/v1/runs/{answers[-1]['id']}/acknowledgements",
        json={"metric": "output_throughput", "note": "new default backend"},
        headers=editor,
    )
    assert acknowledged.status_code == 201
    assert "output_throughput" not in {item["metric"] for item in client.get("/api/v1/regressions").json()}
    later = [upload(client, headers, value, day=20 + day) for day, value in enumerate([60.0, 59.5])]
    reopened = [
        item for item in client.get("/api/v1/regressions").json() if item["metric"] == "output_throughput"
    ]
    assert [run["run_id"] for run in reopened[0]["runs"]] == [answer["id"] for answer in later]


def test_acknowledging_a_run_without_regression_is_422(client, auth_header) -> None:
    answer = upload(client, auth_header("upload"), 92.0, day=0)
    response = client.post(
        f"/api/v1/runs/{answer['id']}/acknowledgements",
        json={"metric": "output_throughput", "note": "x"},
        headers=auth_header("edit"),
    )
    assert response.status_code == 422
    assert "output_throughput" in response.json()["error"]["message"]


def test_a_distribution_change_restarts_the_baseline(client, auth_header, session) -> None:
    answers = upload_history(client, auth_header("upload"), [*STEADY, 74.0, 73.5, 74.2, 73.8])
    key, first_new = answers[0]["series_key"], answers[10]["id"]
    response = client.post(
        f"/api/v1/series/{key}/distribution-changes",
        json={"run_id": first_new, "note": "FLASHINFER_CUTLASS is the new default"},
        headers=auth_header("edit"),
    )
    assert response.status_code == 201
    points = client.get(f"/api/v1/series/{key}/trend", params={"metric": "output_throughput"}).json()[
        "points"
    ]
    assert [point["label"] for point in points[10:]] == ["insufficient_data"] * 3 + ["ok"]
    assert [item for item in client.get("/api/v1/regressions").json() if item["series_key"] == key] == []
    event = session.exec(select(ChangeEvent).where(ChangeEvent.kind == "series.distribution_change")).one()
    assert event.context["series_key"] == key
    annotations = client.get(f"/api/v1/series/{key}/annotations").json()
    assert annotations[0]["kind"] == "distribution_change" and annotations[0]["run_id"] == first_new


def test_a_distribution_change_on_a_run_of_another_series_is_422(client, auth_header) -> None:
    headers = auth_header("upload")
    marlin = upload(client, headers, 92.0, day=0, backend="MARLIN")
    cutlass = upload(client, headers, 74.0, day=0, backend="FLASHINFER_CUTLASS")
    response = client.post(
        f"/api/v1/series/{marlin['series_key']}/distribution-changes",
        json={"run_id": cutlass["id"], "note": "x"},
        headers=auth_header("edit"),
    )
    assert response.status_code == 422
    assert response.json()["error"]["field"] == "run_id"
