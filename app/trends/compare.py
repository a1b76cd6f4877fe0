"""Comparing two runs metric by metric: values, % delta, better or worse, beyond the noise or not."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from app.trends.detector import Direction, direction_of, signed_delta_pct

# A delta counts as real when it exceeds this many times the series' relative noise.
NOISE_MULTIPLIER = 3.0


@dataclass(frozen=True)
class MetricValue:
    value: float
    unit: str
    better: str  # higher | lower | none


@dataclass(frozen=True)
class MetricComparison:
    """One metric of runs A and B; `delta_pct` is (B − A) / |A|."""

    name: str
    unit: str
    better: str
    a: float | None
    b: float | None
    delta_pct: float | None
    direction: Direction | None
    noise_pct: float | None
    beyond_noise: bool | None

    @property
    def tone(self) -> str:
        """CSS tone of the delta: better, worse, neutral (no better direction or within noise), missing."""
        if self.delta_pct is None:
            return "missing"
        if self.direction is None or self.beyond_noise is False:
            return "neutral"
        return "better" if self.direction == Direction.improvement else "worse"


def compare_metrics(
    a: Mapping[str, MetricValue],
    b: Mapping[str, MetricValue],
    *,
    noise_pct: Mapping[str, float] | None = None,
    noise_multiplier: float = NOISE_MULTIPLIER,
) -> list[MetricComparison]:
    """Compares every metric of either run (A's order first, then B's extra ones).

    `noise_pct` gives each metric's relative noise in its series; without it `beyond_noise` is None
    (unknown), never a guess.
    """
    noise_pct = noise_pct or {}
    names = list(a) + [name for name in b if name not in a]
    rows: list[MetricComparison] = []
    for name in names:
        left, right = a.get(name), b.get(name)
        described = left or right
        assert described is not None
        delta_pct = direction = beyond = None
        noise = noise_pct.get(name)
        if left is not None and right is not None:
            delta_pct = signed_delta_pct(right.value, left.value)
            direction = direction_of(delta_pct, described.better) if described.better != "none" else None
            if noise is not None:
                beyond = abs(delta_pct) > noise_multiplier * noise
        rows.append(
            MetricComparison(
                name=name,
                unit=described.unit,
                better=described.better,
                a=left.value if left else None,
                b=right.value if right else None,
                delta_pct=delta_pct,
                direction=direction,
                noise_pct=noise,
                beyond_noise=beyond,
            )
        )
    return rows
