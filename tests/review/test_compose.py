"""The review is computed from events alone: each section, the ranking, and reproducibility of past weeks."""

from __future__ import annotations

from dataclasses import asdict

from app.review.compose import compose_review
from app.review.weeks import parse_week
from tests.review.factories import EventLog, at, make_link, make_ref
from tests.review.scenario import SERIES_B200, SERIES_SM120, W47, links, refs, seeded_log


def review_of(log: EventLog, *, now: str = "2026-11-25 12:00", week=W47, ref_rows=None, link_rows=None):
    return compose_review(
        week=week,
        now=at(now),
        events=sorted(log.events, key=lambda event: (event.occurred_at, event.id)),
        refs=refs() if ref_rows is None else ref_rows,
        links=links() if link_rows is None else link_rows,
        stale_after_days=14,
    )


def test_needs_attention_is_ranked_failures_regressions_stale_refs_overdue_series():
    review = review_of(seeded_log())
    categories = [item.category for item in review.needs_attention]
    assert categories == [
        "new_failure",
        "new_failure",
        "open_regression",
        "stale_blocking_ref",
        "overdue_series",
        "overdue_series",
    ]
    titles = [item.title for item in review.needs_attention]
    assert titles[0] == "DeepGemm (FP8 · MOE) on dsr1-b200 is failing"
    assert titles[1] == "flashinfer_cutedsl × deepep_ll (GB200) fails"
    assert (
        titles[2]
        == f"output_throughput -20.0% on RTX PRO 6000 · Nemotron-3-Super · nvfp4 · {SERIES_SM120[:8]}"
    )
    assert review.needs_attention[2].url == "/compare?a=22&b=23"
    assert titles[3].startswith("vllm-project/vllm#25696")
    assert "FlashInfer CUTLASS (FP8 · MOE) on dsr1-b200" in review.needs_attention[3].detail


def test_health_at_start_and_end_of_the_week_and_status_changes_grouped_by_component():
    review = review_of(seeded_log())
    (page,) = review.pages
    assert (page.slug, page.health_at_start, page.health_now) == ("dsr1-b200", "ok", "degraded")
    assert page.health_changes[0].reason == "DeepGemm MoE broken"
    assert [(group.precision, group.component) for group in page.components] == [
        ("FP8", "Gemms"),
        ("FP8", "MOE"),
    ]
    moe_change = page.components[1].changes[0]
    assert (moe_change.backend, moe_change.old_status, moe_change.new_status) == (
        "DeepGemm",
        "working",
        "failing",
    )
    assert (moe_change.actor, moe_change.reason) == ("alice", "illegal memory access with E8M0 scales")
    assert page.components[0].changes[0].actor == "carol"


def test_github_activity_and_stale_refs_with_their_cells():
    review = review_of(seeded_log())
    assert [activity.number for activity in review.github.activity["opened"]] == [30014]
    assert [activity.number for activity in review.github.activity["merged"]] == [30014]
    assert review.github.activity["closed"] == []
    (stale,) = review.github.stale
    # A past week ignores the ref row's updated_at (a later sync moves it): created 2026-10-20, 33 days.
    assert (stale.number, stale.blocks_failing_entry, stale.idle_days) == (25696, True, 33)
    assert [(cell.target_type, cell.target_id, cell.status) for cell in stale.cells] == [
        ("entry", 2, "failing")
    ]
    assert stale.cells[0].url == "/pages/dsr1-b200"


def test_benchmarks_uploads_by_hardware_changes_and_overdue_series():
    benchmarks = review_of(seeded_log()).benchmarks
    assert benchmarks.runs_uploaded == 4
    assert [(row.hardware, row.runs, row.series) for row in benchmarks.uploads_by_hardware] == [
        ("GB200", 1, 1),
        ("RTX PRO 6000", 3, 1),
    ]
    (regression,) = benchmarks.regressions
    assert regression.trend_url.startswith("/trends?series=vllm%7CNemotron")
    (improvement,) = benchmarks.improvements
    assert (improvement.label, improvement.compare_url) == ("#30014", "/compare?a=29&b=30")
    assert [series.series_key for series in benchmarks.overdue] == [SERIES_B200, SERIES_SM120]
    assert (benchmarks.overdue[0].median_interval_hours, benchmarks.overdue[0].hardware) == (48.0, "B200")


