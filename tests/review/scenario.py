"""A week of events that touches every section of the review (2026-W47), shared by the review tests."""

from __future__ import annotations

from sqlmodel import Session

from app.review.weeks import parse_week
from tests.review.factories import EventLog, make_link, make_ref

W47 = parse_week("2026-W47")  # Monday 2026-11-16 to Monday 2026-11-23
SERIES_B200 = "vllm|DeepSeek-R1|B200|fp8|tp8|1024/1024|c64"
SERIES_SM120 = "vllm|Nemotron-3-Super|RTX PRO 6000|nvfp4|tp1|1024/128|c1"
SERIES_GB200 = "vllm|DeepSeek-R1|GB200|nvfp4|dp4ep|1024/1024|c256"


def seeded_log() -> EventLog:
    log = EventLog()
    # A first import is one event carrying the page's entries (docs/events.md), as the importer writes it.
    log.page_imported(
        "2026-11-02 09:00",
        page_id=1,
        slug="dsr1-b200",
        title="DSR1 on B200",
        health="ok",
        entries=[
            {
                "id": 1,
                "section_id": 1,
                "row_id": 1,
                "precision": "FP8",
                "component": "MOE",
                "backend": "DeepGemm",
                "group": "TP/EP",
                "status": "working",
            },
            {
                "id": 2,
                "section_id": 1,
                "row_id": 1,
                "precision": "FP8",
                "component": "MOE",
                "backend": "FlashInfer CUTLASS",
                "group": "TP/EP",
                "status": "failing",
            },
            {
                "id": 3,
                "section_id": 1,
                "row_id": 2,
                "precision": "FP8",
                "component": "Gemms",
                "backend": "Flashinfer",
                "group": "",
                "status": "working",
            },
        ],
    )
    log.rule(
        "2026-11-03 10:00",
        kind="added",
        rule_id=1,
        backend_a="flashinfer_cutedsl",
        backend_b="deepep_ll",
        new="works",
    )
    log.rule(
        "2026-11-03 10:00",
        kind="added",
        rule_id=2,
        backend_a="flashinfer_cutlass",
        backend_b="pplx",
        new="fails",
        error="assert self.block_quant is None",
    )
    for day, run_id in (("01", 1), ("03", 2), ("05", 3)):
        log.run_uploaded(f"2026-11-{day} 06:00", run_id=run_id, series_key=SERIES_B200, hardware="B200")
    log.ref_linked(
        "2026-11-02 09:00",
        ref_id=10,
        repo="vllm-project/vllm",
        number=25696,
        target_type="entry",
        target_id=2,
        page_id=1,
    )
    log.ref_linked(
        "2026-11-02 09:00",
        ref_id=12,
        repo="vllm-project/vllm",
        number=26044,
        target_type="entry",
        target_id=3,
        page_id=1,
    )
    # The week under review.
    log.status_changed(
        "2026-11-17 14:00",
        entry_id=1,
        old="working",
        new="failing",
        reason="illegal memory access with E8M0 scales",
    )
    log.health_changed("2026-11-17 14:05", page_id=1, old="ok", new="degraded", reason="DeepGemm MoE broken")
    log.status_changed("2026-11-18 09:00", entry_id=3, old="working", new="in_review", actor="carol")
    log.rule(
        "2026-11-18 11:00",
        kind="changed",
        rule_id=1,
        backend_a="flashinfer_cutedsl",
        backend_b="deepep_ll",
        old="works",
        new="fails",
        error="RuntimeError: unsupported all2all",
        issue="vllm-project/vllm#31000",
    )
    log.rule(
        "2026-11-19 11:00",
        kind="changed",
        rule_id=2,
        backend_a="flashinfer_cutlass",
        backend_b="pplx",
        old="fails",
        new="works",
    )
    log.ref(
        "2026-11-16 08:00",
        action="opened",
        ref_id=11,
        repo="vllm-project/vllm",
        number=30014,
        title="[Perf] Do FP4 quant before All gather on flashinfer trtllmgen MOE",
    )
    log.ref(
        "2026-11-18 16:00",
        action="merged",
        ref_id=11,
        repo="vllm-project/vllm",
        number=30014,
        title="[Perf] Do FP4 quant before All gather on flashinfer trtllmgen MOE",
    )
    for day, run_id in (("16", 21), ("17", 22), ("18", 23)):
        log.run_uploaded(
            f"2026-11-{day} 06:00",
            run_id=run_id,
            series_key=SERIES_SM120,
            hardware="RTX PRO 6000",
            model="Nemotron-3-Super",
            precision="nvfp4",
        )
    log.run_change(
        "2026-11-18 06:00",
        kind="regression",
        run_id=23,
        series_key=SERIES_SM120,
        metric="output_throughput",
        baseline=92.0,
        value=73.6,
        delta_pct=-20.0,
        baseline_run_id=22,
        label="v0.19.0",
        hardware="RTX PRO 6000",
    )
    log.run_uploaded("2026-11-19 07:00", run_id=30, series_key=SERIES_GB200, hardware="GB200")
    log.run_change(
        "2026-11-19 07:00",
        kind="improvement",
        run_id=30,
        series_key=SERIES_GB200,
        metric="total_token_throughput",
        baseline=69219.0,
        value=73714.0,
        delta_pct=6.5,
        baseline_run_id=29,
        label="#30014",
    )
    return log


def refs():
    return [
        make_ref(
            ref_id=10,
            number=25696,
            title="Fix w8a8 block fp8 linear",
            created="2026-10-20 10:00",
            updated="2026-10-25 10:00",
        ),
        make_ref(
            ref_id=11,
            number=30014,
            title="[Perf] Do FP4 quant before All gather",
            state="closed",
            created="2026-11-16 08:00",
            merged="2026-11-18 16:00",
            closed="2026-11-18 16:00",
        ),
        make_ref(ref_id=12, number=26044, title="Optimize FP8 MOE Backend", created="2026-11-10 10:00"),
    ]


def links():
    return [
        make_link(ref_id=10, target_type="entry", target_id=2, created="2026-11-02 09:00"),
        make_link(ref_id=12, target_type="entry", target_id=3, created="2026-11-02 09:00"),
    ]


def store_scenario(session: Session, log: EventLog | None = None) -> EventLog:
    """Writes the scenario's events, refs and links to the database (flushed, not committed)."""
    log = log or seeded_log()
    log.store(session)
    for ref in refs():
        session.add(ref)
    session.flush()
    for link in links():
        session.add(link)
    session.flush()
    return log
