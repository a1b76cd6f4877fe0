"""The demo data's PR #30014 before/after pair reads +6.5 % total token throughput."""

from __future__ import annotations

from sqlmodel import select

from app.benchmarks import demo
from app.benchmarks.models import BenchmarkRun


def test_pr_30014_demo_pair_compares_at_plus_six_and_a_half_percent(client, session) -> None:
    demo.load(session=session)
    session.flush()
    runs = session.exec(
        select(BenchmarkRun).where(BenchmarkRun.hardware == "GB200").order_by(BenchmarkRun.run_time)
    )
    serving = [
        run for run in runs if run.source_format != "lm_eval_markdown" and "30014" in (run.label or "")
    ]
    before, after = serving[0], serving[1]
    assert before.series_key == after.series_key
    body = client.get("/api/v1/compare", params={"a": before.id, "b": after.id}).json()
    row = next(item for item in body["metrics"] if item["metric"] == "total_token_throughput")
    assert (row["a"], row["b"]) == (69219.00, 73714.89)
    assert f"{row['delta_pct']:+.1f}%" == "+6.5%" and row["tone"] == "better"
    page = client.get("/compare", params={"a": before.id, "b": after.id})
    assert "+6.5%" in page.text
