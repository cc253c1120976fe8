#!/usr/bin/env python3
"""B3 to B6 of BENCHMARKS.md: whole JVMs, timed from outside, variants alternated run by run (each round
starting one variant later).

    bench.py b3 [runs]    the sample app with and without pools: wall time, peak direct memory, peak RSS
    bench.py b4 [runs]    start-up: hello world, and the sample app's time to its first result
    bench.py b4-first [runs]  the sample app's first result only, unrecorded and recorded, with the ratio of each round
    bench.py b4-short [runs]  a short job (the sample app serving 20 requests), whole JVM: no agent, JFR alone, unrecorded, recorded
    bench.py b5 [runs]    the CLI on a one-hour recording and on eight recordings, against `jfr summary`
    bench.py cost [seconds]  the recording's own cost: SteadyWorkload with and without it, side by side
    bench.py b6 [runs]    services of 4 request threads (DJL PyTorch, ONNX Runtime) with and without the agent,
                          and without it again (an A/A control of the noise)

Each prints a table (median, min-max spread, ratio to the peer) and writes the raw runs as JSON
under benchmarks/results/. Run from the repository root after `mvn -B install -DskipTests`.
"""
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
POOLS = ROOT / "agent/target/pools.jar"
APP = ROOT / "sample-app/target/sample-app.jar"
BENCH = ROOT / "benchmarks/target"
RESULTS = ROOT / "benchmarks/results"
WORK = BENCH / "work"
# Another JDK: POOLS_BENCH_JAVA=/path/to/bin/java; its results go to <name><POOLS_BENCH_SUFFIX>.json.
JAVA = os.environ.get("POOLS_BENCH_JAVA") or shutil.which("java")
SUFFIX = os.environ.get("POOLS_BENCH_SUFFIX", "")
# B6 against another build of the agent in the same runs: POOLS_BENCH_OTHER_JAR=/path/to/pools.jar adds its
# recorded and unrecorded variants; POOLS_BENCH_B6_SERVICES=ort (or djl) runs one service only.
OTHER_JAR = os.environ.get("POOLS_BENCH_OTHER_JAR")
B6_SERVICES = os.environ.get("POOLS_BENCH_B6_SERVICES", "djl,ort").split(",")
JAVA_HOME = Path(os.path.realpath(JAVA)).parent.parent
JFR = JAVA_HOME / "bin/jfr"
DJL = ["-Dai.djl.offline=true", "--enable-native-access=ALL-UNNAMED"]
BENCH_CP = str(BENCH / "classes")


def java_version():
    out = subprocess.run([JAVA, "-version"], capture_output=True, text=True).stderr.splitlines()[0]
    return out


# PyTorch's OpenMP threads spin-wait for each other; on two cores any other runnable thread makes
# the training time swing by seconds, with or without the agent. One intra-op thread keeps the
# comparison about the agent.
ENV = dict(os.environ, OMP_NUM_THREADS="1")


# glibc returns large blocks to the kernel at free (mmap threshold and trim threshold, 128 KiB by
# default, raised on the fly when a large mmap'd block is freed). libtorch's temporaries then fault
# their pages in again at every step. Raising both thresholds keeps them in the heap.
TUNED_MALLOC = {"MALLOC_MMAP_THRESHOLD_": str(32 << 20), "MALLOC_TRIM_THRESHOLD_": str(256 << 20)}


def run(cmd, first_line=None, cwd=WORK, env=None, stop_at_first=False):
    """Runs cmd; returns (seconds, seconds to the first stdout line containing first_line, stdout, stderr, max RSS KiB).
    stop_at_first: kill the JVM once that line came (only the time to it is kept)."""
    start = time.perf_counter()
    p = subprocess.Popen(["/usr/bin/time", "-f", "maxrss %M cpu %U %S"] + cmd, cwd=cwd, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, env=dict(ENV, **(env or {})), start_new_session=stop_at_first)
    first = None
    out = []
    for line in p.stdout:
        out.append(line)
        if first is None and first_line and first_line in line:
            first = time.perf_counter() - start
            if stop_at_first:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait()
                return first, first, "".join(out), "", 0
    err = p.stderr.read()
    p.wait()
    elapsed = time.perf_counter() - start
    if p.returncode != 0:
        raise SystemExit(f"failed ({p.returncode}): {' '.join(cmd)}\n{''.join(out)}\n{err}")
    rss = int([l for l in err.splitlines() if l.startswith("maxrss ")][-1].split()[1])
    return elapsed, first, "".join(out), err, rss


