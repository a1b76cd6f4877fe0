"""The Markdown export: short sections, tables with one line per cell, absolute links."""

from app.review.compose import compose_review
from app.review.markdown import render_review_markdown
from app.review.schema import SignoffInfo
from tests.review.factories import at
from tests.review.scenario import W47, links, refs, seeded_log

BASE = "https://statusboard.example.org/"


def render(log=None, *, signoff=None, now="2026-11-25 12:00"):
    review = compose_review(
        week=W47,
        now=at(now),
        events=(log or seeded_log()).events,
        refs=refs(),
        links=links(),
        stale_after_days=14,
        signoff=signoff,
    )
    return render_review_markdown(review, base_url=BASE)


def test_sections_come_in_order_with_the_summary_first():
    text = render()
    headings = [line for line in text.splitlines() if line.startswith("## ")]
    assert headings == [
        "## Needs attention",
        "## Status pages",
        "## GitHub",
        "## Benchmarks",
        "## Compatibility",
    ]
    assert text.startswith(
        "# Weekly health review · 2026-W47\n\n2026-11-16 to 2026-11-22 (UTC) · complete week"
    )
    assert "_Not signed off yet._" in text


def test_the_summary_is_a_numbered_table_with_absolute_links():
    text = render()
    assert (
        "| 1 | New failure | [DeepGemm (FP8 · MOE) on dsr1-b200 is failing]"
        "(https://statusboard.example.org/pages/dsr1-b200) |" in text
    )
    assert "(https://statusboard.example.org/compare?a=22&b=23)" in text
    assert "[trend](https://statusboard.example.org/trends?series=vllm%7CNemotron" in text
    assert "[vllm-project/vllm#30014](https://github.com/vllm-project/vllm/pull/30014)" in text


def test_every_table_row_has_as_many_cells_as_its_header():
    log = seeded_log()
    log.status_changed(
        "2026-11-20 10:00", entry_id=3, old="in_review", new="working", reason="a | b\nsecond line"
    )
    for block in render(log).split("\n\n"):
        rows = [line for line in block.splitlines() if line.startswith("|")]
        if not rows:
            continue
        widths = {len(row.replace("\\|", "").split("|")) for row in rows}
        assert len(widths) == 1, block


def test_a_signed_off_week_says_who_and_when():
    signoff = SignoffInfo(
        week="2026-W47", actor="alice", signed_at=at("2026-11-23 09:30"), notes="Ship it.\nOK"
    )
    assert "**Signed off** by alice on 2026-11-23 09:30 UTC: Ship it. OK" in render(signoff=signoff)


def test_the_current_week_is_marked_as_so_far():
    assert "so far, as of 2026-11-18 10:00 UTC" in render(now="2026-11-18 10:00")


def test_a_page_imported_in_the_week_is_marked_new():
    from app.review.weeks import parse_week

    review = compose_review(
        week=parse_week("2026-W45"),
        now=at("2026-11-25 12:00"),
        events=seeded_log().events,
        refs=refs(),
        links=links(),
        stale_after_days=14,
    )
    assert review.pages[0].imported_at == at("2026-11-02 09:00")
    text = render_review_markdown(review, base_url=BASE)
    assert "| [DSR1 on B200](https://statusboard.example.org/pages/dsr1-b200) (new) | – | ok | 0 |" in text
    assert "(new)" not in render()
