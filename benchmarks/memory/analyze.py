#!/usr/bin/env python3
"""Reads <work>/runs/index.jsonl (the work folder of run.py) and the run directories; prints the tables of RESULTS.md (markdown).

    analyze.py rss          peak RSS per workload x variant
    analyze.py nmt [mode]   NMT breakdown (mode nmt = JDK 17, nmt25 = JDK 25): snapshot and at exit
    analyze.py pools        the agent's own figure of its pages, from the recorded runs' .jfr (pools.jar report)
"""
import json
import os
import re
import statistics
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
G = Path(os.environ.get("POOLS_MEMORY_WORK", ROOT / "benchmarks/target/memory"))
RUNS = G / "runs"
MiB = 1024.0
WL = {"b3": "B3 sample app", "b6djl": "B6 DJL PyTorch serve", "b6ort": "B6 ONNX Runtime embedding service"}


def index(mode):
    rows = [json.loads(l) for l in (RUNS / "index.jsonl").read_text().splitlines() if l.strip()]
    return [r for r in rows if r["mode"] == mode and r["rc"] == 0]


def rundir(r):
    return RUNS / r["mode"] / r["workload"] / f"r{r['round']}-{r['variant']}"


def med(v):
    return statistics.median(v) if v else float("nan")


def fmt(x, d=1):
    return "n/a" if x != x else f"{x:.{d}f}"


def sfmt(x, d=1):
    return "n/a" if x != x else f"{x:+.{d}f}"


def rss_tables():
    rows = index("rss")
    by = defaultdict(lambda: defaultdict(list))
    for r in rows:
        by[r["workload"]][r["variant"]].append(r)
    for w in WL:
        if w not in by:
            continue
        base = med([r["maxrss_kib"] / MiB for r in by[w]["1-none"]])
        print(f"\n#### {WL[w]}: peak RSS (`/usr/bin/time` maxrss, MiB), JDK 17\n")
        print("| variant | runs | median | min .. max | ratio | Δ median | sampled max VmRSS: RssAnon / RssFile (median) | max threads (median) |")
        print("|---|---|---|---|---|---|---|---|")
        for v in sorted(by[w]):
            rs = by[w][v]
            m = [r["maxrss_kib"] / MiB for r in rs]
            anon = med([r["sampler"]["max"]["RssAnon"] / MiB for r in rs if r["sampler"]["max"]])
            file = med([r["sampler"]["max"]["RssFile"] / MiB for r in rs if r["sampler"]["max"]])
            thr = med([r["sampler"]["max_threads"] for r in rs])
            print(f"| {v} | {len(m)} | {fmt(med(m))} | {fmt(min(m))} .. {fmt(max(m))} | {med(m) / base:.3f} | "
                  f"{sfmt(med(m) - base)} | {fmt(anon)} / {fmt(file)} | {thr:.0f} |")


UNIT = {"KB": 1.0, "MB": 1024.0, "GB": 1024.0 * 1024, "": 1 / 1024.0, "B": 1 / 1024.0}
CAT = re.compile(r"^-\s+(.+?) \(reserved=(\d+)(KB|MB|GB|B)?, committed=(\d+)(KB|MB|GB|B)?")
TOTAL = re.compile(r"^Total: reserved=(\d+)(KB|MB|GB|B)?, committed=(\d+)(KB|MB|GB|B)?")
PEAK = re.compile(r"\((malloc|mmap|arena|stack)[:=].*?peak=(\d+)(KB|MB|GB|B)?")
MALLOC = re.compile(r"\(malloc=(\d+)(KB|MB|GB|B)?")
NUM = re.compile(r"\(threads? #(\d+)\)")


