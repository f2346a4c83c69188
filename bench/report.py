"""Turns a `make bench` run (.bench/results.csv and run.txt) into the markdown
docs/benchmarks.md shows (table.md) and the sweep plot (sweep.png).

usage: python3 bench/report.py .bench
"""

import csv
import sys
from collections import defaultdict
from pathlib import Path

# The targets of issue 13, at every size.
NATIVE_TARGET = 0.8
LUA_TARGET = 2.0


def size_label(size):
    n = int(size)
    for div, suffix in ((1_000_000, "M"), (1_000, "k")):
        if n >= div and n % div == 0:
            return f"{n // div}{suffix}"
    return str(n)


def ratio_cell(value, target):
    text = f"{value:.2f}x"
    return text if value >= target else f"**{text}**"


def main(out):
    run = dict(line.split("=", 1) for line in (out / "run.txt").read_text().splitlines() if "=" in line)
    rows = list(csv.DictReader((out / "results.csv").open()))
    by = defaultdict(dict)
    for row in rows:
        by[(row["section"], row["case"], row["size"])][row["variant"]] = row
    lines = []
    quick = " (BENCH_QUICK: a short run, not for comparison)" if run.get("quick") == "1" else ""
    lines.append(
        f"Run of {run['date']}, commit {run.get('commit', 'unknown')}: Redis {run['server']}, {run['unit']}, {run['requests']} requests x "
        f"{run['rounds']} rounds (median), {run['clients']} clients, pipeline {run['pipeline']}, "
        f"{run['minutes']} minutes{quick}."
    )

    sweep = [r for r in rows if r["section"] == "sweep" and r["variant"] == "zkit"]
    if sweep:
        cases = list(dict.fromkeys(r["case"] for r in sweep))
        sizes = sorted({int(r["size"]) for r in sweep})
        # The native commands of a case as bench/bench.py spells them
        # ("SISMEMBER x2 + SADD").
        natives = {r["case"]: r["value"] for r in rows if r["section"] == "sweep" and r["variant"] == "natives"}
        lines += [
            "",
            f"zkit vs the native commands it replaces, and vs the Lua a user would write, by size "
            f"(members in the key); bold: under {NATIVE_TARGET}x native or {LUA_TARGET}x Lua.",
            "",
            "| case | native | " + " | ".join(size_label(s) for s in sizes) + " |",
            "|---|---|" + "---|" * len(sizes),
        ]
        plot = {}
        for case in cases:
            cells, points = [], []
            for size in sizes:
                got = by.get(("sweep", case, str(size)), {})
                if "zkit" not in got:
                    cells.append("")
                    continue
                z = float(got["zkit"]["value"])
                n, l = (float(got[v]["value"]) if v in got else None for v in ("native", "lua"))
                cells.append(" / ".join(ratio_cell(z / other, target) if other else "-"
                                        for other, target in ((n, NATIVE_TARGET), (l, LUA_TARGET))))
                if n and l:
                    points.append((size, z / n, z / l))
            plot[case] = points
            lines.append(f"| {case} | {natives.get(case, '-')} | " + " | ".join(cells) + " |")
        lines += [
            "",
            f"zkit alone, {run['unit']}:",
            "",
            "| case | " + " | ".join(size_label(s) for s in sizes) + " |",
            "|---|" + "---|" * len(sizes),
        ]
        for case in cases:
            cells = []
            for size in sizes:
                got = by.get(("sweep", case, str(size)), {})
                cells.append(f"{float(got['zkit']['value']):,.0f}" if "zkit" in got else "")
            lines.append(f"| {case} | " + " | ".join(cells) + " |")
        write_plot(out / "sweep.png", plot, run)

    tax = [r for r in rows if r["section"] == "tax"]
    if tax:
        lines += [
            "",
            "Native writes on a server where DELAY.BPOLL has been used, against a server without zkit:",
            "",
            f"| native command | without zkit ({run['unit']}) | zkit, BPOLL used, nobody waiting | zkit, a client waiting on another key |",
            "|---|---|---|---|",
        ]
        for case in dict.fromkeys(r["case"] for r in tax):
            got = by[("tax", case, "-")]
            base = float(got["without-zkit"]["value"])
            used = float(got["bpoll-used"]["value"])
            waiting = float(got["client-waiting"]["value"])
            lines.append(f"| {case} | {base:,.0f} | {used / base:.3f}x | {waiting / base:.3f}x |")

    latency = [r for r in rows if r["section"] == "latency"]
    if latency:
        lines += [
            "",
            f"Latency at a fixed rate of {run['latency_rate']} requests/s ({run['latency_seconds']} s, "
            f"open loop, {size_label(run['latency_size'])} members), microseconds:",
            "",
            "| case | zkit p50 / p99 / p99.9 | native | native p50 / p99 / p99.9 |",
            "|---|---|---|---|",
        ]
        for case in dict.fromkeys(r["case"] for r in latency):
            got = {
                r["variant"]: r["value"]
                for r in latency
                if r["case"] == case
            }
            cells = {}
            for variant in ("zkit", "native"):
                keys = [k for k in got if k.startswith(variant + ":")]
                command = keys[0].split(":")[1] if keys else ""
                cells[variant] = (
                    command,
                    " / ".join(got.get(f"{variant}:{command}:{p}", "") for p in ("p50", "p99", "p99.9")),
                )
            lines.append(f"| {case} | {cells['zkit'][1]} | {cells['native'][0]} | {cells['native'][1]} |")

    memory = [r for r in rows if r["section"] == "memory"]
    if memory:
        msizes = sorted({int(r["size"]) for r in memory})
        lines += [
            "",
            "Memory: bytes per member of a key written by zkit / the same contents written natively:",
            "",
            "| family | " + " | ".join(size_label(s) for s in msizes) + " |",
            "|---|" + "---|" * len(msizes),
        ]
        for family in dict.fromkeys(r["case"] for r in memory):
            cells = []
            for size in msizes:
                got = by.get(("memory", family, str(size)), {})
                cells.append(f"{got['zkit']['value']} / {got['native']['value']}" if got else "")
            lines.append(f"| {family} | " + " | ".join(cells) + " |")

    long_rows = [r for r in rows if r["section"] == "long"]
    if long_rows:
        lines += ["", "How long one command holds the server (SLOWLOG, median of 3):", "", "| command | ms |", "|---|---|"]
        lines += [f"| {r['case']} | {float(r['value']):.1f} |" for r in long_rows]

    small = [r for r in rows if r["section"] == "small" and r["variant"] == "zkit"]
    if small:
        lines += [
            "",
            "Small boards: zkit on a busy board (moved to the skiplist layout by its first writes), against "
            "native commands on an integer board of the same size (ZINCRBY + ZREVRANK and the like: "
            "what a team has without first-come ties), the Lua a user would write (on the listpack a "
            "server gives a board), the same command on zkit 0.2's layout (a listpack of score text), "
            f"and zkit again after DEBUG RELOAD; bold: under {NATIVE_TARGET}x native or {LUA_TARGET}x Lua.",
            "",
            "| case | size | zkit | / integer native | / Lua | / 0.2 layout | after DEBUG RELOAD / integer native |",
            "|---|---|---|---|---|---|---|",
        ]
        for r in small:
            got = by[("small", r["case"], r["size"])]
            zkit = float(r["value"])

            def versus(variant, target=None, got=got, zkit=zkit):
                if variant not in got:
                    return "-"
                value = zkit / float(got[variant]["value"])
                return ratio_cell(value, target) if target else f"{value:.2f}x"

            reloaded = "-"
            if "zkit-after-reload" in got:
                # Against native measured in the same rounds when the run has it.
                native = got.get("native-integer-after-reload", got["native-integer"])
                value = float(got["zkit-after-reload"]["value"]) / float(native["value"])
                reloaded = ratio_cell(value, NATIVE_TARGET)
            lines.append(
                f"| {r['case']} | {r['size']} | {zkit:,.0f} | {versus('native-integer', NATIVE_TARGET)} | "
                f"{versus('lua', LUA_TARGET)} | {versus('zkit-0.2-layout')} | {reloaded} |"
            )
    small_memory = [r for r in rows if r["section"] == "small-memory"]
    if small_memory:
        names = {
            "z": "zkit after one write (listpack of score text)",
            "h": "zkit busy (skiplist)",
            "p": "zkit 0.2 (listpack of score text)",
            "n": "integer board (listpack)",
        }
        msizes = sorted({int(r["size"]) for r in small_memory})
        lines += [
            "",
            "Small boards, bytes per member (`MEMORY USAGE ... SAMPLES 0`):",
            "",
            "| board | " + " | ".join(str(s) for s in msizes) + " |",
            "|---|" + "---|" * len(msizes),
        ]
        for variant, name in names.items():
            cells = [by.get(("small-memory", "board", str(s)), {}).get(variant, {}).get("value", "") for s in msizes]
            lines.append(f"| {name} | " + " | ".join(cells) + " |")

    vote = out / "vote.txt"
    if vote.exists() and (out / "results.csv").stat().st_mtime <= vote.stat().st_mtime:
        lines += ["", "VOTE.CAST against its script and client round trips (bench/vote_load.rs):", "", "```"]
        lines += vote.read_text().rstrip().splitlines()
        lines += ["```"]

    (out / "table.md").write_text("\n".join(lines) + "\n")


def write_plot(path, plot, run):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4.8), sharex=True)
    for case, points in plot.items():
        if not points:
            continue
        xs = [p[0] for p in points]
        left.plot(xs, [p[1] for p in points], marker="o", label=case)
        right.plot(xs, [p[2] for p in points], marker="o", label=case)
    for axis, target, title in (
        (left, NATIVE_TARGET, "zkit / the native commands it replaces"),
        (right, LUA_TARGET, "zkit / the Lua a user would write"),
    ):
        axis.set_xscale("log")
        axis.set_yscale("log", base=2)
        axis.axhline(target, color="black", linestyle="--", linewidth=1)
        axis.set_title(title)
        axis.set_xlabel("members in the key")
        axis.grid(True, which="both", alpha=0.3)
        axis.yaxis.set_major_formatter(matplotlib.ticker.FormatStrFormatter("%.2gx"))
    left.set_ylabel(f"ratio of {run['unit']} (dashed: target)")
    right.legend(fontsize=8, loc="best")
    fig.suptitle(f"make bench, Redis {run['server']}, {run['date']}", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=100)


if __name__ == "__main__":
    main(Path(sys.argv[1]))
