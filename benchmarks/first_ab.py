#!/usr/bin/env python3
"""Time to the sample app's first result (its line "inference before training", seconds from the
JVM's launch; the JVM is then stopped) for several command lines, alternated round by round, as
`benchmarks/memory/rss_ab.py` does for peak RSS: the median, the range, and the median of each
round's ratio to the first variant, with its quartiles. Two jars compare in the same rounds:

    python3 benchmarks/first_ab.py 16 none= old=-javaagent:/tmp/old.jar=$PWD/sample-app/layouts/capped.yaml \
        new=-javaagent:$PWD/agent/target/pools.jar=$PWD/sample-app/layouts/capped.yaml

JDK 17 by default, another with POOLS_BENCH_JAVA. The JVMs run in benchmarks/target/first-ab.
"""
import subprocess, sys, time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent / "memory"))
from rss_ab import ROOT, ENV, sample_app, alternate  # noqa: E402

WORK = ROOT / "benchmarks/target/first-ab"


def first_result(extra):
    cmd = sample_app(extra)
    t0 = time.time()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=ENV, cwd=WORK)
    for line in p.stdout:
        if "inference before training" in line:
            t = time.time() - t0
            p.kill()
            p.wait()
            return t
    p.wait()
    raise SystemExit("no first result: " + " ".join(cmd))


if __name__ == "__main__":
    WORK.mkdir(parents=True, exist_ok=True)
    first_result("")  # a warm-up run: file caches
    alternate(int(sys.argv[1]), [a.split('=', 1) for a in sys.argv[2:]], first_result, "s")