def in_turn(variants, i):
    """The variants' names in the order of round i: each round starts one variant later, so that no
    variant always runs first, or always right after the same one (a JVM leaves the machine's caches
    and the kernel's free memory in a state the next one meets)."""
    names = list(variants)
    k = i % len(names)
    return names[k:] + names[:k]


def summary(values):
    return {"median": statistics.median(values), "min": min(values), "max": max(values), "runs": values}


def table(title, rows, unit, peer):
    print(f"\n{title} ({java_version()}, {len(rows[0][1])} runs each, alternated)")
    base = statistics.median(dict(rows)[peer])
    print(f"  {'variant':52} {'median':>10} {'min':>10} {'max':>10} {'ratio':>7}")
    for name, values in rows:
        m = statistics.median(values)
        print(f"  {name:52} {m:10.3f} {min(values):10.3f} {max(values):10.3f} {m / base:7.3f}   {unit}")


def round_ratios(title, runs, peer):
    """Prints, per variant, the median and quartiles of each round's ratio to the peer's run of the same
    round: the machine's slow spells move a round's variants together, not the medians of a whole run."""
    print(f"  {title}: median (quartiles)")
    for name, values in runs.items():
        r = [a / b for a, b in zip(values, runs[peer])]
        q = statistics.quantiles(r, n=4)
        print(f"  {name:52} {statistics.median(r):7.3f} ({q[0]:.3f} to {q[2]:.3f})")


def save(name, data):
    RESULTS.mkdir(parents=True, exist_ok=True)
    data["java"] = java_version()
    data["date"] = time.strftime("%Y-%m-%d %H:%M:%S %Z")
    (RESULTS / f"{name}{SUFFIX}.json").write_text(json.dumps(data, indent=2) + "\n")


def jfr_alone_flag():
    """JFR started with no event enabled (an empty .jfc): what any recorded run pays before its first event."""
    (WORK / "empty.jfc").write_text('<?xml version="1.0" encoding="UTF-8"?>\n<configuration version="2.0"></configuration>\n')
    return f"-XX:StartFlightRecording=settings={WORK / 'empty.jfc'},filename={WORK / 'alone.jfr'}"


def fresh_work():
    shutil.rmtree(WORK, ignore_errors=True)
    WORK.mkdir(parents=True)


def b3(runs):
    fresh_work()
    meter = f"-javaagent:{BENCH / 'benchmarks-direct-memory-peak.jar'}"
    capped = ROOT / "sample-app/layouts/capped.yaml"
    without = [JAVA, meter] + DJL + ["-jar", str(APP)]
    with_pools = [JAVA, meter, f"-javaagent:{POOLS}={capped}"] + DJL + ["-jar", str(APP)]
    variants = {
        "without the agent": (without, None),
        "with pools.jar (sample-app/layouts/capped.yaml)": (with_pools, None),
        "without the agent, glibc thresholds raised": (without, TUNED_MALLOC),
        "with pools.jar, glibc thresholds raised": (with_pools, TUNED_MALLOC),
    }
    wall = {k: [] for k in variants}
    direct = {k: [] for k in variants}
    rss = {k: [] for k in variants}
    run(without)  # extracts the natives once, outside the measurement
    for i in range(runs):
        for name in in_turn(variants, i):
            cmd, env = variants[name]
            seconds, _, out, err, maxrss = run(cmd, env=env)
            wall[name].append(seconds)
            direct[name].append(int([l for l in err.splitlines() if l.startswith("direct-peak ")][-1].split()[1]) / 2**20)
            rss[name].append(maxrss / 1024)
    table("B3: sample app wall time", list(wall.items()), "s", "without the agent")
    table("B3: sample app peak direct memory (JDK 'direct' pool, sampled every ms)", list(direct.items()), "MiB", "without the agent")
    table("B3: sample app peak RSS", list(rss.items()), "MiB", "without the agent")
    save("b3", {"wall_s": {k: summary(v) for k, v in wall.items()}, "direct_peak_mib": {k: summary(v) for k, v in direct.items()},
                "rss_peak_mib": {k: summary(v) for k, v in rss.items()}})


