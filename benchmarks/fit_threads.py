#!/usr/bin/env python3
"""suggest --fit on a trace of 4 threads that take turns at every operation, two jars alternated.

The trace: 50 000 allocations of 1 KiB, 4 KiB, 8 KiB or 20 000 B (seeded), each thread keeping its
last 8, in the trace format v2 (a jar from before thread numbers reads it as one thread's). Since
the trace names threads, the replay runs each traced thread on a thread of its own and hands the
turn over at every change of thread: an interleaving at every operation is its worst case. Prints
each replay's time as suggest reports it, then the medians per jar and their ratio.

With --tasks, the trace is instead that of a host running each task on a thread of its own: 3 000
threads one after the other, each a 4 KiB request and its release.

Usage: benchmarks/fit_threads.py ROUNDS OLD.jar NEW.jar [--tasks]
"""
import random
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

rounds = int(sys.argv[1])
jars = {"old": Path(sys.argv[2]).resolve(), "new": Path(sys.argv[3]).resolve()}
work = Path(tempfile.mkdtemp(prefix="fit-threads-"))

rnd = random.Random(1)
held = {t: [] for t in range(1, 5)}
lines = ["# pools trace v2"]
if "--tasks" in sys.argv:
    for t in range(1, 3001):
        lines += [f"a {t} 4096 h#a {t}", f"r {t} {t}"]
else:
    for i in range(50_000):
        t = 1 + i % 4
        lines.append(f"a {i + 1} {rnd.choice([1024, 4096, 8192, 20000])} h#a {t}")
        held[t].append(i + 1)
        if len(held[t]) > 8:
            lines.append(f"r {held[t].pop(0)} {t}")
(work / "four.trace").write_text("\n".join(lines) + "\n")
# A recording for suggest to read the layout from: a JVM that allocates nothing.
(work / "m.yaml").write_text("layout: sliced\npools:\n  - page_size: 64 KiB\nreport:\n  file: m.jfr\n")
subprocess.run(["java", f"-javaagent:{jars['new']}=m.yaml", "-version"], cwd=work, check=True, capture_output=True)
times = {"old": [], "new": []}
for r in range(rounds):
    for name, jar in jars.items():
        out = subprocess.run(
            ["java", "-jar", str(jar), "suggest", "m.jfr", "--fit", "four.trace"],
            cwd=work, check=True, capture_output=True, text=True).stdout
        ms = int(re.search(r"replayed in (\d+) ms", out).group(1))
        times[name].append(ms)
        print(f"round {r + 1} {name} {ms} ms", flush=True)
old, new = statistics.median(times["old"]), statistics.median(times["new"])
print(f"median: old {old:.0f} ms (min {min(times['old'])}, max {max(times['old'])}),"
      f" new {new:.0f} ms (min {min(times['new'])}, max {max(times['new'])}), ratio {new / old:.2f}")
