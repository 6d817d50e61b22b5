"""A picture of the tool graph a person can read: one column per entity, its tools beneath it,
an arrow from an entity to each tool its rows feed (only flows of confidence at or above a
threshold), and the flows left out listed under the picture.

A tool graph's out-edges depend only on the entity the source tool yields (``graph._flows``), so
every tool of a column has the same arrows: drawing them once, from the column's head, says
exactly what the tool-to-tool edges say, without the hairball.
"""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any, NamedTuple

import networkx as nx

INDENT = 0.5  # inches from an entity's box to its tools
WRAP = 72  # characters in a line of a tool's sources
DPI = 110  # the figure's own (connection styles measure in its pixels)
LANE = 0.55  # data units between the lanes of the brackets over the columns
MIN_CONFIDENCE = 0.6  # flows below this are listed, not drawn (name matches across entities: 0.3)
OTHER = "(no entity)"


class EntityFlow(NamedTuple):
    """The rows of ``entity`` feed ``tool``: ``flows`` are (field, argument, confidence)."""

    entity: str
    tool: str
    flows: tuple[tuple[str, str, float], ...]

    @property
    def weight(self) -> float:
        return max(c for *_, c in self.flows)

    def describe(self) -> str:
        return "; ".join(f"{self.entity}.{f} -> {self.tool}({a}) {c:.1f}" for f, a, c in self.flows)


def columns(graph: nx.DiGraph) -> dict[str, list[str]]:
    """Tools grouped by the entity they yield (else the one they act on), reads before writes."""
    out: dict[str, list[str]] = {}
    for tool, data in graph.nodes(data=True):
        out.setdefault(data.get("yields") or data.get("entity") or OTHER, []).append(tool)
    return {e: sorted(tools, key=lambda t: bool(graph.nodes[t]["write"])) for e, tools in out.items()}


def entity_flows(graph: nx.DiGraph) -> list[EntityFlow]:
    """The graph's edges gathered by (entity the source yields, target tool), flows deduplicated."""
    gathered: dict[tuple[str, str], dict[tuple[str, str], float]] = {}
    for src, dst, data in graph.edges(data=True):
        entity = graph.nodes[src].get("yields")
        if entity is None:
            continue
        flows = gathered.setdefault((entity, dst), {})
        for field, arg, confidence in data["flows"]:
            flows[(field, arg)] = max(confidence, flows.get((field, arg), 0.0))
    return [
        EntityFlow(entity, tool, tuple((f, a, c) for (f, a), c in flows.items()))
        for (entity, tool), flows in gathered.items()
    ]


def split_by_confidence(
    flows: list[EntityFlow], threshold: float = MIN_CONFIDENCE
) -> tuple[list[EntityFlow], list[EntityFlow]]:
    """(drawn, listed): each flow kept where its confidence reaches ``threshold``, the rest listed."""
    drawn, listed = [], []
    for flow in flows:
        high = tuple(f for f in flow.flows if f[2] >= threshold)
        low = tuple(f for f in flow.flows if f[2] < threshold)
        if high:
            drawn.append(flow._replace(flows=high))
        if low:
            listed.append(flow._replace(flows=low))
    return drawn, listed


def footer_lines(listed: list[EntityFlow]) -> list[str]:
    """The flows left out of the picture, one line each, or one line per (field, argument,
    confidence) they share when several do (every entity's ``raw`` into every list's ``raw``)."""
    groups: dict[tuple[str, str, float], list[tuple[str, str]]] = {}
    for flow in listed:
        for field, arg, confidence in flow.flows:
            groups.setdefault((field, arg, confidence), []).append((flow.entity, flow.tool))
    lines = []
    for (field, arg, confidence), pairs in groups.items():
        if len(pairs) == 1:
            lines.append(EntityFlow(pairs[0][0], pairs[0][1], ((field, arg, confidence),)).describe())
            continue
        entities = ", ".join(dict.fromkeys(e for e, _ in pairs))
        tools = ", ".join(dict.fromkeys(t for _, t in pairs))
        lines.append(f"{field} -> {arg} {confidence:.1f}, {len(pairs)} flows: from {entities} into {tools}")
    return lines


