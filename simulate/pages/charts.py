"""Charts of a study's figures as inline SVG, drawn on the server: pure functions of numbers.

Every label goes through `format_html` (escaped); only the finished markup of a chart is marked safe. Each
chart names itself for assistive technology (`role="img"`, `aria-label`, `<title>`, `<desc>`) with the same
numbers the page prints beside it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, NamedTuple

from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString, mark_safe

WIDTH = 320  # the drawing's width in its own units (it scales down with the page)
MARGIN = 16  # room left and right of the axis, so that whisker caps at 0 and 1 stay visible
BAR_HEIGHT = 14
HISTOGRAM_HEIGHT = 120
HISTOGRAM_LABELS = 16  # room below the bars for the axis labels

INK, ACCENT, TRACK, LINE = "#1b1e24", "#0b4fb3", "#f3f4f7", "#4a5060"
TRACK_EDGE = "#c9ccd4"  # outlines the track, which a panel's grey background would otherwise hide
GOOD, BAD = "#116329", "#a11226"
BAND = "#dcefe0"  # the shaded strip of a designer's band
CURVE_HEIGHT = 150  # a curve's plot, above the labels of its values
CURVE_LEFT = 48  # room left of a curve's plot for its axis labels (`+20 pp`)
CURVE_LABELS = 30


def pct(value: float | None, digits: int = 1) -> str:
    """A rate as a percentage (`70.0%`); a dash when there is none."""
    return "–" if value is None else f"{value * 100:.{digits}f}%"


def points(value: float | None, digits: int = 1) -> str:
    """A difference of rates in percentage points, signed (`+5.2 pp`)."""
    return "–" if value is None else f"{value * 100:+.{digits}f} pp"


def matches(count: int) -> str:
    """A number of matches in words (`1 match`, `3 matches`)."""
    return f"{count} match" if count == 1 else f"{count} matches"


def probability(value: float | None) -> str:
    """A p-value to four places, or `< 0.0001`."""
    if value is None:
        return "–"
    return "< 0.0001" if value < 0.0001 else f"{value:.4f}"


def interval(ci: Mapping[str, float] | None, show=pct) -> str:
    """A 95% interval as text (`40.0% to 90.0%`)."""
    if not ci:
        return "–"
    return f"{show(ci.get('low'))} to {show(ci.get('high'))}"


def x_of(value: float, *, low: float = 0.0, high: float = 1.0, width: int = WIDTH) -> float:
    """Where `value` of the axis low..high lies across the drawing (clamped to the axis)."""
    share = (min(max(value, low), high) - low) / (high - low)
    return round(MARGIN + share * (width - 2 * MARGIN), 2)


def _svg(width: int, height: int, label: str, description: str, body: str) -> SafeString:
    return format_html(
        '<svg xmlns="http://www.w3.org/2000/svg" class="chart" role="img" viewBox="0 0 {w} {h}" width="{w}" '
        'height="{h}" aria-label="{label}"><title>{label}</title><desc>{desc}</desc>{body}</svg>',
        w=width, h=height, label=label, desc=description, body=mark_safe(body),  # body: built by format_html
    )


def _track(width: int) -> str:
    """The axis's full length, behind the bar."""
    return format_html('<rect class="track" x="{}" y="6" width="{}" height="{}" fill="{}" stroke="{}"/>',
                       MARGIN, width - 2 * MARGIN, BAR_HEIGHT, TRACK, TRACK_EDGE)


def _whiskers(low: float, high: float, middle: float, *, axis_low: float, axis_high: float, width: int) -> str:
    x_low = x_of(low, low=axis_low, high=axis_high, width=width)
    x_high = x_of(high, low=axis_low, high=axis_high, width=width)
    cap = BAR_HEIGHT / 2 + 3
    return format_html(
        '<line class="ci" x1="{a}" y1="{m}" x2="{b}" y2="{m}" stroke="{ink}" stroke-width="2"/>'
        '<line class="ci-low" x1="{a}" y1="{t}" x2="{a}" y2="{u}" stroke="{ink}" stroke-width="2"/>'
        '<line class="ci-high" x1="{b}" y1="{t}" x2="{b}" y2="{u}" stroke="{ink}" stroke-width="2"/>',
        a=x_low, b=x_high, m=middle, t=middle - cap, u=middle + cap, ink=INK,
    )


def _anchor(value: float, *, axis_low: float, axis_high: float) -> str:
    """Labels at the ends of the axis align inward, so that a long one (`+20 pp`) is not cut off."""
    return "start" if value <= axis_low else "end" if value >= axis_high else "middle"


