"""A ref linked from a benchmark run reads as that run, with a link to its page."""

from app.benchmarks.link_targets import describe_runs
from tests.benchmarks.test_store_run import parsed, store


def test_runs_are_described_by_hardware_model_and_precision(session):
    run, _ = store(session, parsed(), label="nightly")
    labels = describe_runs(session, [run.id, run.id + 1000])
    assert set(labels) == {run.id}
    assert labels[run.id].label == f"run {run.id} · GB200 · DeepSeek-R1-0528-FP4-v2 · fp4 · nightly"
    assert labels[run.id].url == f"/benchmarks/runs/{run.id}"
