"""A person uploads runs through the API, sees the regression on the trend chart and reads a comparison."""

from __future__ import annotations

from playwright.sync_api import expect

from tests.trends.factories import SM120, START, STEADY, serve_result


def upload_through_api(page, token: str, values: list[float], *, backend: str) -> list[dict]:
    answers = []
    for day, value in enumerate(values):
        envelope = {
            "context": {
                **SM120,
                "backends": {"moe": backend},
                "engine_version": "0.19.0" if day < len(STEADY) else "0.19.1",
                "engine_commit": f"c0ffee{day:02d}",
                "run_time": START.replace(day=1 + day).isoformat(),
            },
            "result": serve_result(value),
        }
        response = page.request.post(
            "/api/v1/runs", data=envelope, headers={"Authorization": f"Bearer {token}"}
        )
        assert response.status == 201, response.text()
        answers.append(response.json())
    return answers


def test_trend_page_shows_points_and_the_regression_then_the_comparison(page, live_token):
    token = live_token("upload", name="ci")
    marlin = upload_through_api(page, token, [*STEADY, 74.0, 73.5], backend="MARLIN")
    cutlass = upload_through_api(page, token, [74.0, 74.4, 73.9], backend="FLASHINFER_CUTLASS")
    assert marlin[-1]["baseline"]["label"] == "regression"
    marlin_key, cutlass_key = marlin[0]["series_key"], cutlass[0]["series_key"]

    page.goto(f"/trends?series={marlin_key}&series={cutlass_key}&metric=output_throughput")
    chart = page.locator("#trend-chart")
    expect(chart).to_have_attribute("data-rendered", "true")
    expect(chart.locator(".main-svg").first).to_be_visible()
    traces = page.evaluate(
        "Array.from(document.getElementById('trend-chart').data,"
        " t => ({name: t.name, n: t.x.length, meta: t.meta}))"
    )
    main = {
        trace["meta"]: trace["n"]
        for trace in traces
        if not trace["name"].endswith(("band", "baseline")) and ":" not in trace["name"]
    }
    assert main == {marlin_key: 12, cutlass_key: 3}
    regression = [trace for trace in traces if trace["name"].endswith(": regression")]
    assert [trace["n"] for trace in regression] == [1]
    # Every run (12 + 3) and the regression and suspicious markers are drawn as SVG points.
    assert chart.locator(".scatterlayer .trace .points path").count() >= 15
    expect(page.locator(f'tr[data-series="{marlin_key}"] .verdict-regression')).to_be_visible()

    # The legend table hides a series across the chart.
    page.locator(f'[data-toggle-series="{cutlass_key}"]').uncheck()
    hidden = page.evaluate(
        "key => document.getElementById('trend-chart').data.filter(t => t.meta === key).map(t => t.visible)",
        cutlass_key,
    )
    assert hidden and all(value is False for value in hidden)

    page.locator(f'tr[data-series="{marlin_key}"]').get_by_role("link", name="compare last two").click()
    expect(page.locator("h1")).to_have_text("Compare runs")
    delta = page.locator('tr[data-metric="output_throughput"] .delta')
    expect(delta).to_have_text("-0.7%")
    total = page.locator('tr[data-metric="total_token_throughput"] .delta')
    expect(total).to_have_text("-0.7%")
    assert page.console_errors == []