def _ticks(values: list[tuple[float, str]], y: float, *, axis_low: float, axis_high: float, width: int) -> str:
    return format_html_join(
        "", '<text x="{}" y="{}" font-size="10" text-anchor="{}" fill="{}">{}</text>',
        ((x_of(v, low=axis_low, high=axis_high, width=width), y,
          _anchor(v, axis_low=axis_low, axis_high=axis_high), LINE, text) for v, text in values),
    )


def win_rate_chart(win_rate: float | None, ci: Mapping[str, float] | None, *, label: str,
                   width: int = WIDTH, axis: bool = True) -> SafeString:
    """A bar from 0 to the win rate with whiskers at its 95% interval, over a 0–100% axis marked at 50%."""
    height = BAR_HEIGHT + 12 + (14 if axis else 0)
    middle = 6 + BAR_HEIGHT / 2
    even = x_of(0.5, width=width)
    parts = [_track(width)]
    if win_rate is None or not ci:
        description = "No matches played yet."
    else:
        low, high = ci["low"], ci["high"]
        description = f"Win rate {pct(win_rate)}, 95% interval {interval(ci)}."
        parts.append(format_html('<rect class="bar" x="{}" y="6" width="{}" height="{}" fill="{}"/>',
                                 MARGIN, round(x_of(win_rate, width=width) - MARGIN, 2), BAR_HEIGHT, ACCENT))
        parts.append(_whiskers(low, high, middle, axis_low=0.0, axis_high=1.0, width=width))
    parts.append(format_html('<line class="even" x1="{x}" y1="2" x2="{x}" y2="{y}" stroke="{c}" '
                             'stroke-dasharray="3 2"/>', x=even, y=BAR_HEIGHT + 10, c=LINE))
    if axis:
        parts.append(_ticks([(0.0, "0%"), (0.5, "50%"), (1.0, "100%")], height - 3,
                            axis_low=0.0, axis_high=1.0, width=width))
    return _svg(width, height, f"{label}: {description}", description, "".join(parts))


def difference_chart(value: float | None, ci: Mapping[str, float] | None, *, label: str, span: float = 1.0,
                     width: int = WIDTH, axis: bool = True) -> SafeString:
    """A difference of rates (−span to +span): a bar from 0 to it, whiskers at its 95% interval, green
    above 0, red below."""
    span = max(span, 0.01)
    height = BAR_HEIGHT + 12 + (14 if axis else 0)
    middle = 6 + BAR_HEIGHT / 2
    zero = x_of(0.0, low=-span, high=span, width=width)
    parts = [_track(width)]
    if value is None or not ci:
        description = "No pairs played yet."
    else:
        description = f"Difference {points(value)}, 95% interval {interval(ci, points)}."
        end = x_of(value, low=-span, high=span, width=width)
        parts.append(format_html('<rect class="bar" x="{}" y="6" width="{}" height="{}" fill="{}"/>',
                                 min(zero, end), round(abs(end - zero), 2), BAR_HEIGHT, GOOD if value >= 0 else BAD))
        parts.append(_whiskers(ci["low"], ci["high"], middle, axis_low=-span, axis_high=span, width=width))
    parts.append(format_html('<line class="zero" x1="{x}" y1="2" x2="{x}" y2="{y}" stroke="{c}"/>',
                             x=zero, y=BAR_HEIGHT + 10, c=INK))
    if axis:
        parts.append(_ticks([(-span, points(-span, 0)), (0.0, "0"), (span, points(span, 0))], height - 3,
                            axis_low=-span, axis_high=span, width=width))
    return _svg(width, height, f"{label}: {description}", description, "".join(parts))


def histogram_chart(counts: Mapping[Any, int] | None, *, label: str, what: str = "rounds",
                    width: int = WIDTH) -> SafeString:
    """Matches by a whole number (rounds played): a bar per value, heights relative to the largest."""
    bins = sorted((int(key), int(count)) for key, count in (counts or {}).items())
    height = HISTOGRAM_HEIGHT + HISTOGRAM_LABELS
    if not bins or max(count for _, count in bins) == 0:
        description = "No matches played yet."
        body = format_html('<text x="{}" y="{}" font-size="12" text-anchor="middle" fill="{}">{}</text>',
                           width / 2, height / 2, LINE, description)
        return _svg(width, height, f"{label}: {description}", description, body)
    first, last = bins[0][0], bins[-1][0]
    slots = last - first + 1
    step = (width - 2 * MARGIN) / slots
    tallest = max(count for _, count in bins)
    bars = format_html_join(
        "", '<rect class="bar" x="{}" y="{}" width="{}" height="{}" fill="{}"><title>{} {}: {}</title></rect>',
        ((round(MARGIN + (value - first) * step, 2),
          round(HISTOGRAM_HEIGHT - count / tallest * (HISTOGRAM_HEIGHT - 4), 2),
          round(max(step - 1, 1), 2), round(count / tallest * (HISTOGRAM_HEIGHT - 4), 2), ACCENT, value, what,
          matches(count))
         for value, count in bins),
    )
    ticks = format_html_join(
        "", '<text x="{}" y="{}" font-size="10" text-anchor="middle" fill="{}">{}</text>',
        ((round(MARGIN + (value - first + 0.5) * step, 2), height - 3, LINE, value) for value in {first, last}),
    )
    total = sum(count for _, count in bins)
    mode_value = max(bins, key=lambda pair: (pair[1], -pair[0]))[0]
    description = (f"{matches(total)} from {first} to {last} {what}; most often {mode_value} {what} "
                   f"({matches(dict(bins)[mode_value])}).")
    return _svg(width, height, f"{label}: {description}", description, bars + ticks)