def test_a_backfill_keeps_the_rhythm_of_when_the_benchmarks_ran():
    log = seeded_log()
    for day, run_id in (("13", 41), ("16", 42), ("19", 43)):
        log.run_uploaded(
            "2026-11-19 12:00",
            run_id=run_id,
            series_key="backfilled",
            hardware="H200",
            run_time=f"2026-11-{day} 00:00",
        )
    overdue = {series.series_key: series for series in review_of(log).benchmarks.overdue}
    assert "backfilled" not in overdue  # due by 2026-11-25: not late at the week's end
    assert "backfilled" in {
        s.series_key
        for s in review_of(log, now="2026-12-10 12:00", week=parse_week("2026-W49")).benchmarks.overdue
    }


def test_compatibility_new_failures_and_fixed_combinations():
    compatibility = review_of(seeded_log()).compatibility
    assert [(c.backend_a, c.old_outcome, c.new_outcome) for c in compatibility.new_failures] == [
        ("flashinfer_cutedsl", "works", "fails"),
    ]
    assert compatibility.new_failures[0].error == "RuntimeError: unsupported all2all"
    assert [c.backend_a for c in compatibility.fixed] == ["flashinfer_cutlass"]


def test_a_past_week_does_not_change_when_later_events_arrive():
    log = seeded_log()
    before = asdict(review_of(log, now="2026-11-25 12:00"))
    # The next weeks: the failure is fixed, the stale PR moves, the regression is acknowledged, more runs.
    log.status_changed("2026-11-24 10:00", entry_id=1, old="failing", new="working")
    log.status_changed("2026-11-24 10:00", entry_id=2, old="failing", new="working")
    log.health_changed("2026-11-24 10:05", page_id=1, old="degraded", new="ok")
    log.ref(
        "2026-11-26 10:00",
        action="merged",
        ref_id=10,
        repo="vllm-project/vllm",
        number=25696,
        title="Fix w8a8 block fp8 linear",
    )
    log.acknowledged("2026-11-26 11:00", run_id=23, reason="expected: Marlin no longer the fallback")
    log.run_uploaded("2026-11-27 06:00", run_id=4, series_key=SERIES_B200, hardware="B200")
    # The ref rows moved on too: the sync now says #25696 was merged and updated yesterday.
    later_refs = refs()
    later_refs[0].state, later_refs[0].merged = "closed", True
    later_refs[0].merged_at = later_refs[0].gh_closed_at = later_refs[0].gh_updated_at = at(
        "2026-11-26 10:00"
    )
    after = asdict(review_of(log, now="2026-12-10 12:00", ref_rows=later_refs))
    assert after == before


def test_the_current_week_is_computed_so_far():
    review = review_of(seeded_log(), now="2026-11-18 10:00")
    assert (review.complete, review.as_of, review.next_week) == (False, at("2026-11-18 10:00"), None)
    assert review.compatibility.new_failures == []
    assert review.benchmarks.runs_uploaded == 3
    assert review.pages[0].components[0].changes[0].new_status == "in_review"


def test_an_entry_that_failed_and_recovered_within_the_week_needs_no_attention():
    log = seeded_log()
    log.status_changed("2026-11-20 10:00", entry_id=1, old="failing", new="working")
    review = review_of(log)
    assert all("DeepGemm" not in item.title for item in review.needs_attention)
    assert len(review.pages[0].components[1].changes) == 2


