"""The study pages' SVG charts: geometry read off the numbers, labels escaped, empty data drawn."""

import xml.etree.ElementTree as ET

import pytest

from simulate.pages import charts

SVG = "{http://www.w3.org/2000/svg}"


def parsed(markup: str) -> ET.Element:
    """The chart as XML (so it is well formed), its elements found by class."""
    return ET.fromstring(str(markup))


def by_class(root: ET.Element, name: str) -> list[ET.Element]:
    return [element for element in root.iter() if element.get("class") == name]


def axis_x(value: float, low: float = 0.0, high: float = 1.0) -> float:
    """Where a value lies on the axis, computed here from the chart's margins and width."""
    return charts.MARGIN + (value - low) / (high - low) * (charts.WIDTH - 2 * charts.MARGIN)


def test_a_win_rate_bar_ends_at_the_rate_and_its_whiskers_at_the_interval():
    root = parsed(charts.win_rate_chart(0.7, {"low": 0.4, "high": 0.9}, label="Side a"))
    (bar,) = by_class(root, "bar")
    assert float(bar.get("x")) == charts.MARGIN
    assert float(bar.get("x")) + float(bar.get("width")) == pytest.approx(axis_x(0.7), abs=0.01)
    (low,), (high,) = by_class(root, "ci-low"), by_class(root, "ci-high")
    assert float(low.get("x1")) == pytest.approx(axis_x(0.4), abs=0.01)
    assert float(high.get("x1")) == pytest.approx(axis_x(0.9), abs=0.01)
    (span,) = by_class(root, "ci")
    assert (float(span.get("x1")), float(span.get("x2"))) == (float(low.get("x1")), float(high.get("x1")))
    (even,) = by_class(root, "even")
    assert float(even.get("x1")) == pytest.approx(axis_x(0.5), abs=0.01)


def test_a_chart_names_itself_with_its_numbers():
    root = parsed(charts.win_rate_chart(0.7, {"low": 0.4, "high": 0.9}, label="Side a"))
    assert root.get("role") == "img"
    assert root.get("aria-label") == "Side a: Win rate 70.0%, 95% interval 40.0% to 90.0%."
    assert root.find(f"{SVG}title").text == root.get("aria-label")
    assert root.find(f"{SVG}desc").text == "Win rate 70.0%, 95% interval 40.0% to 90.0%."


def test_labels_are_escaped():
    markup = str(charts.win_rate_chart(0.5, {"low": 0.2, "high": 0.8}, label="<script>alert(1)</script>"))
    assert "<script>" not in markup and "&lt;script&gt;alert(1)&lt;/script&gt;" in markup
    root = parsed(markup)
    assert root.find(f"{SVG}title").text.startswith("<script>alert(1)</script>")  # text, not markup
    histogram = str(charts.histogram_chart({"3": 1}, label='"><script>x</script>'))
    assert "<script>" not in histogram
    parsed(histogram)


def test_no_matches_draw_the_axis_alone():
    root = parsed(charts.win_rate_chart(None, {"low": 0.0, "high": 1.0}, label="Side a"))
    assert by_class(root, "bar") == [] and by_class(root, "ci") == []
    assert by_class(root, "track") and "No matches played yet." in root.get("aria-label")
    empty = parsed(charts.histogram_chart({}, label="Rounds"))
    assert by_class(empty, "bar") == [] and "No matches played yet." in empty.get("aria-label")
    assert by_class(parsed(charts.difference_chart(None, None, label="Patch")), "bar") == []


def test_a_difference_bar_runs_from_zero_to_the_difference():
    root = parsed(charts.difference_chart(-0.1, {"low": -0.25, "high": 0.05}, label="Patch", span=0.5))
    (bar,) = by_class(root, "bar")
    zero, end = axis_x(0.0, -0.5, 0.5), axis_x(-0.1, -0.5, 0.5)
    assert float(bar.get("x")) == pytest.approx(end, abs=0.01)
    assert float(bar.get("width")) == pytest.approx(zero - end, abs=0.01)
    assert bar.get("fill") == charts.BAD
    assert float(by_class(root, "ci-low")[0].get("x1")) == pytest.approx(axis_x(-0.25, -0.5, 0.5), abs=0.01)
    assert float(by_class(root, "ci-high")[0].get("x1")) == pytest.approx(axis_x(0.05, -0.5, 0.5), abs=0.01)
    assert "−10.0 pp" in root.get("aria-label") or "-10.0 pp" in root.get("aria-label")


