"""The demo runs: PR #30014 in one series with its gsm8k check, #38971 as two series by MoE backend."""

from sqlmodel import col, select

from app.audit.models import ChangeEvent
from app.benchmarks import demo
from app.benchmarks.models import BenchmarkRun, BenchmarkSeries
from app.benchmarks.service import metrics_of


def test_demo_loads_once_and_lines_runs_up(session):
    assert demo.load(session=session) == "benchmarks: 28 new of 28 demo runs"
    assert demo.load(session=session) == "benchmarks: 0 new of 28 demo runs"
    runs = {run.label + "|" + run.source_format: run for run in session.exec(select(BenchmarkRun))}
    before = runs["before #30014|vllm_serve_console"]
    after = runs["after #30014|vllm_serve_console"]
    gsm8k = runs["after #30014|lm_eval_markdown"]
    assert before.series_key == after.series_key == gsm8k.series_key
    values = {m.name: m.value for m in metrics_of(session=session, run_id=after.id)}
    assert values["total_token_throughput"] == 73714.89
    assert {m.name: m.value for m in metrics_of(session=session, run_id=before.id)}[
        "total_token_throughput"
    ] == 69219.0
    assert {m.name: m.value for m in metrics_of(session=session, run_id=gsm8k.id)}[
        "lm_eval/gsm8k/exact_match/flexible-extract"
    ] == 0.9712
    assert before.run_time < after.run_time
    assert after.run_time.isocalendar()[:2] == (2026, 47) and before.run_time.isocalendar()[:2] == (2026, 47)
    marlin = runs["v0.17.1 default|vllm_serve_json"]
    cutlass = runs["v0.19.0 default|vllm_serve_json"]
    assert marlin.series_key != cutlass.series_key
    one, two = (session.get(BenchmarkSeries, run.series_key).context for run in (marlin, cutlass))
    assert {key for key in one if one[key] != two[key]} == {"backends"}
    assert marlin.context["tags"]["source"].startswith("vllm-project/vllm#38971")


def test_demo_history_lets_the_detector_find_the_seed_regression_and_improvement(session):
    demo.load(session=session)
    events = session.exec(
        select(ChangeEvent).where(col(ChangeEvent.kind).in_(["run.regression", "run.improvement"]))
    ).all()
    found = {(event.kind, event.context["hardware"], event.context["metric"]) for event in events}
    # #38971: the default MoE backend switched to FLASHINFER_CUTLASS in v0.19.0, ~92 → ~74 tok/s.
    assert ("run.regression", "RTX PRO 6000", "output_throughput") in found
    # #30014: +6.5% total token throughput on 4×GB200, confirmed by the next night.
    assert ("run.improvement", "GB200", "total_token_throughput") in found
    improvement = next(event for event in events if event.context["metric"] == "total_token_throughput")
    assert round(improvement.context["delta_pct"], 1) == 6.5
    nightly = session.exec(select(BenchmarkRun).where(BenchmarkRun.label == "nightly")).all()
    assert nightly and all(run.context["tags"]["source"].startswith("statusboard demo") for run in nightly)
