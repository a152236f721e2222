"""The report's per-layer figure as SVG text, written by hand (no matplotlib, no pandas).

The same two panels as :func:`accel_sim.pipeline.plot.layers.layer_overview`: cycles per layer split into
compute and memory stall, and energy per layer by component (stacked bars, a legend, the layer
names under the bars). Drawing it costs microseconds per layer, so ``accel-sim run`` draws it
for any network; the matplotlib version stays for notebooks and custom figures.
"""
from __future__ import annotations

from collections.abc import Sequence


def escape(text: str) -> str:
    """``&``, ``<`` and ``>`` as XML entities (what ``xml.sax.saxutils.escape`` does, without the
    tens of milliseconds of ``urllib`` and ``email`` that module imports)."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


# matplotlib's default colour cycle ("tab10"), so the figure looks like the other figures
COLOURS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22",
           "#17becf")
BAR_PITCH, PANEL_HEIGHT, LEFT, RIGHT, TOP, LABELS = 18, 220, 80, 190, 40, 110   # px
CHAR_WIDTH, AXIS_TITLE = 6.5, 24  # px: width of one character of a layer name (font size 10), the x-axis title
X_TITLE = "layer (in execution order)"
TICKS = 4  # horizontal grid lines above zero in each panel


def _nice_top(value: float) -> float:
    """The smallest 1 / 2 / 5 x 10^k >= ``value`` (the top of an axis)."""
    if value <= 0:
        return 1.0
    scale = 10.0 ** len(str(int(value))) / 10.0 if value >= 1 else 1.0
    while scale > value:
        scale /= 10.0
    for step in (1, 2, 5, 10):
        if step * scale >= value:
            return step * scale
    return 10 * scale


def _number(value: float) -> str:
    """An axis label: whole numbers with thousands separators, others to 3 significant digits."""
    if value == int(value) and abs(value) < 1e9:
        return f"{int(value):,}"
    return f"{value:.3g}"


def _panel(y0: float, width: float, names: Sequence[str], stacks: Sequence[tuple[str, Sequence[float]]],
           unit: str) -> list[str]:
    """One panel of stacked bars, its axis and legend; ``stacks`` = (label, value per layer) bottom up."""
    totals = [sum(values[i] for _, values in stacks) for i in range(len(names))]
    top = _nice_top(max(totals, default=0.0))
    scale = PANEL_HEIGHT / top
    out = [f'<text x="{LEFT - 60}" y="{y0 + PANEL_HEIGHT / 2}" transform="rotate(-90 {LEFT - 60} '
           f'{y0 + PANEL_HEIGHT / 2})" text-anchor="middle">{escape(unit)}</text>']
    for tick in range(TICKS + 1):
        y = y0 + PANEL_HEIGHT - tick * PANEL_HEIGHT / TICKS
        out.append(f'<line x1="{LEFT}" y1="{y:.1f}" x2="{LEFT + width}" y2="{y:.1f}" stroke="#ddd"/>')
        out.append(f'<text x="{LEFT - 4}" y="{y + 4:.1f}" text-anchor="end">{_number(tick * top / TICKS)}</text>')
    for i in range(len(names)):
        bottom = 0.0
        for k, (label, values) in enumerate(stacks):
            height = values[i] * scale
            if height > 0:
                y = y0 + PANEL_HEIGHT - (bottom + values[i]) * scale
                out.append(f'<rect x="{LEFT + i * BAR_PITCH + 2}" y="{y:.2f}" width="{BAR_PITCH - 4}" '
                           f'height="{height:.2f}" fill="{COLOURS[k % len(COLOURS)]}"><title>{escape(names[i])} '
                           f'{escape(label)}: {values[i]:.6g}</title></rect>')
            bottom += values[i]
    for k, (label, _) in enumerate(stacks):
        y = y0 + 12 + 16 * k
        out.append(f'<rect x="{LEFT + width + 10}" y="{y - 9}" width="10" height="10" '
                   f'fill="{COLOURS[k % len(COLOURS)]}"/>')
        out.append(f'<text x="{LEFT + width + 24}" y="{y}">{escape(label)}</text>')
    return out


def layer_overview_svg(rows: Sequence[dict[str, object]], title: str = "") -> str:
    """Cycles (compute, stall) and energy by component per layer, from report rows
    (:meth:`accel_sim.pipeline.run_result.RunResult.layer_rows`)."""
    names = [str(row["layer"]) for row in rows]
    width = max(1, len(rows)) * BAR_PITCH
    energy_columns = list(dict.fromkeys(key for row in rows for key in row
                                        if key.startswith("energy_") and key != "energy_pj"))
    cycles = [("compute", [float(row["compute_cycles"]) for row in rows]),
              ("memory stall", [float(row["stall_cycles"]) for row in rows])]
    energy = [(column[len("energy_"):-len("_pj")], [float(row.get(column, 0.0)) / 1e6 for row in rows])
              for column in energy_columns]
    second = TOP + PANEL_HEIGHT + 30
    labels = max(LABELS, int(CHAR_WIDTH * max((len(n) for n in names), default=0)) + 12)  # whole names, never cut
    total_w, total_h = LEFT + width + RIGHT, second + PANEL_HEIGHT + labels + AXIS_TITLE
    body = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{total_w}" height="{total_h}" '
            f'viewBox="0 0 {total_w} {total_h}" font-family="sans-serif" font-size="11">',
            f'<rect width="{total_w}" height="{total_h}" fill="white"/>',
            f'<text x="{total_w / 2}" y="20" text-anchor="middle" font-size="14">{escape(title)}</text>']
    body += _panel(TOP, width, names, cycles, "cycles")
    body += _panel(second, width, names, energy, "energy (uJ)")
    base = second + PANEL_HEIGHT + 6
    for i, name in enumerate(names):
        x = LEFT + i * BAR_PITCH + BAR_PITCH / 2
        body.append(f'<text x="{x:.1f}" y="{base}" transform="rotate(-90 {x:.1f} {base})" text-anchor="end" '
                    f'dominant-baseline="middle" font-size="10">{escape(name)}</text>')
    body.append(f'<text x="{LEFT + width / 2:.1f}" y="{total_h - 8}" text-anchor="middle">{X_TITLE}</text>')
    body.append("</svg>")
    return "\n".join(body) + "\n"