def b4(runs):
    fresh_work()
    empty = f"-javaagent:{BENCH / 'benchmarks-empty-agent.jar'}"
    # An agent whose transformer changes nothing: the floor of any agent that rewrites classes as they load.
    noop = f"-javaagent:{BENCH / 'benchmarks-noop-transformer-agent.jar'}"
    (WORK / "file.yaml").write_text("layout: sub-slices\nreport:\n  file: none\n")
    hello = {
        "hello world, no agent": [JAVA, "-cp", BENCH_CP, "dev.pools.bench.Hello"],
        "hello world, empty agent": [JAVA, empty, "-cp", BENCH_CP, "dev.pools.bench.Hello"],
        "hello world, no-op transformer agent": [JAVA, noop, "-cp", BENCH_CP, "dev.pools.bench.Hello"],
        "hello world, pools.jar (no file: host, recording on)": [JAVA, f"-javaagent:{POOLS}", "-cp", BENCH_CP, "dev.pools.bench.Hello"],
        "hello world, pools.jar=file.yaml (recording off)": [JAVA, f"-javaagent:{POOLS}=file.yaml", "-cp", BENCH_CP, "dev.pools.bench.Hello"],
    }
    # JFR itself, started with no event at all: the floor of any recorded run.
    jfr_alone = jfr_alone_flag()
    idle = {
        "idle 2 s, no agent": [JAVA, "-cp", BENCH_CP, "dev.pools.bench.Hello", "2000"],
        "idle 2 s, empty agent": [JAVA, empty, "-cp", BENCH_CP, "dev.pools.bench.Hello", "2000"],
        "idle 2 s, JFR alone (no event enabled)": [JAVA, jfr_alone, "-cp", BENCH_CP, "dev.pools.bench.Hello", "2000"],
        "idle 2 s, pools.jar=file.yaml (recording off)": [JAVA, f"-javaagent:{POOLS}=file.yaml", "-cp", BENCH_CP, "dev.pools.bench.Hello", "2000"],
        "idle 2 s, pools.jar (no file: host, recording on)": [JAVA, f"-javaagent:{POOLS}", "-cp", BENCH_CP, "dev.pools.bench.Hello", "2000"],
    }
    capped = ROOT / "sample-app/layouts/capped.yaml"
    sample = {
        "sample app, no agent": [JAVA] + DJL + ["-jar", str(APP)],
        "sample app, empty agent": [JAVA, empty] + DJL + ["-jar", str(APP)],
        "sample app, no-op transformer agent": [JAVA, noop] + DJL + ["-jar", str(APP)],
        "sample app, JFR alone (no event enabled)": [JAVA, jfr_alone] + DJL + ["-jar", str(APP)],
        "sample app, pools.jar (capped.yaml)": [JAVA, f"-javaagent:{POOLS}={capped}"] + DJL + ["-jar", str(APP)],
        "sample app, pools.jar (capped.yaml, report.file: none)": [JAVA, f"-javaagent:{POOLS}={WORK / 'unrecorded.yaml'}"] + DJL + ["-jar", str(APP)],
    }
    (WORK / "unrecorded.yaml").write_text(capped.read_text().replace("  file: capped.jfr", "  file: none"))
    run(sample["sample app, no agent"])
    times = {k: [] for k in hello}
    first = {k: [] for k in sample}
    for i in range(runs):
        for name in in_turn(hello, i):
            times[name].append(run(hello[name])[0] * 1000)
    cpu = {k: [] for k in idle}
    for i in range(max(3, runs // 2)):
        for name, cmd in idle.items():
            fields = [l for l in run(cmd)[3].splitlines() if l.startswith("maxrss ")][-1].split()
            cpu[name].append(float(fields[3]) + float(fields[4]))
    # The JVM is stopped at its first result: more runs in the same time, on a machine whose spread is
    # as large as the goal.
    for i in range(runs):
        for name in in_turn(sample, i):
            first[name].append(run(sample[name], first_line="inference before training", stop_at_first=True)[1])
    table("B4: hello world, whole JVM", list(times.items()), "ms", "hello world, no agent")
    table("B4: CPU time (user + system) of an idle JVM, 2 s", list(cpu.items()), "s", "idle 2 s, no agent")
    table("B4: sample app, time to its first result", list(first.items()), "s", "sample app, no agent")
    save("b4", {"hello_ms": {k: summary(v) for k, v in times.items()}, "idle_cpu_s": {k: summary(v) for k, v in cpu.items()},
                "sample_first_result_s": {k: summary(v) for k, v in first.items()}})


def b4_first(runs):
    """The sample app's first result only: no agent, the empty agent, pools.jar (capped.yaml) unrecorded
    (report.file: none) and recorded, alternated; also the ratio of each round, whose variants run one
    after the other (the machine's slow spells move a round's variants together, not the medians of a
    whole run)."""
    fresh_work()
    capped = ROOT / "sample-app/layouts/capped.yaml"
    (WORK / "unrecorded.yaml").write_text(capped.read_text().replace("  file: capped.jfr", "  file: none"))
    sample = {
        "sample app, no agent": [JAVA] + DJL + ["-jar", str(APP)],
        "sample app, empty agent": [JAVA, f"-javaagent:{BENCH / 'benchmarks-empty-agent.jar'}"] + DJL + ["-jar", str(APP)],
        "sample app, pools.jar (capped.yaml, report.file: none)":
            [JAVA, f"-javaagent:{POOLS}={WORK / 'unrecorded.yaml'}"] + DJL + ["-jar", str(APP)],
        "sample app, pools.jar (capped.yaml, recorded)": [JAVA, f"-javaagent:{POOLS}={capped}"] + DJL + ["-jar", str(APP)],
    }
    run(sample["sample app, no agent"])
    first = {k: [] for k in sample}
    for i in range(runs):
        for name in in_turn(sample, i):
            first[name].append(run(sample[name], first_line="inference before training", stop_at_first=True)[1])
    table("B4: sample app, time to its first result", list(first.items()), "s", "sample app, no agent")
    round_ratios("ratio of each round to the run without the agent", first, "sample app, no agent")
    save("b4-first", {"sample_first_result_s": {k: summary(v) for k, v in first.items()}})


def b4_short(runs):
    """A short job, whole JVM: the sample app serving 20 requests on one thread (about a second), without
    the agent, with JFR alone, with pools.jar unrecorded and recorded (no file), alternated; wall time
    and CPU time of the process, and the ratio of each round to the run without the agent."""
    fresh_work()
    (WORK / "unrecorded.yaml").write_text("layout: host\nreport:\n  file: none\n")
    job = DJL + ["-jar", str(APP), "serve", "1", "20", "0"]
    variants = {
        "short job, no agent": [JAVA] + job,
        "short job, JFR alone (no event enabled)": [JAVA, jfr_alone_flag()] + job,
        "short job, pools.jar (host, report.file: none)": [JAVA, f"-javaagent:{POOLS}={WORK / 'unrecorded.yaml'}"] + job,
        "short job, pools.jar (no file: host, recording on)": [JAVA, f"-javaagent:{POOLS}"] + job,
    }
    run(variants["short job, no agent"])
    wall = {k: [] for k in variants}
    cpu = {k: [] for k in variants}
    for i in range(runs):
        for name in in_turn(variants, i):
            elapsed, _, _, err, _ = run(variants[name])
            fields = [l for l in err.splitlines() if l.startswith("maxrss ")][-1].split()
            wall[name].append(elapsed)
            cpu[name].append(float(fields[3]) + float(fields[4]))
    table("B4: a short job (sample app, serve 1 20 0), whole JVM", list(wall.items()), "s", "short job, no agent")
    table("B4: the short job's CPU time (user + system)", list(cpu.items()), "s", "short job, no agent")
    round_ratios("wall time, ratio of each round to the run without the agent", wall, "short job, no agent")
    save("b4-short", {"wall_s": {k: summary(v) for k, v in wall.items()}, "cpu_s": {k: summary(v) for k, v in cpu.items()}})


def record(name, seconds, period_ms):
    layout = WORK / f"{name}.yaml"
    layout.write_text(f"""layout: sliced
pools:
  - page_size: 256 KiB
    max_slice: 64 KiB
  - page_size: 4 MiB
    max_slice: 1 MiB
intercept:
  packages: [bench.host]
report:
  file: {name}.jfr
  period: {period_ms} ms
""")
    run([JAVA, f"-javaagent:{POOLS}={layout}", "-cp", BENCH_CP, "dev.pools.bench.SteadyWorkload", str(seconds)])
    return WORK / f"{name}.jfr"


def b5(runs, hour=None):
    fresh_work()
    if hour is None:
        # As many batches of reports as one hour at 1 s (3600), written in 36 s at 10 ms.
        hour = record("hour", 36, 10)
    eight = [record(f"run{i}", 10, 100) for i in range(8)]
    variants = {
        "report, one-hour recording": [JAVA, "-jar", str(POOLS), "report", str(hour)],
        "suggest, one-hour recording": [JAVA, "-jar", str(POOLS), "suggest", str(hour)],
        "jfr summary, one-hour recording": [str(JFR), "summary", str(hour)],
        "report, 8 recordings": [JAVA, "-jar", str(POOLS), "report"] + [str(e) for e in eight],
        "suggest, 8 recordings": [JAVA, "-jar", str(POOLS), "suggest"] + [str(e) for e in eight],
    }
    times = {k: [] for k in variants}
    for i in range(runs):
        for name in in_turn(variants, i):
            times[name].append(run(variants[name])[0])
    events = subprocess.run([str(JFR), "summary", str(hour)], capture_output=True, text=True).stdout
    reports = [l for l in events.splitlines() if "pools.PoolReport" in l]
    print(f"\none-hour recording: {hour} ({hour.stat().st_size} bytes); {reports[0].strip() if reports else ''}")
    table("B5: offline CLI, whole JVM", list(times.items()), "s", "jfr summary, one-hour recording")
    save("b5", {"recording": str(hour), "bytes": hour.stat().st_size, "seconds": {k: summary(v) for k, v in times.items()}})


def cost(seconds):
    """SteadyWorkload under the same layout with the recording on (period 1 s) and off, both at once
    (so that the machine's load hits both alike); CPU time and peak RSS are counted per process."""
    fresh_work()
    procs = {}
    for name, file in (("recording on", "cost.jfr"), ("recording off", "none")):
        layout = WORK / f"{file}.yaml"
        layout.write_text(f"layout: sliced\npools:\n  - page_size: 256 KiB\n    max_slice: 64 KiB\n"
                          f"  - page_size: 4 MiB\n    max_slice: 1 MiB\nintercept:\n  packages: [bench.host]\n"
                          f"report:\n  file: {file}\n  period: 1 s\n")
        # A heap of 256 MiB: the workload makes little heap garbage, so with the default heap the
        # collector would seldom run and the buffers it drops (freed only when collected, with or without
        # the agent) would set the peak RSS, not the recording.
        cmd = ["/usr/bin/time", "-f", "cpu %U %S maxrss %M", JAVA, "-Xmx256m", f"-javaagent:{POOLS}={layout}", "-cp", BENCH_CP,
               "dev.pools.bench.SteadyWorkload", str(seconds)]
        procs[name] = subprocess.Popen(cmd, cwd=WORK, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=ENV)
    data = {}
    print(f"\nThe recording's cost: SteadyWorkload {seconds} s, period 1 s ({java_version()})")
    for name, p in procs.items():
        out, err = p.communicate()
        if p.returncode != 0:
            raise SystemExit(f"failed ({p.returncode}): {name}\n{out}\n{err}")
        fields = [l for l in err.splitlines() if l.startswith("cpu ")][-1].split()
        user, system, rss = float(fields[1]), float(fields[2]), int(fields[4]) / 1024
        data[name] = {"user_s": user, "system_s": system, "maxrss_mib": rss}
        print(f"  {name:14} CPU {user + system:7.2f} s (user {user:.2f}, system {system:.2f})  peak RSS {rss:6.1f} MiB")
    on, off = data["recording on"], data["recording off"]
    extra = on["user_s"] + on["system_s"] - off["user_s"] - off["system_s"]
    size = (WORK / "cost.jfr").stat().st_size
    print(f"  recording: {extra:+.2f} s of CPU ({100 * extra / seconds:+.2f} % of one core), "
          f"{on['maxrss_mib'] - off['maxrss_mib']:+.1f} MiB peak RSS, file {size} bytes")
    save("cost", {"seconds": seconds, "bytes": size, "runs": data})


HOST_CP = ROOT / "integration-tests/target/host-classpath.txt"
HOST_CLASSES = ROOT / "integration-tests/target/test-classes"


def b6(runs, threads=4):
    """Inference services of 4 request threads, without the agent (twice: the second run of each round
    is the A/A control), with JFR alone, with the agent (default layout, recording on) and with it
    unrecorded: throughput as the service counts it (after each thread's warm-up requests, so
    start-up is left out), the process's CPU time over that same window (the service prints it), and
    the CPU time (user + system) and peak RSS of the whole process."""
    fresh_work()
    unrecorded = WORK / "unrecorded.yaml"
    unrecorded.write_text("layout: host\nreport:\n  file: none\n")
    host_cp = f"{HOST_CLASSES}:{HOST_CP.read_text().strip()}"
    services = {
        "DJL PyTorch (sample app, serve)": DJL + ["-jar", str(APP), "serve", str(threads), "15000", "1500"],
        "ONNX Runtime (embedding service)": DJL + ["-Xmx1g", "-cp", host_cp, "dev.pools.hosts.it.apps.OrtEmbeddingService",
                                                   str(threads), "12000", "1000"],
    }
    services = {k: v for k, v in services.items() if ("djl" if k.startswith("DJL") else "ort") in B6_SERVICES}
    agents = {
        "without the agent": [],
        # The same command again: what the machine's noise alone makes of a ratio (an A/A control).
        "without the agent, again": [],
        # JFR itself with no event enabled: the floor of any recorded run.
        "without the agent, JFR alone (no event enabled)": [jfr_alone_flag()],
        "with pools.jar (default layout, recorded)": [f"-javaagent:{POOLS}"],
        "with pools.jar (default layout, unrecorded)": [f"-javaagent:{POOLS}={unrecorded}"],
    }
    if OTHER_JAR:
        agents[f"with {OTHER_JAR} (default layout, recorded)"] = [f"-javaagent:{OTHER_JAR}"]
        agents[f"with {OTHER_JAR} (default layout, unrecorded)"] = [f"-javaagent:{OTHER_JAR}={unrecorded}"]
    data = {}
    for service, args in services.items():
        run([JAVA] + args[:-3] + [str(threads), "10"])  # natives extracted, model file written, outside the measurement
        rate = {k: [] for k in agents}
        cpu = {k: [] for k in agents}
        window = {k: [] for k in agents}
        rss = {k: [] for k in agents}
        checksums = set()
        for i in range(runs):
            for name in in_turn(agents, i):
                _, _, out, err, maxrss = run([JAVA] + agents[name] + args)
                line = [l for l in out.splitlines() if l.startswith("served ")][-1]
                rate[name].append(float(line.split("(")[1].split()[0]))
                checksums.add(line.split("checksum ")[1])
                window[name].append(float([l for l in out.splitlines() if l.startswith("process CPU in that time: ")][-1].split()[-2]))
                fields = [l for l in err.splitlines() if l.startswith("maxrss ")][-1].split()
                cpu[name].append(float(fields[3]) + float(fields[4]))
                rss[name].append(maxrss / 1024)
        if len(checksums) != 1:
            raise SystemExit(f"{service}: the runs did not compute the same results: {checksums}")
        peer = "without the agent"
        table(f"B6: {service}, {threads} request threads, throughput", list(rate.items()), "per s", peer)
        round_ratios("ratio of each round to the run without the agent", rate, peer)
        table(f"B6: {service}, CPU time of the process", list(cpu.items()), "s", peer)
        round_ratios("ratio of each round to the run without the agent", cpu, peer)
        table(f"B6: {service}, CPU time of the process while the throughput is counted (start-up left out)",
              list(window.items()), "s", peer)
        round_ratios("ratio of each round to the run without the agent", window, peer)
        table(f"B6: {service}, peak RSS", list(rss.items()), "MiB", peer)
        round_ratios("ratio of each round to the run without the agent", rss, peer)
        data[service] = {"per_second": {k: summary(v) for k, v in rate.items()}, "cpu_s": {k: summary(v) for k, v in cpu.items()},
                         "cpu_counted_s": {k: summary(v) for k, v in window.items()},
                         "rss_peak_mib": {k: summary(v) for k, v in rss.items()}}
    save("b6", data)


if __name__ == "__main__":
    what = sys.argv[1]
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    if what == "b3":
        b3(n)
    elif what == "b4":
        b4(n)
    elif what == "b4-first":
        b4_first(n)
    elif what == "b4-short":
        b4_short(n)
    elif what == "b5":
        b5(n, Path(sys.argv[3]) if len(sys.argv) > 3 else None)
    elif what == "b6":
        b6(n)
    elif what == "cost":
        cost(int(sys.argv[2]) if len(sys.argv) > 2 else 600)
    else:
        raise SystemExit(__doc__)