def parse_nmt(text):
    """{category: committed KiB}, plus 'Total', and '<cat> peak' (sum of the malloc/mmap/arena/stack peaks, JDK 25)."""
    out = {}
    cat = None
    start = text.find("Native Memory Tracking:")
    if start < 0:
        return out
    for line in text[start:].splitlines():
        m = TOTAL.match(line)
        if m:
            out["Total"] = int(m.group(3)) * UNIT[m.group(4) or ""]
            continue
        m = CAT.match(line)
        if m:
            cat = m.group(1).strip()
            out[cat] = out.get(cat, 0) + int(m.group(4)) * UNIT[m.group(5) or ""]
            continue
        if cat and line.startswith(" "):
            pk = PEAK.search(line)
            if pk:
                out.setdefault(cat + " peak", 0)
                out[cat + " peak"] += int(pk.group(2)) * UNIT[pk.group(3) or ""]
            elif "at peak" in line:
                mm = re.search(r"(malloc|arena|mmap: reserved=\d+\w*, committed)=(\d+)(KB|MB|GB|B)?", line)
                if mm:
                    out.setdefault(cat + " peak", 0)
                    out[cat + " peak"] += int(mm.group(2)) * UNIT[mm.group(3) or ""]
            if cat == "Thread":
                t = NUM.search(line)
                if t:
                    out["threads #"] = int(t.group(1)) * 1024  # shown /1024 as a count
            if cat == "Other":
                mm = MALLOC.search(line)
                if mm:
                    out["Other malloc"] = int(mm.group(1)) * UNIT[mm.group(2) or ""]
        elif not line.strip():
            pass
    return out


def heap_rss(d):
    """KiB resident in the Java heap's reserved range, from snapshot-smaps.txt and the heap address in gc.txt."""
    gc = (d / "gc.txt").read_text() if (d / "gc.txt").exists() else ""
    m = re.search(r"Heap address: 0x([0-9a-f]+), size: (\d+) MB", gc)
    sm = d / "snapshot-smaps.txt"
    if not m or not sm.exists() or sm.stat().st_size == 0:
        return float("nan")
    lo = int(m.group(1), 16)
    hi = lo + int(m.group(2)) * 1024 * 1024
    total = 0
    inside = False
    for line in sm.read_text().splitlines():
        h = re.match(r"^([0-9a-f]+)-([0-9a-f]+) ", line)
        if h:
            a, b = int(h.group(1), 16), int(h.group(2), 16)
            inside = a >= lo and b <= hi
            continue
        if inside and line.startswith("Rss:"):
            total += int(line.split()[1])
    return total


def status_of(path):
    d = {}
    if path.exists():
        for line in path.read_text().splitlines():
            k, _, v = line.partition(":")
            if k in ("VmRSS", "VmHWM", "RssAnon", "RssFile", "RssShmem"):
                d[k] = int(v.split()[0])
    return d


SHOW = ["Java Heap", "Java Heap RSS", "Class", "Metaspace", "Shared class space", "Thread", "Code", "GC", "GCCardSet",
        "Compiler", "Internal", "Other", "Symbol", "Tracing", "Arena Chunk", "Module", "Synchronization",
        "Native Memory Tracking", "Serviceability", "rest", "Total", "NMT resident est.", "RssAnon", "RssFile",
        "VmRSS", "untracked"]


def breakdown(r, where):
    d = rundir(r)
    if where == "snapshot":
        nmt = parse_nmt((d / "snapshot-nmt.txt").read_text()) if (d / "snapshot-nmt.txt").exists() else {}
        st = status_of(d / "snapshot-status.txt")
        hr = heap_rss(d)
    else:
        nmt = parse_nmt((d / "stdout.txt").read_text())
        st = {}
        hr = float("nan")
    if "Total" not in nmt:
        return None
    row = dict(nmt)
    named = sum(v for k, v in nmt.items() if k in SHOW and k != "Total")
    row["rest"] = nmt["Total"] - named
    row["Java Heap RSS"] = hr
    if st:
        row.update({k: float(v) for k, v in st.items()})
        # resident estimate of what NMT tracks: committed, but the heap counted by its smaps RSS and the CDS
        # archive left out (a file mapping, in RssFile)
        row["NMT resident est."] = nmt["Total"] - nmt.get("Java Heap", 0) + hr - nmt.get("Shared class space", 0)
        row["untracked"] = st["RssAnon"] - row["NMT resident est."]
    return row