def draw(graph: nx.DiGraph, path: str | Path, threshold: float = MIN_CONFIDENCE) -> Path:
    """Write the PNG picture; returns its path."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    path = Path(path)
    cols = columns(graph)
    drawn, listed = split_by_confidence(entity_flows(graph), threshold)
    footer = [line for text in footer_lines(listed) for line in textwrap.wrap(text, 160, subsequent_indent="    ")]
    fed = _across(cols, drawn)
    above = 0.8 + LANE * (len(fed) + 1)  # room for a lane per pair of entities
    feeds = _feeds(drawn)
    lefts = _lefts(cols, feeds)
    depths = _depths(cols, feeds)
    tallest = max(depths.values(), default=1.0)
    rows = tallest + 1.5 + 0.45 * len(footer)
    width = max(lefts[-1], 8.0)  # horizontal data units are inches
    fig = plt.figure(figsize=(width, 0.42 * (rows + above)), dpi=DPI)
    ax = fig.add_axes((0.0, 0.0, 1.0, 1.0))
    ax.set_xlim(-0.1, width)
    ax.set_ylim(-rows, above)
    ax.axis("off")
    heads, boxes = _boxes(ax, graph, cols, feeds, lefts, depths)
    fig.canvas.draw()  # arrows attach to the boxes' drawn extents
    for flow in drawn:
        if flow.tool in cols.get(flow.entity, ()):
            _bus(ax, heads[flow.entity], boxes[flow.tool], flow.weight)
    _between(ax, heads, list(cols), fed)
    ax.text(0, above, f"{graph.name}: tool dependency graph. A column per entity: the tools that yield its rows "
            f"(red: writes state); an arrow: those rows feed a tool, confidence >= {threshold}", fontsize=10,
            va="top")  # fmt: skip
    if footer:
        top = -(tallest + 0.9)
        ax.text(0, top, f"Not drawn (confidence < {threshold}):", fontsize=8, va="top", weight="bold")
        for i, line in enumerate(footer):
            ax.text(0.3, top - 0.45 * (i + 1), line, fontsize=8, va="top", color="#555555")
    fig.savefig(path, dpi=DPI, bbox_inches="tight")
    plt.close(fig)
    return path


def _short(entity: str, field: str, arg: str, confidence: float) -> str:
    return f"{entity}.{field}" + (f" as {arg}" if arg != field else "") + f" {confidence:.1f}"


def _feeds(drawn: list[EntityFlow]) -> dict[str, str]:
    """Each fed tool's line: where its arguments come from, wrapped between sources."""
    feeds: dict[str, list[str]] = {}
    for flow in drawn:
        feeds.setdefault(flow.tool, []).extend(_short(flow.entity, *f) for f in flow.flows)
    kept = {tool: ["<-", *(p.replace(" ", "\N{NO-BREAK SPACE}") + "," for p in parts)] for tool, parts in feeds.items()}
    return {tool: "\n".join(textwrap.wrap(" ".join(words), WRAP))[:-1] for tool, words in kept.items()}


def _lefts(cols: dict[str, list[str]], feeds: dict[str, str]) -> list[float]:
    """Each column's left edge in inches (and the right edge of the last), from its widest line:
    about 0.075 in a character at 9 points, 0.058 at 7."""
    lefts = [0.0]
    for entity, tools in cols.items():
        widest = max(
            [0.09 * len(entity)]
            + [INDENT + 0.075 * len(t) + 0.1 + 0.058 * max(map(len, feeds.get(t, "").splitlines()), default=0)
               for t in tools]
        )  # fmt: skip
        lefts.append(lefts[-1] + widest + 0.5)
    return lefts


def _depths(cols: dict[str, list[str]], feeds: dict[str, str]) -> dict[str, float]:
    """How far below its entity each tool sits: a row apiece, more for a tool with many sources."""
    depths = {}
    for tools in cols.values():
        y = 0.0
        for tool in tools:
            lines = len(feeds.get(tool, "").splitlines())
            y += max(1.0, 0.28 * lines + 0.25)
            depths[tool] = y
    return depths


def _boxes(ax: Any, graph: nx.DiGraph, cols: dict[str, list[str]], feeds: dict[str, str], lefts: list[float],
           depths: dict[str, float]) -> tuple[dict, dict]:  # fmt: skip
    heads, boxes = {}, {}
    for i, (entity, tools) in enumerate(cols.items()):
        x = lefts[i]
        heads[entity] = ax.text(x, 0, entity, fontsize=11, weight="bold", va="center",
                                bbox={"boxstyle": "round", "fc": "#f3f3f3", "ec": "#888888"})  # fmt: skip
        for tool in tools:
            write = graph.nodes[tool]["write"]
            boxes[tool] = ax.text(x + INDENT, -depths[tool], tool, fontsize=9, va="center",
                                  bbox={"boxstyle": "round", "fc": "#f9d6d5" if write else "#dbe8f6",
                                        "ec": "#d9534f" if write else "#5b9bd5"})  # fmt: skip
            if tool in feeds:
                ax.annotate(feeds[tool], (1, 0.5), xycoords=boxes[tool], xytext=(4, 0), textcoords="offset points",
                            va="center", linespacing=1.1,
                            fontsize=7, color="#555555")  # fmt: skip
    return heads, boxes


