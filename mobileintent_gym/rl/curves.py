"""Learning curves as PNG files: with matplotlib when it is installed, else drawn with Pillow."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

Series = Mapping[str, tuple[Sequence[float], Sequence[float]]]
COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd")
FONT = Path(__file__).resolve().parents[1] / "phone" / "fonts" / "Roboto-Regular.ttf"
SIZE, MARGIN = (900, 520), (80, 40, 50, 70)  # left, top, right, bottom


def plot_curves(series: Series, path: str | Path, title: str, xlabel: str, ylabel: str,
                ylim: tuple[float, float] | None = None,
                target: float | None = None) -> Path:
    """Draw each named (x, y) series as a line and write the PNG.

    Args:
        series: Name -> (xs, ys).
        path: The PNG to write (folders are made).
        title: Title above the plot.
        xlabel: Label of the x axis.
        ylabel: Label of the y axis.
        ylim: Range of the y axis (default: the data's).
        target: Draws a dashed horizontal line at this y.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        import matplotlib
    except ImportError:
        _pillow(series, path, title, xlabel, ylabel, ylim, target)
        return path
    matplotlib.use("Agg")
    from matplotlib import pyplot

    figure, axes = pyplot.subplots(figsize=(9, 5.2), dpi=100)
    for colour, (name, (xs, ys)) in zip(COLOURS * 4, series.items(), strict=False):
        axes.plot(xs, ys, marker="o", markersize=3, label=name, color=colour)
    if target is not None:
        axes.axhline(target, linestyle="--", color="grey")
    axes.set(title=title, xlabel=xlabel, ylabel=ylabel, ylim=ylim)
    axes.grid(alpha=0.3)
    axes.legend()
    figure.savefig(path)
    pyplot.close(figure)
    return path


def _pillow(series: Series, path: Path, title: str, xlabel: str, ylabel: str,
            ylim: tuple[float, float] | None, target: float | None) -> None:
    xs = [x for x_values, _ in series.values() for x in x_values] or [0.0, 1.0]
    ys = [y for _, y_values in series.values() for y in y_values] or [0.0, 1.0]
    x0, x1 = min(xs), max(xs) if max(xs) > min(xs) else min(xs) + 1
    y0, y1 = ylim or (min(ys), max(ys) if max(ys) > min(ys) else min(ys) + 1)
    left, top, right, bottom = MARGIN
    width, height = SIZE[0] - left - right, SIZE[1] - top - bottom

    def point(x: float, y: float) -> tuple[float, float]:
        return (left + (x - x0) / (x1 - x0) * width, top + (1 - (y - y0) / (y1 - y0)) * height)

    image = Image.new("RGB", SIZE, "white")
    draw = ImageDraw.Draw(image)
    font = ImageFont.truetype(str(FONT), 14)
    draw.rectangle((left, top, left + width, top + height), outline="black")
    for fx in _ticks(x0, x1):
        px, _ = point(fx, y0)
        draw.line((px, top, px, top + height), fill="#e6e6e6")
        draw.text((px, top + height + 6), f"{fx:,.6g}", fill="black", font=font, anchor="ma")
    for fy in _ticks(y0, y1):
        _, py = point(x0, fy)
        draw.line((left, py, left + width, py), fill="#e6e6e6")
        draw.text((left - 6, py), f"{fy:.6g}", fill="black", font=font, anchor="rm")
    if target is not None:
        _dashed(draw, point(x0, target), point(x1, target))
    for colour, (name, (x_values, y_values)) in zip(COLOURS * 4, series.items(), strict=False):
        points = [point(x, y) for x, y in zip(x_values, y_values, strict=True)]
        if len(points) > 1:
            draw.line(points, fill=colour, width=2)
        for px, py in points:
            draw.ellipse((px - 3, py - 3, px + 3, py + 3), fill=colour)
        legend_y = top + 10 + 20 * list(series).index(name)
        draw.line((left + 12, legend_y, left + 36, legend_y), fill=colour, width=3)
        draw.text((left + 42, legend_y), name, fill="black", font=font, anchor="lm")
    draw.text((SIZE[0] / 2, 12), title, fill="black", font=font, anchor="ma")
    draw.text((left + width / 2, SIZE[1] - 24), xlabel, fill="black", font=font, anchor="ma")
    label = Image.new("RGB", (height, 20), "white")
    ImageDraw.Draw(label).text((height / 2, 10), ylabel, fill="black", font=font, anchor="mm")
    image.paste(label.rotate(90, expand=True), (8, top))
    image.save(path)


def _ticks(low: float, high: float, most: int = 6) -> list[float]:
    """Round tick values (1, 2 or 5 times a power of ten apart) from ``low`` to ``high``."""
    raw = (high - low) / most
    power = 10 ** math.floor(math.log10(raw))
    step = next(power * m for m in (1, 2, 5, 10) if power * m >= raw)
    first = math.ceil(low / step) * step
    return [first + i * step for i in range(int((high - first) / step + 1e-9) + 1)]


def _dashed(draw: ImageDraw.ImageDraw, start: tuple[float, float],
            end: tuple[float, float]) -> None:
    (sx, sy), (ex, _) = start, end
    x = sx
    while x < ex:
        draw.line((x, sy, min(x + 8, ex), sy), fill="grey", width=1)
        x += 14