def nmt_tables(mode, where):
    rows = index(mode)
    by = defaultdict(lambda: defaultdict(list))
    for r in rows:
        b = breakdown(r, where)
        if b:
            by[r["workload"]][r["variant"]].append(b)
    jdk = "JDK 25" if "25" in mode else "JDK 17"
    for w in WL:
        if w not in by:
            continue
        variants = sorted(by[w])
        base = {k: med([b.get(k, 0) for b in by[w]["1-none"]]) for k in SHOW}
        n = {v: len(by[w][v]) for v in variants}
        what = ("jcmd VM.native_memory summary mid-run + /proc at the same moment" if where == "snapshot"
                else "-XX:+PrintNMTStatistics at exit")
        print(f"\n#### {WL[w]}: NMT committed, MiB ({what}; {jdk})\n")
        print("First column: median of no agent (min..max); other columns: difference of the medians to no agent.\n")
        print("| category | 1-none | " + " | ".join(f"{v} (n={n[v]})" for v in variants if v != "1-none") + " |")
        print("|---|---|" + "---|" * (len(variants) - 1))
        for k in SHOW:
            vals = [b.get(k, 0) for b in by[w]["1-none"]]
            if all(v != v for v in vals) or (where == "exit" and k in ("Java Heap RSS", "NMT resident est.", "RssAnon", "RssFile", "VmRSS", "untracked")):
                continue
            cells = [f"{fmt(med(vals) / MiB)} ({fmt(min(vals) / MiB)}..{fmt(max(vals) / MiB)})"]
            for v in variants:
                if v == "1-none":
                    continue
                cells.append(sfmt((med([b.get(k, 0) for b in by[w][v]]) - base[k]) / MiB))
            print(f"| {k} | " + " | ".join(cells) + " |")
        if where == "exit":
            print(f"\n{jdk} peaks at exit (NMT's own per-category peak, sum of its malloc/mmap/arena/stack peaks), MiB, median; JDK 17: malloc + arena peaks only; Compiler includes its arena, which Arena Chunk also counts:\n")
            pk = ["Other peak", "Tracing peak", "Thread peak", "Code peak", "Metaspace peak", "Class peak", "Compiler peak",
                  "Arena Chunk peak", "Internal peak", "GC peak"]
            if "25" not in mode:  # JDK 17 prints peaks of malloc and arena only, not of mmap or stacks
                pk = ["Other peak", "Tracing peak", "Compiler peak", "Arena Chunk peak"]
            print("| peak | " + " | ".join(variants) + " |")
            print("|---|" + "---|" * len(variants))
            for k in pk:
                print(f"| {k} | " + " | ".join(fmt(med([b.get(k, 0) for b in by[w][v]]) / MiB) for v in variants) + " |")