def test_the_labels_at_the_ends_of_an_axis_align_inward():
    """A label centred on the end of the axis (`+20 pp`) would run past the drawing's edge and be cut off."""
    for chart in (charts.win_rate_chart(0.5, {"low": 0.4, "high": 0.6}, label="Side a"),
                  charts.difference_chart(0.0, {"low": -0.01, "high": 0.01}, label="Patch", span=0.2)):
        labels = [(text.get("text-anchor"), float(text.get("x")), text.text)
                  for text in parsed(chart).iter(f"{SVG}text")]
        first, *middle, last = labels
        assert first[:2] == ("start", charts.MARGIN)
        assert last[:2] == ("end", charts.WIDTH - charts.MARGIN)
        assert middle and all(anchor == "middle" for anchor, _, _ in middle)
    assert [text for _, _, text in labels] == ["-20 pp", "0", "+20 pp"]


def test_a_histogram_has_a_bar_per_value_scaled_to_the_largest():
    root = parsed(charts.histogram_chart({"5": 2, "7": 4, "6": 1}, label="Rounds"))
    bars = by_class(root, "bar")
    heights = [float(bar.get("height")) for bar in bars]
    assert len(bars) == 3
    assert heights[0] == pytest.approx(2 * heights[1]) and heights[2] == pytest.approx(4 * heights[1])
    xs = [float(bar.get("x")) for bar in bars]
    assert xs == sorted(xs) and xs[0] == charts.MARGIN
    assert [bar.find(f"{SVG}title").text for bar in bars] == [
        "5 rounds: 2 matches", "6 rounds: 1 match", "7 rounds: 4 matches"]
    assert "7 matches from 5 to 7 rounds" in root.get("aria-label")


def test_heat_colours_run_from_red_through_white_to_green():
    assert charts.heat_colour(0.5) == "#ffffff"
    assert charts.heat_colour(0.0) == "#f4b6bf" and charts.heat_colour(1.0) == "#a8dcb5"
    assert charts.heat_colour(None) == charts.TRACK
    assert charts.heat_colour(7) == charts.heat_colour(1.0)


def test_numbers_read_as_text():
    assert (charts.pct(0.7), charts.pct(None), charts.points(-0.052), charts.points(0.1)) == (
        "70.0%", "–", "-5.2 pp", "+10.0 pp")
    assert charts.interval({"low": 0.4, "high": 0.9}) == "40.0% to 90.0%"
    assert (charts.probability(0.000061), charts.probability(0.5), charts.probability(None)) == (
        "< 0.0001", "0.5000", "–")


def test_a_curve_marks_the_points_inside_its_band_and_draws_the_band_between_its_ends():
    points = [charts.CurvePoint("atk 4", 0.30, {"low": 0.25, "high": 0.35}, False),
              charts.CurvePoint("atk <8>", 0.50, {"low": 0.45, "high": 0.55}, True),
              charts.CurvePoint("atk 12", None, None, False)]
    markup = charts.curve_chart(points, band={"low": 0.47, "high": 0.53}, label="Sweep")
    root = parsed(markup)
    (band,) = by_class(root, "band")
    assert len(by_class(root, "point")) == 1 and len(by_class(root, "point inside")) == 1  # none drawn for no figure
    (inside,) = by_class(root, "point inside")
    circle = inside.find(f"{SVG}circle")
    top, bottom = float(band.get("y")), float(band.get("y")) + float(band.get("height"))
    assert top < float(circle.get("cy")) < bottom  # 50% lies inside the band 47% to 53%
    (outside,) = by_class(root, "point")
    assert float(outside.find(f"{SVG}circle").get("cy")) > bottom  # 30% lies below it
    assert "atk &lt;8&gt;" in str(markup) and "inside it: atk <8>." in root.get("aria-label")
