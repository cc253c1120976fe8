#!/usr/bin/env python3
"""Peak RSS of the whole sample app (`/usr/bin/time` maxrss, MiB) for several command lines, alternated
round by round (each round starts at the next variant); the median, the range, and the median of
each round's ratio to the first variant. Variants are name=JVM-arguments (split on spaces; empty for
none), so that two jars compare in the same rounds:

    python3 benchmarks/memory/rss_ab.py 10 none= old=-javaagent:old.jar=capped.yaml new=-javaagent:agent/target/pools.jar=capped.yaml

Run from the repository root after the sample app is built (`./run-sample.sh` once). JDK 17 by
default, another with POOLS_BENCH_JAVA. The JVMs run in benchmarks/target/rss-ab (a layout's
relative report.file lands there).
"""
import subprocess, sys, os, statistics, re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
WORK = ROOT / "benchmarks/target/rss-ab"
JAVA = os.environ.get("POOLS_BENCH_JAVA", "java")
rounds=int(sys.argv[1]); variants=[a.split('=',1) for a in sys.argv[2:]]
env=dict(os.environ, OMP_NUM_THREADS="1")
def run(extra):
    cmd=["/usr/bin/time","-f","MAXRSS %M",JAVA]+extra.split()+["-Dai.djl.offline=true","--enable-native-access=ALL-UNNAMED","-jar",str(ROOT / "sample-app/target/sample-app.jar")]
    p=subprocess.run(cmd,capture_output=True,text=True,env=env,cwd=WORK)
    m=re.search(r"MAXRSS (\d+)",p.stderr)
    if p.returncode != 0 or not m:
        raise SystemExit("failed: " + " ".join(cmd) + "\n" + p.stderr[-2000:])
    return int(m.group(1))/1024
WORK.mkdir(parents=True, exist_ok=True)
res={n:[] for n,_ in variants}; rat={n:[] for n,_ in variants}
for r in range(rounds):
    k=r%len(variants); got={}
    for n,a in variants[k:]+variants[:k]: got[n]=run(a)
    for n,_ in variants: res[n].append(got[n]); rat[n].append(got[n]/got[variants[0][0]])
for n,_ in variants:
    print("%-10s median %.1f MiB (%.1f .. %.1f)  ratio/round median %.3f  delta %+.1f"%(n,statistics.median(res[n]),min(res[n]),max(res[n]),statistics.median(rat[n]),statistics.median(res[n])-statistics.median(res[variants[0][0]])))
