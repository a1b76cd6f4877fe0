"""The trend, comparison and regression pages."""

from __future__ import annotations

import json
import re

from tests.trends.factories import SM120, STEADY, upload, upload_history

HTML = {"Accept": "text/html"}


def figure_of(page: str) -> dict:
    match = re.search(r'<script type="application/json" id="trend-figure">(.*?)</script>', page, re.S)
    assert match, "no figure on the page"
    return json.loads(match.group(1))


def test_trend_page_plots_the_series_with_its_regression(client, auth_header) -> None:
    answers = upload_history(client, auth_header("upload"), [*STEADY, 74.0, 73.5])
    key = answers[0]["series_key"]
    page = client.get("/trends", params={"series": key}, headers=HTML)
    assert page.status_code == 200
    figure = figure_of(page.text)
    titles = [axis["title"]["text"] for name, axis in figure["layout"].items() if name.startswith("yaxis")]
    assert titles[:2] == ["output_throughput (tok/s)", "total_token_throughput (tok/s)"]
    assert len(titles) == 6  # the default metric set
    names = {trace["name"] for trace in figure["data"]}
    assert any(name.endswith(": regression") for name in names)
    assert any(name.endswith("baseline band") for name in names)
    assert 'data-toggle-series="' + key + '"' in page.text
    assert "moe=MARLIN" in page.text
    assert "Acknowledge" not in page.text  # anonymous readers get no forms


def test_trend_page_compares_backends_on_one_chart(client, auth_header) -> None:
    headers = auth_header("upload")
    marlin = upload_history(client, headers, STEADY[:4], backend="MARLIN")[0]["series_key"]
    cutlass = upload_history(client, headers, [74.0, 74.3, 73.8, 74.1], backend="FLASHINFER_CUTLASS")[0][
        "series_key"
    ]
    page = client.get(
        "/trends", params=[("series", marlin), ("series", cutlass), ("metric", "output_throughput")]
    )
    figure = figure_of(page.text)
    main = [trace for trace in figure["data"] if trace["mode"] == "lines+markers"]
    assert {trace["meta"] for trace in main} == {marlin, cutlass}
    assert "yaxis2" not in figure["layout"]


def test_other_backends_link_lists_the_sibling_series(client, auth_header) -> None:
    headers = auth_header("upload")
    marlin = upload(client, headers, 92.0, day=0, backend="MARLIN")["series_key"]
    upload(client, headers, 74.0, day=0, backend="FLASHINFER_CUTLASS")
    upload(client, headers, 50.0, day=0, context={**SM120, "workload": {"input_len": 8000, "concurrency": 1}})
    page = client.get("/trends", params={"series": marlin, "metric": "output_throughput"}).text
    link = re.search(r'<a href="([^"]+)" title="series with the same hardware', page).group(1)
    siblings = client.get(link.replace("&amp;", "&")).text
    assert "2 matching series" in siblings
    assert "moe=FLASHINFER_CUTLASS" in siblings and "ISL 8000" not in siblings


def test_a_single_run_shows_one_point_and_why_there_is_no_baseline(client, auth_header) -> None:
    key = upload(client, auth_header("upload"), 92.0, day=0)["series_key"]
    page = client.get("/trends", params={"series": key, "metric": "output_throughput"})
    figure = figure_of(page.text)
    assert [len(trace["x"]) for trace in figure["data"]] == [1]
    assert "only one run: a baseline needs at least 3 earlier runs" in page.text


def test_filters_list_matching_series_and_blank_fields_are_ignored(client, auth_header) -> None:
    headers = auth_header("upload")
    upload(client, headers, 92.0, day=0, backend="MARLIN")
    upload(client, headers, 74.0, day=0, backend="FLASHINFER_CUTLASS")
    page = client.get("/trends", params={"backend": "marlin", "input_len": "", "since": "", "hardware": ""})
    assert page.status_code == 200
    assert "1 matching series" in page.text
    assert "moe=FLASHINFER_CUTLASS" not in page.text
    bad = client.get("/trends", params={"input_len": "many"}, headers=HTML)
    assert bad.status_code == 422 and "input_len" in bad.text


def test_unknown_series_or_metric_on_the_page_is_404(client, auth_header) -> None:
    key = upload(client, auth_header("upload"), 92.0, day=0)["series_key"]
    assert client.get("/trends", params={"series": "nope"}, headers=HTML).status_code == 404
    missing = client.get("/trends", params={"series": key, "metric": "warp_speed"}, headers=HTML)
    assert missing.status_code == 404 and "warp_speed" in missing.text


def test_compare_page_colours_the_pr_30014_delta(client, auth_header) -> None:
    headers = auth_header("upload")
    context = {
        "hardware": "GB200",
        "gpu_count": 4,
        "model": "nvidia/DeepSeek-R1-0528-FP4-v2",
        "precision": "fp4",
    }
    before = upload(client, headers, 69219.00 / 3, day=0, context=context)["id"]
    after = upload(client, headers, 73714.89 / 3, day=3, context=context)["id"]
    page = client.get("/compare", params={"a": before, "b": after})
    row = re.search(r'<tr data-metric="total_token_throughput">(.*?)</tr>', page.text, re.S).group(1)
    assert re.search(r'class="num delta tone-better">\+6\.5%<', row)
    assert "69,219" in row and "73714.9" in row


def test_editors_acknowledge_from_the_trend_page(client, auth_header) -> None:
    answers = upload_history(client, auth_header("upload"), [*STEADY, 74.0, 73.5])
    key, run_id = answers[0]["series_key"], answers[-1]["id"]
    editor = auth_header("edit", name="alice")
    page = client.get("/trends", params={"series": key, "metric": "output_throughput"}, headers=editor)
    assert "Acknowledge" in page.text
    response = client.post(
        "/trends/acknowledgements",
        data={
            "run_id": run_id,
            "metric": "output_throughput",
            "note": "known: #38971",
            "next": f"/trends?series={key}",
        },
        headers=editor,
        follow_redirects=False,
    )
    assert response.status_code == 303 and response.headers["location"] == f"/trends?series={key}"
    regressions = client.get("/regressions", headers=HTML).text
    assert f"/trends?series={key}&metric=output_throughput" not in regressions
    assert f"/trends?series={key}&metric=total_token_throughput" in regressions