def _bus(ax: Any, head: Any, box: Any, w: float) -> None:
    """An arrow from an entity down its column's spine into one of its tools."""
    ax.annotate("", xy=(0, 0.5), xycoords=box, xytext=(0.2, 0), textcoords=head,
                arrowprops={"arrowstyle": "-|>", "connectionstyle": "angle,angleA=-90,angleB=180,rad=0",
                            "lw": 0.4 + w, "color": "#444444", "shrinkA": 0, "shrinkB": 2})  # fmt: skip


def _across(cols: dict[str, list[str]], drawn: list[EntityFlow]) -> dict[tuple[str, str], list[EntityFlow]]:
    """The flows from one entity into another entity's column, by (entity, column)."""
    fed: dict[tuple[str, str], list[EntityFlow]] = {}
    home = {tool: entity for entity, tools in cols.items() for tool in tools}
    for flow in drawn:
        if home.get(flow.tool) not in (flow.entity, None):
            fed.setdefault((flow.entity, home[flow.tool]), []).append(flow)
    return fed


def _between(ax: Any, heads: dict[str, Any], order: list[str], fed: dict[tuple[str, str], list[EntityFlow]]) -> None:
    """One bracket over the columns per pair of entities whose rows feed the other's tools, each in
    its own lane, labelled with those tools (each tool's own line says which fields)."""
    pairs = sorted(fed, key=lambda p: (abs(order.index(p[0]) - order.index(p[1])), order.index(p[0])))
    spots = _spots(pairs, order)
    for lane, (src, dst) in enumerate(pairs):
        rightwards = order.index(src) < order.index(dst)
        a, b = _anchor(ax, heads[src], spots[src, lane]), _anchor(ax, heads[dst], spots[dst, lane])
        top = max(a[1], b[1]) + LANE * (lane + 1)
        arm = -_pixels(ax, top - a[1]) if rightwards else _pixels(ax, top - a[1])  # the arms go up either way
        ax.annotate("", xy=b, xycoords="data", xytext=a, textcoords="data",
                    arrowprops={"arrowstyle": "-|>", "connectionstyle": f"bar,armA={arm},armB={arm},fraction=0",
                                "color": "#2c7fb8", "lw": 0.4 + max(f.weight for f in fed[src, dst]),
                                "shrinkA": 0, "shrinkB": 0})  # fmt: skip
        label = f"{src} -> " + ", ".join(sorted(f.tool for f in fed[src, dst]))
        ax.text((a[0] + b[0]) / 2, top, label, fontsize=7.5, color="#2c7fb8", ha="center", va="bottom")


def _spots(pairs: list[tuple[str, str]], order: list[str]) -> dict[tuple[str, int], float]:
    """Where each lane's bracket meets each of its two boxes (a fraction of the box's width): the
    brackets to the right in the box's right half, those to the left in its left half, a higher lane
    further out, so that no bracket crosses another."""
    ends: dict[tuple[str, bool], list[int]] = {}
    for lane, (src, dst) in enumerate(pairs):
        for here, there in ((src, dst), (dst, src)):
            ends.setdefault((here, order.index(there) > order.index(here)), []).append(lane)
    spots = {}
    for (entity, right), lanes in ends.items():
        step = 0.35 / max(len(lanes) - 1, 1)
        for k, lane in enumerate(sorted(lanes)):
            spots[entity, lane] = (0.9 - k * step if right else 0.1 + k * step) if len(lanes) > 1 else (
                0.72 if right else 0.28)  # fmt: skip
    return spots


def _anchor(ax: Any, head: Any, fraction: float) -> tuple[float, float]:
    """A point on the top edge of an entity's box (``fraction`` of the way across), in data units."""
    box = head.get_window_extent().transformed(ax.transData.inverted())
    return (box.x0 + fraction * (box.x1 - box.x0), box.y1)


def _pixels(ax: Any, height: float) -> float:
    """A height in data units as display units (pixels), which connection styles measure in."""
    (_, y0), (_, y1) = ax.transData.transform((0, 0)), ax.transData.transform((0, height))
    return float(y1 - y0)


__all__ = ["MIN_CONFIDENCE", "EntityFlow", "columns", "draw", "entity_flows", "footer_lines", "split_by_confidence"]