def heat_colour(rate: float | None) -> str:
    """A light background for a win rate: red at 0, white at 50%, green at 100% (dark text stays readable)."""
    if rate is None:
        return TRACK
    rate = min(max(rate, 0.0), 1.0)
    cold, warm, white = (0xF4, 0xB6, 0xBF), (0xA8, 0xDC, 0xB5), (0xFF, 0xFF, 0xFF)
    end, share = (cold, (0.5 - rate) * 2) if rate < 0.5 else (warm, (rate - 0.5) * 2)
    rgb = (round(w + (e - w) * share) for w, e in zip(white, end, strict=True))
    return "#" + "".join(f"{channel:02x}" for channel in rgb)


class CurvePoint(NamedTuple):
    """A point of a curve: the value it is at (as text), its figure with its 95% interval, whether the figure
    lies inside the band."""

    label: str
    value: float | None
    ci: Mapping[str, float] | None
    inside: bool


def curve_chart(points_: Sequence[CurvePoint], *, band: Mapping[str, float], label: str,
                show: Callable[..., str] = pct, width: int = WIDTH) -> SafeString:
    """A figure against the values swept: a point per value with whiskers at its 95% interval, the band a shaded
    strip, the points inside it filled. The vertical axis spans the band and every interval."""
    ends = [band["low"], band["high"], *(end for p in points_ if p.ci for end in (p.ci["low"], p.ci["high"]))]
    low, high = min(ends) - 0.02, max(ends) + 0.02
    top, plot = 8, CURVE_HEIGHT - 8

    def y_of(value: float) -> float:
        return round(top + (high - min(max(value, low), high)) / (high - low) * plot, 2)

    step = (width - CURVE_LEFT - MARGIN) / max(len(points_), 1)
    parts = [format_html('<rect class="band" x="{}" y="{}" width="{}" height="{}" fill="{}"><title>Band {}</title>'
                         '</rect>', CURVE_LEFT, y_of(band["high"]), width - CURVE_LEFT - MARGIN,
                         round(y_of(band["low"]) - y_of(band["high"]), 2), BAND, interval(band, show)),
             format_html_join("", '<text x="{}" y="{}" font-size="10" text-anchor="end" fill="{}">{}</text>',
                              ((CURVE_LEFT - 4, y_of(v) + 3, LINE, show(v, 0)) for v in (low, band["low"],
                                                                                       band["high"], high)))]
    for index, p in enumerate(points_):
        x = round(CURVE_LEFT + (index + 0.5) * step, 2)
        parts.append(format_html('<text x="{}" y="{}" font-size="10" text-anchor="middle" fill="{}">{}</text>',
                                 x, CURVE_HEIGHT + 16, LINE, p.label))
        if p.value is None or not p.ci:
            continue
        said = f"{p.label}: {show(p.value)}, 95% interval {interval(p.ci, show)}" + (", inside the band" if p.inside
                                                                                     else "")
        parts.append(format_html(
            '<g class="point{}"><title>{}</title>'
            '<line class="ci" x1="{x}" y1="{a}" x2="{x}" y2="{b}" stroke="{ink}" stroke-width="2"/>'
            '<line x1="{l}" y1="{a}" x2="{r}" y2="{a}" stroke="{ink}" stroke-width="2"/>'
            '<line x1="{l}" y1="{b}" x2="{r}" y2="{b}" stroke="{ink}" stroke-width="2"/>'
            '<circle cx="{x}" cy="{y}" r="4" fill="{fill}" stroke="{ink}" stroke-width="1.5"/></g>',
            " inside" if p.inside else "", said, x=x, a=y_of(p.ci["high"]), b=y_of(p.ci["low"]), l=x - 4, r=x + 4,
            y=y_of(p.value), ink=INK, fill=GOOD if p.inside else "#ffffff"))
    inside = [p.label for p in points_ if p.inside]
    description = (f"{len(points_)} values; the band is {interval(band, show)}; inside it: "
                   f"{', '.join(inside) or 'none'}.")
    return _svg(width, CURVE_HEIGHT + CURVE_LABELS, f"{label}: {description}", description, "".join(parts))