def pools_reports():
    rows = [r for r in index("rss") + index("nmt") + index("nmt17b") + index("nmt25") if "-rec" in r["variant"]]
    for r in rows:
        d = rundir(r)
        out = d / "pools-report.txt"
        jfrs = sorted(d.glob("pools-*.jfr")) + sorted(d.glob("capped.jfr"))
        if not jfrs:
            continue
        if not out.exists():
            p = subprocess.run(["java", "-jar", str(ROOT / "agent/target/pools.jar"), "report", str(jfrs[0])], capture_output=True, text=True)
            out.write_text(p.stdout + p.stderr)
    by = defaultdict(list)
    for r in rows:
        out = rundir(r) / "pools-report.txt"
        if not out.exists():
            continue
        t = out.read_text()
        m = re.search(r"peak over the run: +([\d.]+) (KiB|MiB|GiB|B) reserved, ([\d.]+) (KiB|MiB|GiB|B) in use", t)
        dm = re.search(r"JDK direct buffers +([\d.]+) (KiB|MiB|GiB|B)\s+the pools' pages included; ([\d.]+) (KiB|MiB|GiB|B) outside", t)
        u = {"B": 1 / 2**20, "KiB": 1 / 1024, "MiB": 1, "GiB": 1024}
        if m:
            by[(r["mode"], r["workload"], r["variant"])].append(
                (float(m.group(1)) * u[m.group(2)], float(m.group(3)) * u[m.group(4)],
                 float(dm.group(1)) * u[dm.group(2)] if dm else float("nan"), float(dm.group(3)) * u[dm.group(4)] if dm else float("nan")))
    print("\n| mode | workload | variant | runs | pools peak reserved MiB (median, min..max) | peak in use | JDK direct buffers peak (pages incl.) | direct outside pools |")
    print("|---|---|---|---|---|---|---|---|")
    for k in sorted(by):
        v = by[k]
        res = [x[0] for x in v]
        print(f"| {k[0]} | {k[1]} | {k[2]} | {len(v)} | {fmt(med(res))} ({fmt(min(res))}..{fmt(max(res))}) | "
              f"{fmt(med([x[1] for x in v]))} | {fmt(med([x[2] for x in v]))} | {fmt(med([x[3] for x in v]), 3)} |")


def peak_tables(mode):
    """At the sample of the largest VmRSS: RssAnon split into the heap's resident part (smaps of the heap range,
    read every 250 ms), NMT's non-heap categories (committed at exit, the CDS archive left out) and the rest."""
    rows = index(mode)
    by = defaultdict(lambda: defaultdict(list))
    for r in rows:
        mx = r["sampler"]["max"]
        if not mx or mx.get("heap_rss") is None:
            continue
        nmt = parse_nmt((rundir(r) / "stdout.txt").read_text())
        if "Total" not in nmt:
            continue
        nonheap = nmt["Total"] - nmt.get("Java Heap", 0) - nmt.get("Shared class space", 0)
        e = {"VmRSS": mx["VmRSS"], "RssFile": mx["RssFile"], "RssAnon": mx["RssAnon"], "heap RSS": mx["heap_rss"],
             "heap committed (exit)": nmt.get("Java Heap", 0), "NMT non-heap (exit)": nonheap,
             "Other (exit)": nmt.get("Other", 0), "Other peak": nmt.get("Other peak", 0),
             "untracked": mx["RssAnon"] - mx["heap_rss"] - nonheap}
        by[r["workload"]][r["variant"]].append(e)
    keys = ["VmRSS", "RssFile", "RssAnon", "heap RSS", "heap committed (exit)", "NMT non-heap (exit)", "Other (exit)",
            "Other peak", "untracked"]
    jdk = "JDK 25" if "25" in mode else "JDK 17"
    for w in WL:
        if w not in by:
            continue
        variants = sorted(by[w])
        base = {k: med([e[k] for e in by[w]["1-none"]]) for k in keys}
        print(f"\n#### {WL[w]}: RssAnon at the sampled peak, split (MiB; {jdk}, NMT on, mode {mode})\n")
        print("| part | 1-none | " + " | ".join(f"{v} (n={len(by[w][v])})" for v in variants if v != "1-none") + " |")
        print("|---|---|" + "---|" * (len(variants) - 1))
        for k in keys:
            vals = [e[k] for e in by[w]["1-none"]]
            cells = [f"{fmt(med(vals) / MiB)} ({fmt(min(vals) / MiB)}..{fmt(max(vals) / MiB)})"]
            cells += [sfmt((med([e[k] for e in by[w][v]]) - base[k]) / MiB) for v in variants if v != "1-none"]
            print(f"| {k} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    what = sys.argv[1]
    if what == "rss":
        rss_tables()
    elif what == "nmt":
        mode = sys.argv[2] if len(sys.argv) > 2 else "nmt"
        nmt_tables(mode, "snapshot")
        nmt_tables(mode, "exit")
    elif what == "peak":
        peak_tables(sys.argv[2])
    elif what == "pools":
        pools_reports()
