"""GET /api/v1/runs (filters, cursor pagination) and GET /api/v1/runs/{id}."""

import pytest

from app.benchmarks.formats.base import ParsedMetric, ParsedResult
from app.benchmarks.service import store_run


def add_run(session, *, raw: bytes, day: int, **context):
    parsed = ParsedResult(
        source_format="vllm_serve_json",
        raw=raw,
        metrics=[ParsedMetric("output_throughput", 1.0 + day, "tok/s", "higher")],
    )
    run, _ = store_run(
        session=session,
        parsed=parsed,
        supplied_context={"run_time": f"2026-11-{day:02d}T10:00:00Z", **context},
        actor="ci",
        default_repo="vllm-project/vllm",
        repo_aliases={},
    )
    return run


@pytest.fixture
def runs(session):
    return [
        add_run(session, raw=b"1", day=16, hardware="B200", model="org/Alpha", precision="fp8",
                label="nightly"),
        add_run(session, raw=b"2", day=17, hardware="GB200", model="org/Alpha", precision="fp4",
                backends={"moe": "flashinfer_trtllm"}),
        add_run(session, raw=b"3", day=18, hardware="RTX PRO 6000", model="org/Beta", precision="fp4",
                backends={"moe": "MARLIN"}, links=["#38971"]),
        add_run(session, raw=b"4", day=19, hardware="RTX PRO 6000", model="org/Beta", precision="fp4",
                backends={"moe": "FLASHINFER_CUTLASS"}),
    ]  # fmt: skip


def ids(response):
    assert response.status_code == 200, response.text
    return [item["id"] for item in response.json()["items"]]


def test_list_is_newest_first(client, runs):
    response = client.get("/api/v1/runs")
    assert ids(response) == [run.id for run in reversed(runs)]
    assert response.json()["items"][0]["backends"] == {"moe": "FLASHINFER_CUTLASS"}


@pytest.mark.parametrize(
    ("params", "expected"),
    [
        ({"hardware": "rtx pro 6000"}, [3, 2]),
        ({"model": "alpha"}, [1, 0]),
        ({"precision": "FP4"}, [3, 2, 1]),
        ({"backend": "moe=marlin"}, [2]),
        ({"backend": "flashinfer_cutlass"}, [3]),
        ({"label": "nightly"}, [0]),
        ({"since": "2026-11-17T00:00:00Z", "until": "2026-11-19T00:00:00Z"}, [2, 1]),
    ],
)
def test_filters(client, runs, params, expected):
    assert ids(client.get("/api/v1/runs", params=params)) == [runs[index].id for index in expected]


def test_series_filter_and_cursor_pages(client, runs):
    assert ids(client.get("/api/v1/runs", params={"series": runs[2].series_key})) == [runs[2].id]
    first = client.get("/api/v1/runs", params={"limit": 3}).json()
    assert len(first["items"]) == 3 and first["next_cursor"]
    second = client.get("/api/v1/runs", params={"limit": 3, "cursor": first["next_cursor"]}).json()
    assert [item["id"] for item in second["items"]] == [runs[0].id] and second["next_cursor"] is None


def test_a_bad_cursor_is_422(client, runs):
    response = client.get("/api/v1/runs", params={"cursor": "garbage"})
    assert response.status_code == 422 and response.json()["error"]["field"] == "cursor"


def test_one_run_has_context_metrics_refs_and_links(client, runs):
    body = client.get(f"/api/v1/runs/{runs[2].id}").json()
    assert body["context"]["backends"] == {"moe": "MARLIN"}
    assert body["metrics"] == [
        {"name": "output_throughput", "value": 19.0, "unit": "tok/s", "better_direction": "higher"}
    ]
    assert body["links"]["refs"][0]["ref"] == "vllm-project/vllm#38971"
    assert body["raw_size"] == 1 and body["links"]["raw"] == f"/api/v1/runs/{runs[2].id}/raw"


def test_unknown_run_is_404(client):
    assert client.get("/api/v1/runs/999999").status_code == 404
