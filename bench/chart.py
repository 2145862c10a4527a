"""A line chart as SVG, written by hand (no plotting library): one line per series, seconds along x."""

from __future__ import annotations

from html import escape

WIDTH, HEIGHT = 900, 420
LEFT, RIGHT, TOP, BOTTOM = 70, 260, 40, 50
COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b")


def line_chart(series: dict[str, list[float]], *, title: str, y_label: str) -> str:
    """``series``: a name and its values, one a second from 0."""
    longest = max((len(values) for values in series.values()), default=1) or 1
    top = max((max(values, default=0.0) for values in series.values()), default=1.0) or 1.0
    top = _nice(top)
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM

    def x(second: float) -> float:
        return LEFT + plot_w * second / max(1, longest - 1)

    def y(value: float) -> float:
        return TOP + plot_h * (1 - value / top)

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" font-family="sans-serif" '
        'font-size="12">',
        f'<rect width="{WIDTH}" height="{HEIGHT}" fill="white"/>',
        f'<text x="{LEFT}" y="22" font-size="14">{escape(title)}</text>',
        f'<line x1="{LEFT}" y1="{TOP + plot_h}" x2="{LEFT + plot_w}" y2="{TOP + plot_h}" stroke="black"/>',
        f'<line x1="{LEFT}" y1="{TOP}" x2="{LEFT}" y2="{TOP + plot_h}" stroke="black"/>',
        f'<text x="{LEFT + plot_w / 2}" y="{HEIGHT - 12}" text-anchor="middle">seconds</text>',
        f'<text x="16" y="{TOP + plot_h / 2}" transform="rotate(-90 16 {TOP + plot_h / 2})" text-anchor="middle">'
        f"{escape(y_label)}</text>",
    ]
    for tick in range(5):
        value = top * tick / 4
        parts.append(f'<text x="{LEFT - 6}" y="{y(value) + 4:.1f}" text-anchor="end">{value:,.0f}</text>')
        parts.append(f'<line x1="{LEFT}" y1="{y(value):.1f}" x2="{LEFT + plot_w}" y2="{y(value):.1f}" stroke="#ddd"/>')
    for tick in range(6):
        second = (longest - 1) * tick / 5
        parts.append(f'<text x="{x(second):.1f}" y="{TOP + plot_h + 16}" text-anchor="middle">{second:,.0f}</text>')
    for number, (name, values) in enumerate(series.items()):
        colour = COLOURS[number % len(COLOURS)]
        points = " ".join(f"{x(second):.1f},{y(value):.1f}" for second, value in enumerate(values))
        parts.append(f'<polyline fill="none" stroke="{colour}" stroke-width="1.5" points="{points}"/>')
        legend_y = TOP + 18 * number
        parts.append(
            f'<line x1="{WIDTH - RIGHT + 12}" y1="{legend_y}" x2="{WIDTH - RIGHT + 32}" y2="{legend_y}" '
            f'stroke="{colour}" stroke-width="3"/>'
        )
        parts.append(f'<text x="{WIDTH - RIGHT + 38}" y="{legend_y + 4}" font-size="10">{escape(name[:40])}</text>')
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def _nice(value: float) -> float:
    """The value rounded up to 1, 2 or 5 times a power of ten."""
    power = 10 ** (len(str(int(value))) - 1)
    for step in (1, 2, 5, 10):
        if value <= step * power:
            return float(step * power)
    return value
