#!/usr/bin/env python3
"""Peak RSS of the whole sample app (`/usr/bin/time` maxrss, MiB) for several command lines, alternated
round by round (each round starts at the next variant); the median, the range, and the median of
each round's ratio to the first variant. Variants are name=JVM-arguments (split on spaces; empty for
none), so that two jars compare in the same rounds:

    python3 benchmarks/memory/rss_ab.py 10 none= old=-javaagent:old.jar=capped.yaml new=-javaagent:agent/target/pools.jar=capped.yaml

Run from the repository root after the sample app is built (`./run-sample.sh` once). JDK 17 by
default, another with POOLS_BENCH_JAVA. The JVMs run in benchmarks/target/rss-ab (a layout's
relative report.file lands there). `benchmarks/first_ab.py` does the same for the time to the
sample app's first result.
"""
import subprocess, sys, os, statistics, re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
JAVA = os.environ.get("POOLS_BENCH_JAVA", "java")
ENV = dict(os.environ, OMP_NUM_THREADS="1")


def sample_app(extra):
    """The command line of the sample app with the JVM arguments `extra` (a string split on spaces)."""
    return [JAVA] + extra.split() + ["-Dai.djl.offline=true", "--enable-native-access=ALL-UNNAMED",
                                     "-jar", str(ROOT / "sample-app/target/sample-app.jar")]


def alternate(rounds, variants, measure, unit):
    """Runs measure(jvm_arguments) for each variant, each round starting at the next; prints the
    median, the range and the median of each round's ratio to the first variant."""
    res = {n: [] for n, _ in variants}
    rat = {n: [] for n, _ in variants}
    for r in range(rounds):
        k = r % len(variants)
        got = {}
        for n, a in variants[k:] + variants[:k]:
            got[n] = measure(a)
        for n, _ in variants:
            res[n].append(got[n])
            rat[n].append(got[n] / got[variants[0][0]])
    for n, _ in variants:
        print("%-10s median %.3f %s (%.3f .. %.3f)  ratio/round median %.3f (quartiles %.3f to %.3f)  delta %+.3f"
              % (n, statistics.median(res[n]), unit, min(res[n]), max(res[n]), statistics.median(rat[n]),
                 *quartiles(rat[n]), statistics.median(res[n]) - statistics.median(res[variants[0][0]])))


def quartiles(values):
    q = statistics.quantiles(values, n=4) if len(values) > 1 else [values[0]] * 3
    return q[0], q[2]


def peak_rss(extra, work):
    cmd = ["/usr/bin/time", "-f", "MAXRSS %M"] + sample_app(extra)
    p = subprocess.run(cmd, capture_output=True, text=True, env=ENV, cwd=work)
    m = re.search(r"MAXRSS (\d+)", p.stderr)
    if p.returncode != 0 or not m:
        raise SystemExit("failed: " + " ".join(cmd) + "\n" + p.stderr[-2000:])
    return int(m.group(1)) / 1024


if __name__ == "__main__":
    work = ROOT / "benchmarks/target/rss-ab"
    work.mkdir(parents=True, exist_ok=True)
    alternate(int(sys.argv[1]), [a.split('=', 1) for a in sys.argv[2:]], lambda a: peak_rss(a, work), "MiB")