def test_acknowledged_rebaselined_or_recovered_regressions_are_not_open():
    log = seeded_log()
    log.acknowledged("2026-11-20 10:00", run_id=23, reason="known trade-off")
    assert review_of(log).benchmarks.open_regressions == []
    log = seeded_log()
    log.acknowledged("2026-11-20 10:00", run_id=23, reason="only latency", metrics=["median_ttft_ms"])
    assert len(review_of(log).benchmarks.open_regressions) == 1
    log.acknowledged("2026-11-20 11:00", run_id=23, reason="throughput too", metrics=["output_throughput"])
    assert review_of(log).benchmarks.open_regressions == []
    log = seeded_log()
    log.distribution_change(
        "2026-11-20 10:00", series_key=SERIES_SM120, run_id=23, note="v0.19 default backend"
    )
    assert review_of(log).benchmarks.open_regressions == []
    log = seeded_log()
    log.run_change(
        "2026-11-21 06:00",
        kind="improvement",
        run_id=24,
        series_key=SERIES_SM120,
        metric="output_throughput",
        baseline=73.6,
        value=91.0,
        delta_pct=23.6,
    )
    assert review_of(log).benchmarks.open_regressions == []


def test_the_run_label_is_shown_not_the_detectors_verdict():
    log = seeded_log()
    log.run_change(
        "2026-11-20 06:00",
        kind="regression",
        run_id=25,
        series_key=SERIES_B200,
        metric="output_throughput",
        baseline=1.0,
        value=0.5,
        delta_pct=-50.0,
    )
    labels = {change.run_id: change.label for change in review_of(log).benchmarks.regressions}
    assert labels == {23: "v0.19.0", 25: None}


def test_a_ref_becomes_stale_only_after_the_configured_days_and_only_while_open():
    log = seeded_log()
    fresh = [make_ref(ref_id=10, number=25696, title="Fix", created="2026-11-12 10:00")]
    assert review_of(log, ref_rows=fresh).github.stale == []
    log.ref(
        "2026-11-20 10:00", action="closed", ref_id=10, repo="vllm-project/vllm", number=25696, title="Fix"
    )
    assert review_of(log).github.stale == []


def test_an_unlinked_ref_no_longer_lists_the_cell():
    log = seeded_log()
    log.add(
        "2026-11-20 10:00",
        kind="ref.unlinked",
        subject_type="entry",
        subject_id=2,
        page_id=1,
        actor="alice",
        old_value="vllm-project/vllm#25696",
        context={"ref_id": 10},
    )
    (stale,) = review_of(log, link_rows=links()[1:]).github.stale
    assert (stale.cells, stale.blocks_failing_entry) == ([], False)
    assert all(
        item.category != "stale_blocking_ref"
        for item in review_of(log, link_rows=links()[1:]).needs_attention
    )


def test_a_week_before_anything_happened_is_empty():
    review = review_of(seeded_log(), week=parse_week("2026-W40"))
    assert (review.event_count, review.pages, review.needs_attention) == (0, [], [])


def test_the_current_week_trusts_the_last_sync_for_a_refs_activity():
    review = review_of(seeded_log(), now="2026-11-20 10:00")
    (stale,) = review.github.stale
    assert (stale.last_activity_at, stale.idle_days) == (at("2026-10-25 10:00"), 26)


