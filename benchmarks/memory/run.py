#!/usr/bin/env python3
"""Memory of the pools agent: peak RSS and NMT breakdown per workload x variant.

    run.py rss  <rounds> [workload ...]          (a) /usr/bin/time maxrss + /proc sampler, JDK 17
    run.py nmt  <rounds> [workload ...]          (b) the same plus NMT (summary at exit + one jcmd snapshot mid-run), JDK 17
    run.py nmt25 <rounds> [workload ...]         (b) with JDK 25 (NMT prints peaks)

Run from the repository root after `mvn -B install -DskipTests` (and `mvn -pl integration-tests test-compile`),
with the sample app's natives and the ONNX model made once (`benchmarks/bench.py b6 1` does both).
The work folder is $POOLS_MEMORY_WORK, default benchmarks/target/memory; `analyze.py` reads it.
Every run gets its own directory <work>/runs/<mode>/<workload>/r<round>-<variant>/ (the cwd of the JVM)
with cmd.txt, stdout.txt, stderr.txt (time + NMT at exit), sampler.json, and in nmt modes
snapshot-nmt.txt / snapshot-status.txt / snapshot-smaps.txt and gc.txt (heap address).
"""
import json
import re
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
G = Path(os.environ.get("POOLS_MEMORY_WORK", ROOT / "benchmarks/target/memory"))
POOLS = ROOT / "agent/target/pools.jar"
SAMPLE = ROOT / "sample-app/target/sample-app.jar"
HOST_CP = f"{ROOT / 'integration-tests/target/test-classes'}:{(ROOT / 'integration-tests/target/host-classpath.txt').read_text().strip()}"
JAVA17 = "java"
JCMD17 = "jcmd"
JAVA25 = "/usr/lib/jvm/temurin-25-jdk-amd64/bin/java"
JCMD25 = "/usr/lib/jvm/temurin-25-jdk-amd64/bin/jcmd"
DJL = ["-Dai.djl.offline=true", "--enable-native-access=ALL-UNNAMED"]
ENV = dict(os.environ, OMP_NUM_THREADS="1")

WORKLOADS = {
    "b3": (DJL + ["-jar", str(SAMPLE)], None),  # v1 (runs/nmt): 2.0 s, too early to compare
    "b6djl": (DJL + ["-jar", str(SAMPLE), "serve", "4", "15000", "1500"], 8.0),
    "b6ort": (DJL + ["-Xmx1g", "-cp", HOST_CP, "dev.pools.hosts.it.apps.OrtEmbeddingService", "4", "12000", "1000"], 8.0),
}

AG = f"-javaagent:{POOLS}"
VARIANTS_B6 = {
    "1-none": [],
    "2-host-rec": [AG],
    "4-host-unrec": [f"{AG}={G / 'unrecorded.yaml'}"],
    "5-host-rec-nohint": [AG, "-Dpools.mallocHint=false"],
    "6-jfr-only": [f"-XX:StartFlightRecording=settings={G / 'empty.jfc'},filename=e.jfr"],
    "7-jmx-only": [f"-javaagent:{G / 'jmx-agent.jar'}"],
}
VARIANTS_B3 = {
    "1-none": [],
    "2-host-rec": [AG],
    "3-capped-rec": [f"{AG}={G / 'capped.yaml'}"],
    "4-host-unrec": [f"{AG}={G / 'unrecorded.yaml'}"],
    "4c-capped-unrec": [f"{AG}={G / 'capped-unrecorded.yaml'}"],
    "5-host-rec-nohint": [AG, "-Dpools.mallocHint=false"],
    "6-jfr-only": [f"-XX:StartFlightRecording=settings={G / 'empty.jfc'},filename=e.jfr"],
    "7-jmx-only": [f"-javaagent:{G / 'jmx-agent.jar'}"],
}


def status(pid):
    d = {}
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                k, _, v = line.partition(":")
                if k in ("VmRSS", "VmHWM", "RssAnon", "RssFile", "RssShmem", "Threads"):
                    d[k] = int(v.split()[0])
    except (FileNotFoundError, ProcessLookupError, ValueError):
        return None
    return d if "VmRSS" in d else None


def child_of(pid):
    for _ in range(2000):
        try:
            kids = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
            if kids:
                return int(kids[0])
        except FileNotFoundError:
            return None
        time.sleep(0.001)
    return None