def test_a_reimport_that_replaces_a_failing_entry_or_rule_reports_no_new_failure():
    log = seeded_log()
    # Re-importing the page removes and re-adds its entries and rules with new ids, same cells, same outcomes.
    log.add(
        "2026-11-20 09:00",
        kind="entry.removed",
        subject_type="entry",
        subject_id=2,
        page_id=1,
        context={
            "slug": "dsr1-b200",
            "precision": "FP8",
            "component": "MOE",
            "backend": "FlashInfer CUTLASS",
        },
    )
    log.entry_added(
        "2026-11-20 09:00",
        entry_id=102,
        page_id=1,
        precision="FP8",
        component="MOE",
        backend="FlashInfer CUTLASS",
        status="failing",
        group="TP/EP",
    )
    log.rule(
        "2026-11-20 09:00",
        kind="removed",
        rule_id=1,
        backend_a="flashinfer_cutedsl",
        backend_b="deepep_ll",
        old="fails",
    )
    log.rule(
        "2026-11-20 09:00",
        kind="added",
        rule_id=101,
        backend_a="flashinfer_cutedsl",
        backend_b="deepep_ll",
        new="fails",
    )
    log.add(
        "2026-11-20 09:00",
        kind="entry.removed",
        subject_type="entry",
        subject_id=1,
        page_id=1,
        context={"slug": "dsr1-b200", "precision": "FP8", "component": "MOE", "backend": "DeepGemm"},
    )
    log.entry_added(
        "2026-11-20 09:00",
        entry_id=101,
        page_id=1,
        precision="FP8",
        component="MOE",
        backend="DeepGemm",
        status="failing",
        group="TP/EP",
    )
    titles = [item.title for item in review_of(log).needs_attention if item.category == "new_failure"]
    # What became failing this week still is (under new ids); what failed before is not new.
    assert titles == [
        "DeepGemm (FP8 · MOE) on dsr1-b200 is failing",
        "flashinfer_cutedsl × deepep_ll (GB200) fails",
    ]


def test_a_new_entry_added_as_failing_is_a_new_failure():
    log = seeded_log()
    log.entry_added(
        "2026-11-20 09:00",
        entry_id=7,
        page_id=1,
        precision="FP4",
        component="MOE",
        backend="flashinfer_cutedsl",
        status="failing",
        actor="dave",
    )
    item = review_of(log).needs_attention[0]
    assert (item.title, item.detail) == (
        "flashinfer_cutedsl (FP4 · MOE) on dsr1-b200 is failing",
        "added as failing · dave",
    )


def test_cells_of_a_first_import_are_named_from_its_snapshot():
    link_rows = [
        make_link(ref_id=10, target_type="row", target_id=1, created="2026-11-02 09:00"),
        make_link(ref_id=10, target_type="section", target_id=1, created="2026-11-02 09:00"),
        make_link(ref_id=10, target_type="page", target_id=1, created="2026-11-02 09:00"),
        make_link(ref_id=10, target_type="rule", target_id=2, created="2026-11-03 10:00"),
    ]
    (stale,) = review_of(seeded_log(), link_rows=link_rows).github.stale
    # The entry comes from the scenario's `ref.linked` event: an audited link counts without its row.
    assert [(cell.target_type, cell.label, cell.url) for cell in stale.cells] == [
        ("entry", "FlashInfer CUTLASS (FP8 · MOE) on dsr1-b200", "/pages/dsr1-b200"),
        ("page", "DSR1 on B200", "/pages/dsr1-b200"),
        ("row", "FP8 · MOE on dsr1-b200", "/pages/dsr1-b200"),
        ("rule", "flashinfer_cutlass × pplx (GB200)", None),
        ("section", "FP8 on dsr1-b200", "/pages/dsr1-b200"),
    ]


def test_an_entry_failing_twice_in_the_week_is_one_attention_item():
    log = seeded_log()
    log.status_changed("2026-11-19 10:00", entry_id=1, old="failing", new="working")
    log.status_changed("2026-11-20 10:00", entry_id=1, old="working", new="failing", reason="again")
    failures = [item for item in review_of(log).needs_attention if "DeepGemm" in item.title]
    assert [item.detail for item in failures] == ["was working · alice · again"]


def test_events_missing_their_subject_or_context_do_not_break_the_review():
    log = seeded_log()
    for kind, subject_type in (
        ("entry.status_changed", "entry"),
        ("entry.added", "entry"),
        ("rule.changed", "rule"),
        ("ref.merged", "ref"),
        ("run.regression", "run"),
        ("page.health_changed", "page"),
        ("run.uploaded", "run"),
        ("ref.linked", "entry"),
        ("regression.acknowledged", "run"),
    ):
        log.add("2026-11-20 10:00", kind=kind, subject_type=subject_type, new_value={"odd": True})
    review = review_of(log)
    assert review.event_count == 13 + 9
    assert review.needs_attention[0].title == "DeepGemm (FP8 · MOE) on dsr1-b200 is failing"