def run_one(mode, workload, variant, rnd):
    args, snap_at = WORKLOADS[workload]
    flags = (VARIANTS_B3 if workload == "b3" else VARIANTS_B6)[variant]
    java, jcmd = (JAVA25, JCMD25) if "25" in mode else (JAVA17, JCMD17)
    d = G / "runs" / mode / workload / f"r{rnd}-{variant}"
    d.mkdir(parents=True, exist_ok=True)
    extra = []
    if "nmt" in mode:
        extra = ["-XX:NativeMemoryTracking=summary", "-XX:+UnlockDiagnosticVMOptions", "-XX:+PrintNMTStatistics",
                 "-Xlog:gc+heap+coops=debug,gc+heap+exit=info:file=gc.txt"]
    cmd = ["/usr/bin/time", "-f", "maxrss %M wall %e cpu %U %S", java] + extra + flags + args
    (d / "cmd.txt").write_text("cd " + str(d) + " && OMP_NUM_THREADS=1 " + " ".join(cmd) + "\n")
    out, err = open(d / "stdout.txt", "w"), open(d / "stderr.txt", "w")
    start = time.time()
    p = subprocess.Popen(cmd, cwd=d, stdout=out, stderr=err, env=ENV)
    jpid = child_of(p.pid)
    samp = {"max": None, "last": None, "samples": 0, "max_threads": 0}
    snap = {}

    heap = {}
    n = [0]

    def heap_rss():
        """KiB resident in the Java heap's range (address from gc.txt), from /proc/<pid>/smaps."""
        if not heap:
            g = d / "gc.txt"
            m = re.search(r"Heap address: 0x([0-9a-f]+), size: (\d+) MB", g.read_text()) if g.exists() else None
            if not m:
                return None
            heap["lo"] = int(m.group(1), 16)
            heap["hi"] = heap["lo"] + int(m.group(2)) * 1024 * 1024
        total, inside = 0, False
        try:
            text = Path(f"/proc/{jpid}/smaps").read_text()
        except (FileNotFoundError, ProcessLookupError):
            return None
        for line in text.splitlines():
            h = re.match(r"^([0-9a-f]+)-([0-9a-f]+) ", line)
            if h:
                inside = int(h.group(1), 16) >= heap["lo"] and int(h.group(2), 16) <= heap["hi"]
            elif inside and line.startswith("Rss:"):
                total += int(line.split()[1])
        return total

    def sampler():
        hr = None
        while p.poll() is None:
            s = status(jpid)
            n[0] += 1
            if "nmt" in mode and n[0] % 5 == 0:
                hr = heap_rss() or hr
            if s:
                s["heap_rss"] = hr
                samp["samples"] += 1
                samp["last"] = dict(s, t=round(time.time() - start, 3))
                samp["max_threads"] = max(samp["max_threads"], s.get("Threads", 0))
                if samp["max"] is None or s["VmRSS"] > samp["max"]["VmRSS"]:
                    samp["max"] = samp["last"]
            time.sleep(0.05)

    def snapshot():
        while time.time() - start < snap_at:
            if p.poll() is not None:
                return
            time.sleep(0.02)
        t0 = time.time() - start
        r = subprocess.run([jcmd, str(jpid), "VM.native_memory", "summary"], capture_output=True, text=True)
        t1 = time.time() - start
        try:
            st = Path(f"/proc/{jpid}/status").read_text()
            sm = Path(f"/proc/{jpid}/smaps").read_text()
        except (FileNotFoundError, ProcessLookupError):
            st = sm = ""
        t2 = time.time() - start
        (d / "snapshot-nmt.txt").write_text(r.stdout + r.stderr)
        (d / "snapshot-status.txt").write_text(st)
        (d / "snapshot-smaps.txt").write_text(sm)
        snap.update(jcmd_start=round(t0, 3), jcmd_end=round(t1, 3), proc_read=round(t2, 3))

    threads = [threading.Thread(target=sampler)]
    if workload == "b6ort" and variant == "4-host-unrec":
        snap_at += 60  # the test app waits 60 s for a recording that never starts (Probe.awaitRecording)
    if "nmt" in mode and jpid and snap_at:
        threads.append(threading.Thread(target=snapshot))
    for t in threads:
        t.start()
    rc = p.wait()
    for t in threads:
        t.join()
    out.close()
    err.close()
    errtext = (d / "stderr.txt").read_text()
    lines = [l for l in errtext.splitlines() if l.startswith("maxrss ")]
    f = lines[-1].split() if lines else None
    res = {"mode": mode, "workload": workload, "variant": variant, "round": rnd, "rc": rc, "java_pid": jpid,
           "maxrss_kib": int(f[1]) if f else None, "wall_s": float(f[3]) if f else None,
           "cpu_s": float(f[5]) + float(f[6]) if f else None, "sampler": samp, "snapshot": snap,
           "start": time.strftime("%H:%M:%S", time.localtime(start))}
    (d / "sampler.json").write_text(json.dumps(res, indent=1) + "\n")
    (d / "embedding.onnx").unlink(missing_ok=True)  # the ONNX service writes its 80 MiB model in its cwd
    with open(G / "runs" / "index.jsonl", "a") as idx:
        idx.write(json.dumps(res) + "\n")
    print(f"{res['start']} {mode} {workload} r{rnd} {variant:20} rc {rc} maxrss {res['maxrss_kib']} "
          f"sampledmax {samp['max']['VmRSS'] if samp['max'] else None} wall {res['wall_s']} {snap}", flush=True)
    return res


def prepare():
    """The variants' inputs in the work folder: layouts, an empty JFR configuration, the JMX-alone agent."""
    G.mkdir(parents=True, exist_ok=True)
    capped = (ROOT / "sample-app/layouts/capped.yaml").read_text()
    (G / "capped.yaml").write_text(capped)
    (G / "capped-unrecorded.yaml").write_text(capped.replace("  file: capped.jfr", "  file: none"))
    (G / "unrecorded.yaml").write_text("layout: host\nreport:\n  file: none\n")
    (G / "empty.jfc").write_text('<?xml version="1.0" encoding="UTF-8"?>\n<configuration version="2.0"></configuration>\n')
    classes = G / "jmx-classes"
    subprocess.run(["javac", "--release", "17", "-d", str(classes), str(Path(__file__).parent / "JmxAgent.java")], check=True)
    (G / "jmx-manifest.txt").write_text("Premain-Class: jmx.JmxAgent\n")
    subprocess.run(["jar", "cfm", str(G / "jmx-agent.jar"), str(G / "jmx-manifest.txt"), "-C", str(classes), "."], check=True)


def main():
    mode, rounds = sys.argv[1], int(sys.argv[2])
    prepare()
    workloads = sys.argv[3:] or list(WORKLOADS)
    for w in workloads:
        variants = VARIANTS_B3 if w == "b3" else VARIANTS_B6
        first = int(os.environ.get('FIRST_ROUND', '1'))  # to add rounds to a mode later
        for rnd in range(first, first + rounds):
            for v in variants:
                run_one(mode, w, v, rnd)


if __name__ == "__main__":
    main()
