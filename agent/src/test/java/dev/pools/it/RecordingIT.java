package dev.pools.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.pools.it.apps.ApiApp;
import dev.pools.it.apps.EarlyInstall;
import dev.pools.it.apps.HeapFullAtStart;
import dev.pools.it.apps.HeapFullSpike;
import dev.pools.it.apps.HookAllocates;
import dev.pools.it.apps.NativeHeld;
import dev.pools.it.apps.RecordedWorkload;
import dev.pools.it.apps.RefuseUntilKilled;
import dev.pools.it.apps.ReinstallSame;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The recording holds the final state after every way a JVM ends, and the JDK's own tools read it. */
class RecordingIT {

    @TempDir
    Path dir;

    static final String LAYOUT = """
            layout: sliced
            pools:
              - page_size: 256 KiB
                max_slice: 16 KiB
              - page_size: 1 MiB
            intercept:
              packages: [it.host]
            report:
              file: run-%p.jfr
              period: 200 ms
            """;

    private List<String> agent() throws Exception {
        Files.writeString(dir.resolve("layout.yaml"), LAYOUT);
        return List.of(Forked.agent(Path.of("layout.yaml")));
    }

    /** The line of {@code report}'s process memory table for the part {@code part}. */
    private static String budgetLine(Forked.Result report, String part) {
        return report.out()
                .lines()
                .filter(l -> l.startsWith("  " + part))
                .findFirst()
                .orElseThrow(() -> new AssertionError(report.out()));
    }

    /** What a {@link RecordedWorkload} that refuses says it made: its line {@code refused N}. */
    /** The rest of the output line that begins with {@code key} and a space. */
    private static String line(Forked.Result r, String key) {
        return r.out()
                .lines()
                .filter(l -> l.startsWith(key + " "))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no " + key + " in " + r))
                .substring(key.length() + 1);
    }

    private static int refused(Forked.Result r) {
        return Integer.parseInt(r.out()
                .lines()
                .filter(l -> l.startsWith("refused "))
                .findFirst()
                .orElseThrow()
                .substring("refused ".length()));
    }

    private Path recording() throws Exception {
        try (var files = Files.list(dir)) {
            List<Path> jfr = files.filter(p -> p.getFileName().toString().matches("run-\\d+\\.jfr"))
                    .toList();
            assertEquals(1, jfr.size(), "one recording named by the process id: " + jfr);
            return jfr.get(0);
        }
    }

    /**
     * The last pools.PoolReport per index and the last pools.Usage, in the form the app prints the
     * API's. "Last" is by time: JFR writes each thread's events in its own buffer, so file order is
     * not time order across threads.
     */
    static List<String> finalState(Path file) throws Exception {
        Map<Integer, String> reports = new LinkedHashMap<>();
        String usage = null;
        List<RecordedEvent> events = new ArrayList<>(RecordingFile.readAllEvents(file));
        events.sort(Comparator.comparing(RecordedEvent::getEndTime));
        for (RecordedEvent e : events) {
            switch (e.getEventType().getName()) {
                case "pools.PoolReport" ->
                    reports.put(
                            e.getInt("index"),
                            "api-report " + e.getLong("pageSize") + " " + e.getLong("pages") + " "
                                    + e.getLong("pagesPeak") + " " + e.getLong("largestAlloc"));
                case "pools.Usage" ->
                    usage = "api-usage " + e.getLong("numberAllocs") + " " + e.getLong("bytesInUse") + " "
                            + e.getLong("bytesPadding") + " " + e.getLong("bytesReserved");
                default -> {}
            }
        }
        List<String> out = new ArrayList<>(reports.values());
        out.add(usage);
        return out;
    }

    private static List<String> apiLines(String out) {
        return out.lines().filter(l -> l.startsWith("api-")).toList();
    }

    @Test
    void after_a_normal_exit_the_last_reports_equal_what_the_api_saw_at_the_end() throws Exception {
        Forked.Result r = Forked.app(dir, agent(), RecordedWorkload.class, "normal");
        assertEquals(0, r.exit(), r.toString());
        assertEquals(apiLines(r.out()), finalState(recording()));
        assertFalse(Files.exists(dir.resolve(recording().getFileName() + ".d")), "no repository folder");
        assertTrue(r.out().contains("management exported true"), r.out());

        // The process's budget: report prints it, suggest turns it into limits.
        Forked.Result report = Forked.cli(dir, "report", recording().toString());
        assertEquals(0, report.exit(), report.toString());
        String rss = budgetLine(report, "resident set (RSS)");
        assertTrue(
                rss.matches(" +resident set \\(RSS\\) +[0-9.]+ MiB +anonymous [0-9.]+ MiB, file-backed [0-9.]+ MiB"),
                rss);
        assertTrue(report.out().contains("JDK direct buffers"), report.out());
        Forked.Result suggest =
                Forked.cli(dir, "suggest", "--headroom", "10%", recording().toString());
        assertEquals(0, suggest.exit(), suggest.toString());
        assertTrue(suggest.out().matches("(?s).*\n#   -XX:MaxDirectMemorySize=\\d+m .*"), suggest.out());
        assertTrue(
                suggest.out()
                        .matches("(?s).*\n#   container memory limit (\\d+) MiB .*docker run -m \\1m, Kubernetes"
                                + " resources.limits.memory: \\1Mi\n.*"),
                suggest.out());
        Forked.Result json = Forked.cli(dir, "report", "--json", recording().toString());
        assertTrue(json.out().matches("(?s).*\"processMemory\": \\{\\s*\"rssPeak\": [1-9][0-9]*,.*"), json.out());
        assertTrue(
                json.out()
                        .matches(
                                "(?s).*\"limits\": \\{\\s*\"maxDirectMemorySize\": [1-9][0-9]*,\\s*\"containerMemory\": [1-9][0-9]*\\s*}.*"),
                json.out());
    }

    /**
     * Requests after the agent's shutdown hook closed the trace (an application's own hook, threads
     * still running) are left out of it, as out of the recording, without a word: before, the first
     * of them printed "writing the allocation trace failed; it stops here: java.io.IOException:
     * Stream closed" at every such end.
     */
    @Test
    void requests_after_the_end_closed_the_trace_are_no_failure() throws Exception {
        Files.writeString(dir.resolve("layout.yaml"), LAYOUT + "  trace: trace-%p.txt\n");
        Forked.Result r = Forked.app(dir, List.of(Forked.agent(Path.of("layout.yaml"))), HookAllocates.class);
        assertEquals(0, r.exit(), r.toString());
        assertTrue(r.out().contains("hook held 20"), r.toString());
        assertFalse(r.err().contains("trace failed"), r.toString());
    }

    /**
     * An install of the layout already in force starts the pools' counters again; the run's peaks
     * are still those before it. Before, report showed the later peak alone (1 page of the 10 held)
     * and suggest capped the pool there.
     */
    @Test
    void an_install_of_the_same_layout_keeps_the_peaks_of_the_run() throws Exception {
        Forked.Result r = Forked.app(dir, agent(), ReinstallSame.class);
        assertEquals(0, r.exit(), r.toString());
        assertTrue(r.out().contains("reinstalled, holding 16"), r.toString());
        Forked.Result report = Forked.cli(dir, "report", recording().toString());
        assertEquals(0, report.exit(), report.toString());
        String pool = report.out()
                .lines()
                .filter(l -> l.matches(" +1 +sliced .*"))
                .findFirst()
                .orElseThrow(() -> new AssertionError(report.out()));
        assertTrue(pool.matches(" +1 +sliced +1 MiB +1 MiB +none +1 +10 .*"), "1 page now, 10 at the peak: " + pool);
        Forked.Result suggest = Forked.cli(dir, "suggest", recording().toString());
        assertEquals(0, suggest.exit(), suggest.toString());
        assertTrue(suggest.out().contains("pages: 10  # peak 10"), suggest.out());
    }

    /**
     * An install of another layout before the recording starts: the file knows only the layout in
     * force, and its pools. Before, the replaced pools' last reports went into the file ahead of
     * it: report listed a pool that no longer existed (10 pages) and gave the new pool the old
     * one's peak, and suggest capped both (a review).
     */
    @Test
    void an_install_before_the_recording_starts_leaves_no_pool_of_the_layout_it_replaced() throws Exception {
        Files.writeString(dir.resolve("layout.yaml"), LAYOUT.replace("period: 200 ms", "period: 5 s"));
        Forked.Result r = Forked.app(dir, List.of(Forked.agent(Path.of("layout.yaml"))), EarlyInstall.class);
        assertEquals(0, r.exit(), r.toString());
        assertTrue(r.out().contains("installed, holding 1"), r.toString());
        Forked.Result report = Forked.cli(dir, "report", recording().toString());
        assertEquals(0, report.exit(), report.toString());
        List<String> rows =
                report.out().lines().filter(l -> l.matches(" +\\d+ +sliced .*")).toList();
        assertEquals(1, rows.size(), report.out());
        assertTrue(rows.get(0).matches(" +0 +sliced +4 MiB +4 MiB +none +1 +1 .*"), report.out());
    }

    /**
     * A host that fills the heap while the agent starts, and survives it: whatever the full heap hit
     * (the release thread, the MBean's poller, the agent's start, a class of the agent's it left
     * unusable), the agent's threads say at most one line each, and no exception of theirs reaches
     * the host's stderr. Before, in 8 runs of 8: "Exception: java.lang.OutOfMemoryError thrown from
     * the UncaughtExceptionHandler in thread pools-release" (the release thread dead for the run),
     * the same in pools-start (the MBean lost), and the shutdown hook's stack trace
     * ("NoClassDefFoundError: Could not initialize class dev.pools.memory.NativeAccess"). Which of
     * these a run meets depends on when the heap fills; what is asserted holds for every one.
     */
    @Test
    void a_full_heap_at_the_agents_start_puts_no_exception_on_the_hosts_stderr() throws Exception {
        List<String> jvm = new ArrayList<>(agent());
        jvm.add("-Xmx32m");
        for (int run = 0; run < 3; run++) {
            Forked.Result r = Forked.app(dir, jvm, HeapFullAtStart.class);
            assertEquals(0, r.exit(), r.toString());
            assertEquals("done", r.out().strip(), r.toString());
            for (String line : r.err().lines().toList()) {
                // The JDK's own instrumentation library may say its transformer call failed at a full heap.
                boolean jdks = line.startsWith("*** java.lang.instrument ASSERTION FAILED ***");
                assertTrue(line.isBlank() || jdks || line.startsWith("pools: "), r.toString());
                assertFalse(
                        line.contains("Exception in thread") || line.contains("UncaughtExceptionHandler"),
                        r.toString());
            }
        }
    }

    /**
     * A host that catches a heap {@code OutOfMemoryError} and goes on keeps the agent: its release
     * thread, its recording and its MBean poller outlive the full heap. Before, each of them died of
     * the error (the release thread in building its own message about it): the buffers dropped since
     * never came back, and the recording lost its end ("did not end the recording (killed?)", the 10
     * buffers held at the spike as its last state).
     */
    @Test
    void a_full_java_heap_the_host_survives_leaves_the_agent_running_and_its_recording_whole() throws Exception {
        List<String> jvm = new ArrayList<>(agent());
        jvm.add("-Xmx32m");
        Forked.Result r = Forked.app(dir, jvm, HeapFullSpike.class);
        assertEquals(0, r.exit(), r.toString());
        assertFalse(r.err().contains("UncaughtExceptionHandler"), r.toString());
        assertTrue(r.out().contains("held 20 live 20"), r.toString());
        assertTrue(r.out().contains("threads [pools-jmx, pools-recorder, pools-release]"), r.toString());
        Forked.Result report = Forked.cli(dir, "report", recording().toString());
        assertEquals(0, report.exit(), report.toString());
        assertFalse(report.out().contains("did not end"), report.out());
        assertTrue(report.out().contains("usage at the end:  20 allocations"), report.out());
    }

    /**
     * Native memory outside the JVM's parts is a range, not the least of it: with a large committed
     * heap the JVM has barely touched, "RSS minus the committed heap" is 0 while the process holds
     * the 96 MiB the app malloced and wrote (the report said "native, other 0 B").
     */
    @Test
    void native_memory_outside_the_jvm_is_reported_as_a_range_that_holds_what_the_app_malloced() throws Exception {
        List<String> jvm = new ArrayList<>(agent());
        jvm.add("-Xms1g");
        Forked.Result r = Forked.app(dir, jvm, NativeHeld.class, "96");
        assertEquals(0, r.exit(), r.toString());
        Forked.Result report = Forked.cli(dir, "report", recording().toString());
        assertEquals(0, report.exit(), report.toString());
        String line = budgetLine(report, "native, other");
        Matcher m = Pattern.compile(
                        " +native, other +([0-9.]+ [KMG]?i?B) to ([0-9.]+) MiB +RSS minus the JVM's parts.*")
                .matcher(line);
        assertTrue(m.matches(), line);
        assertTrue(Double.parseDouble(m.group(2)) >= 96, line);
        Forked.Result json = Forked.cli(dir, "report", "--json", recording().toString());
        Matcher most = Pattern.compile("\"nativeOtherAtMost\": (\\d+)").matcher(json.out());
        assertTrue(most.find(), json.out());
        assertTrue(Long.parseLong(most.group(1)) >= 96L << 20, json.out());
    }

    /**
     * The committed heap is the whole heap under every collector. Serial's and Parallel's figure from
     * the JVM's bean counts the survivor space once, though two are committed: a review saw "Java heap
     * 494.9 MiB committed" for a heap of 512 MiB all touched, and the native memory's lower bound
     * 17 MiB too high.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"-XX:+UseSerialGC", "-XX:+UseParallelGC", "-XX:+UseG1GC"})
    void the_committed_heap_is_the_whole_heap_under_every_collector(String collector) throws Exception {
        List<String> jvm = new ArrayList<>(agent());
        jvm.addAll(List.of(collector, "-Xms512m", "-Xmx512m"));
        Forked.Result r = Forked.app(dir, jvm, RecordedWorkload.class, "normal");
        assertEquals(0, r.exit(), r.toString());
        Forked.Result report = Forked.cli(dir, "report", recording().toString());
        assertEquals(0, report.exit(), report.toString());
        assertTrue(budgetLine(report, "Java heap").matches(" +Java heap +512 MiB +committed; .*"), report.out());
    }

    @Test
    void a_run_without_a_layout_file_is_reported_as_the_default_layout_and_one_with_a_file_as_from_file()
            throws Exception {
        Forked.Result r = Forked.app(dir, List.of(Forked.agent(null)), RecordedWorkload.class, "normal");
        assertEquals(0, r.exit(), r.toString());
        Forked.Result report = Forked.reportOfDefaultRecording(dir);
        assertEquals(0, report.exit(), report.toString());
        assertTrue(report.out().contains(", layout host (default: no layout file given)\n"), report.out());
        Forked.Result json = Forked.cli(
                dir, "report", "--json", Forked.onlyDefaultRecording(dir).toString());
        assertTrue(json.out().contains("\"source\": \"default\""), json.out());

        Forked.Result fromFile = Forked.app(dir, agent(), RecordedWorkload.class, "normal");
        assertEquals(0, fromFile.exit(), fromFile.toString());
        Forked.Result reportFromFile = Forked.cli(dir, "report", recording().toString());
        assertTrue(reportFromFile.out().contains(" (from file)\n"), reportFromFile.out());
    }

    @Test
    void after_system_exit_the_last_reports_equal_what_the_api_saw_at_the_end() throws Exception {
        Forked.Result r = Forked.app(dir, agent(), RecordedWorkload.class, "exit");
        assertEquals(3, r.exit(), r.toString());
        assertEquals(apiLines(r.out()), finalState(recording()));
    }

    /** The threads workload, started and read until it says it is steady; the API's lines so far. */
    private record Steady(Process process, List<String> api) {}

    private Steady startSteadyThreads() throws Exception {
        return startSteadyThreads(agent());
    }

    private Steady startSteadyThreads(List<String> agent) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(Forked.java()));
        cmd.addAll(agent);
        cmd.addAll(List.of("-cp", Forked.TEST_CLASSES.toString(), RecordedWorkload.class.getName(), "threads"));
        Process p = new ProcessBuilder(cmd)
                .directory(dir.toFile())
                .redirectError(dir.resolve("err.txt").toFile())
                .start();
        BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        List<String> lines = new ArrayList<>();
        String line;
        while ((line = out.readLine()) != null && !line.equals("steady")) {
            lines.add(line);
        }
        assertEquals("steady", line, lines + Files.readString(dir.resolve("err.txt")));
        return new Steady(p, apiLines(String.join("\n", lines)));
    }

    /**
     * Recordings of one name ({@code %h} in a pod that restarts, {@code %t} for JVMs started in the
     * same second) are never destroyed by the next JVM: one that another running JVM writes, or that
     * a killed JVM left, stays; the new JVM writes {@code <name>-2.jfr}. Before, each JVM truncated the
     * file: the running one's recording became unreadable, the killed one's was lost.
     */
    @Test
    void a_recording_of_the_same_name_that_another_jvm_writes_or_a_killed_one_left_is_kept() throws Exception {
        Files.writeString(dir.resolve("layout.yaml"), LAYOUT.replace("run-%p.jfr", "same.jfr"));
        List<String> agent = List.of(Forked.agent(Path.of("layout.yaml")));
        Path same = dir.resolve("same.jfr");
        Path second = dir.resolve("same-2.jfr");
        Steady running = startSteadyThreads(agent);
        Process p = running.process();
        try {
            Forked.Result beside = Forked.app(dir, agent, RecordedWorkload.class, "normal");
            assertEquals(0, beside.exit(), beside.toString());
            assertTrue(
                    beside.err()
                            .contains("pools: " + Path.of("same.jfr") + " is written by another running JVM;"
                                    + " this JVM's recording goes to " + Path.of("same-2.jfr")),
                    beside.toString());
            assertEquals(apiLines(beside.out()), finalState(second), "the second JVM's recording");
            // The first JVM's file was not touched: its batches read back as its own, while it writes
            // them. (Read in place, the bytes of a batch it appended and did not count yet made about
            // one read in two fail: "Not a Flight Recorder file", or no events at all.)
            for (int i = 0; i < 5; i++) {
                Forked.Result first = Forked.cli(dir, "report", same.toString());
                assertEquals(0, first.exit(), first.toString());
                assertTrue(first.out().contains("process " + p.pid() + "\n"), first.out());
                // Said as what it is, not as a killed JVM's (a review: "did not end the recording (killed?)").
                assertTrue(first.out().contains("read while its JVM runs: " + same), first.out());
                assertFalse(first.out().contains("killed?"), first.out());
            }
        } finally {
            p.destroyForcibly(); // SIGKILL: the first JVM leaves its recording unended
        }
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        Forked.Result after = Forked.app(dir, agent, RecordedWorkload.class, "normal");
        assertEquals(0, after.exit(), after.toString());
        assertTrue(
                after.err()
                        .contains("pools: " + Path.of("same.jfr") + " holds the recording of a JVM that did not end"
                                + " it (killed?), which is kept; this JVM's recording goes to "
                                + Path.of("same-2.jfr")),
                after.toString());
        assertEquals(apiLines(after.out()), finalState(second), "an ended recording is replaced");
        Forked.Result killed = Forked.cli(dir, "report", same.toString());
        assertEquals(0, killed.exit(), killed.toString());
        assertTrue(killed.out().contains("process " + p.pid() + "\n"), killed.out());
        assertTrue(killed.out().contains("its JVM did not end the recording"), killed.out());
        assertFalse(killed.out().contains("read while its JVM runs"), killed.out());
    }

    /**
     * The same while the first JVM sets its file aside at {@code report.max_size} every few
     * milliseconds: the file at the name is always its, and locked. Before, a rotation ended and let
     * go of the old file before the new one was at the name, and a JVM that opened the name in
     * between wrote into the old file, which the next rotation dropped (a review: 9 of 40 runs).
     */
    @Test
    void a_jvm_of_the_same_name_never_takes_the_file_of_one_that_sets_it_aside() throws Exception {
        Files.writeString(
                dir.resolve("rotating.yaml"),
                LAYOUT.replace("run-%p.jfr", "same.jfr").replace("period: 200 ms", "period: 10 ms\n  max_size: 64 KiB")
                        + "on_exhausted: fail\n");
        Files.writeString(dir.resolve("layout.yaml"), LAYOUT.replace("run-%p.jfr", "same.jfr"));
        List<String> cmd = new ArrayList<>(List.of(Forked.java(), Forked.agent(Path.of("rotating.yaml"))));
        cmd.addAll(List.of("-cp", Forked.TEST_CLASSES.toString(), RefuseUntilKilled.class.getName()));
        Process rotating = new ProcessBuilder(cmd)
                .directory(dir.toFile())
                .redirectError(dir.resolve("rotating.err").toFile())
                .start();
        try {
            BufferedReader out =
                    new BufferedReader(new InputStreamReader(rotating.getInputStream(), StandardCharsets.UTF_8));
            assertEquals("refusing", out.readLine());
            // Until it has set its file aside at least once.
            for (int i = 0; i < 600 && !Files.exists(dir.resolve("same.jfr.1")); i++) {
                Thread.sleep(50);
            }
            assertTrue(Files.exists(dir.resolve("same.jfr.1")), Files.readString(dir.resolve("rotating.err")));
            for (int run = 0; run < 8; run++) {
                Forked.Result other = Forked.app(
                        dir, List.of(Forked.agent(Path.of("layout.yaml"))), RecordedWorkload.class, "normal");
                assertEquals(0, other.exit(), other.toString());
                assertTrue(
                        other.err().contains("this JVM's recording goes to " + Path.of("same-2.jfr")),
                        "run " + run + ": " + other);
            }
        } finally {
            rotating.destroyForcibly();
            rotating.waitFor(60, TimeUnit.SECONDS);
        }
    }

    @Test
    void sigterm_while_four_threads_allocate_leaves_a_complete_recording() throws Exception {
        Steady steady = startSteadyThreads();
        Process p = steady.process();
        p.destroy(); // SIGTERM
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        assertEquals(143, p.exitValue(), "killed by SIGTERM");

        List<String> last = finalState(recording());
        List<String> api = steady.api();
        assertEquals(
                api.subList(0, 2),
                last.subList(0, 2),
                "pools' page sizes, pages and peaks as the API saw them when steady");
        String[] usage = last.get(2).split(" ");
        long live = Long.parseLong(usage[1]);
        assertTrue(live >= 28 && live <= 32, "four threads hold 7 or 8 buffers each at any moment: " + last);
        assertEquals(live * 64 * 1024, Long.parseLong(usage[2]), "bytes in use match the live count");
        assertEquals(2L << 20, Long.parseLong(usage[4]), "32 buffers of 64 KiB fill two 1 MiB pages exactly: " + last);
        assertFalse(Files.exists(dir.resolve(recording().getFileName() + ".d")), "no repository folder");
    }

    @Test
    void after_sigkill_report_and_suggest_read_what_was_flushed_and_report_gives_one_row_per_jvm() throws Exception {
        Steady steady = startSteadyThreads();
        Process p = steady.process();
        Path file = dir.resolve("run-" + p.pid() + ".jfr");
        // The steady state, as the API printed it: "api-report <pageSize> <pages> <pagesPeak> <largest>".
        String steadyPeak = steady.api().get(1).split(" ")[3];
        assertEquals("2", steadyPeak, "32 buffers of 64 KiB fill two 1 MiB pages: " + steady.api());
        // A batch every report.period: the file grows with each. Three batches after "steady" (three
        // times the file grew) hold one taken after it.
        long size = -1;
        int grew = 0;
        try {
            for (int i = 0; i < 2400 && grew < 3; i++) {
                long now = Files.exists(file) ? Files.size(file) : 0;
                if (size >= 0 && now > size) {
                    grew++;
                }
                size = now;
                Thread.sleep(50);
            }
        } finally {
            p.destroyForcibly(); // SIGKILL
        }
        assertEquals(3, grew, "the recording grew three times");
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        assertEquals(137, p.exitValue(), "killed by SIGKILL");
        assertFalse(Files.exists(dir.resolve(file.getFileName() + ".d")), "no repository folder");

        Forked.Result report = Forked.cli(dir, "report", file.toString());
        assertEquals(0, report.exit(), report.toString());
        assertTrue(report.out().contains("process " + p.pid() + "\n"), report.out());
        assertTrue(
                report.out().contains("recovered from " + file + ": its JVM did not end the recording"), report.out());
        String recovered = report.out()
                .lines()
                .filter(l -> l.matches(" +1 +sliced .*"))
                .findFirst()
                .orElseThrow();
        assertTrue(recovered.matches(" +1 +sliced +1 MiB +1 MiB +none +2 +2 .*"), "pool 1 holds 2 pages: " + recovered);

        Forked.Result suggest = Forked.cli(dir, "suggest", file.toString());
        assertEquals(0, suggest.exit(), suggest.toString());
        assertTrue(suggest.out().contains("recovered from a JVM that did not exit cleanly"), suggest.out());
        assertTrue(
                suggest.out()
                        .matches(
                                "(?s).*page_size: 1 MiB +# 1048576 B\n +max_slice: 1 MiB +# 1048576 B\n +pages: 2  # peak 2.*"),
                suggest.out());

        // A second JVM that ends normally: the fleet view puts both side by side.
        Forked.Result normal = Forked.app(dir, agent(), RecordedWorkload.class, "normal");
        assertEquals(0, normal.exit(), normal.toString());
        List<String> files;
        try (var all = Files.list(dir)) {
            files = all.map(f -> f.getFileName().toString())
                    .filter(n -> n.matches("run-\\d+\\.jfr"))
                    .sorted()
                    .toList();
        }
        assertEquals(2, files.size(), files.toString());
        List<String> args = new ArrayList<>(List.of("report"));
        args.addAll(files);
        Forked.Result fleet = Forked.cli(dir, args.toArray(String[]::new));
        assertEquals(0, fleet.exit(), fleet.toString());
        String out = fleet.out();
        assertTrue(out.contains("fleet: 2 JVMs, 1 recovered"), out);
        assertTrue(
                out.lines().anyMatch(l -> l.matches(" +" + file.getFileName() + " +" + p.pid() + " .* recovered .*")),
                out);
        assertTrue(out.lines().anyMatch(l -> l.matches(" +run-\\d+\\.jfr +\\d+ .* complete .*")), out);
        assertTrue(out.lines().anyMatch(l -> l.matches(" +fleet maximum .* \\d+ / \\d+ +0 +0")), out);
        // The peaks in bytes are the batches' samples: said so, as a single recording's line says it.
        assertTrue(out.contains("peak reserved and peak in use are as sampled"), out);
    }

    /**
     * With a long report.period (here a minute) the recording still starts within a second: a JVM
     * killed after that leaves a file with its layout and a first batch. Before, the file was created
     * one period in, and a JVM killed sooner left none.
     */
    @Test
    void a_jvm_killed_within_a_long_first_period_leaves_its_layout_and_a_first_batch() throws Exception {
        Files.writeString(dir.resolve("layout.yaml"), LAYOUT.replace("period: 200 ms", "period: 1 min"));
        Steady steady = startSteadyThreads(List.of(Forked.agent(Path.of("layout.yaml"))));
        Process p = steady.process();
        Path file = dir.resolve("run-" + p.pid() + ".jfr");
        // Until the file holds whole batches with the layout: a reader sees whole batches only.
        boolean layout = false;
        try {
            for (int i = 0; i < 600 && !layout; i++) {
                Thread.sleep(50);
                layout = Files.exists(file) && hasLayout(file);
            }
        } finally {
            p.destroyForcibly(); // SIGKILL
        }
        assertTrue(layout, "the recording started within 30 s, half its period");
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        assertEquals(137, p.exitValue(), "killed by SIGKILL");

        Forked.Result report = Forked.cli(dir, "report", file.toString());
        assertEquals(0, report.exit(), report.toString());
        assertTrue(
                report.out().contains("recovered from " + file + ": its JVM did not end the recording"), report.out());
        assertTrue(
                report.out().lines().anyMatch(l -> l.matches(" +0 +sliced +256 KiB +16 KiB +none .*")), report.out());
        assertTrue(report.out().lines().anyMatch(l -> l.matches(" +1 +sliced +1 MiB +1 MiB +none .*")), report.out());
    }

    /**
     * With report.max_size, the file is set aside as {@code <file>.1} when it reaches that size and a new
     * one begun at its name: two files at most, each a whole recording (the JVM's event, the layout,
     * batches, a final batch, marked as ended) that report reads, and no refusal lost or written twice
     * across the change, though two threads refuse all the while.
     */
    @Test
    void at_report_max_size_the_file_is_set_aside_whole_and_no_refusal_is_lost_across_the_change() throws Exception {
        Files.writeString(
                dir.resolve("layout.yaml"), LAYOUT.replace("period: 200 ms", "period: 10 ms\n  max_size: 64 KiB"));
        Forked.Result r =
                Forked.app(dir, List.of(Forked.agent(Path.of("layout.yaml"))), RecordedWorkload.class, "refuse-many");
        assertEquals(0, r.exit(), r.toString());
        assertTrue(r.out().contains("rotations 2"), r.toString());
        assertEquals("", r.err(), "nothing to say");
        Path current = recording();
        Path previous = current.resolveSibling(current.getFileName() + ".1");
        assertTrue(Files.exists(previous), previous.toString());
        try (var files = Files.list(dir)) {
            List<String> names = files.map(f -> f.getFileName().toString())
                    .filter(n -> n.startsWith("run-"))
                    .sorted()
                    .toList();
            assertEquals(
                    List.of(
                            current.getFileName().toString(),
                            previous.getFileName().toString()),
                    names);
        }
        assertTrue(Files.size(previous) >= 64 << 10, "set aside once it reached max_size: " + Files.size(previous));
        List<Integer> numbers = new ArrayList<>();
        for (Path file : List.of(previous, current)) {
            // Set aside at the first batch past 64 KiB: past it by what two threads refuse between two batches
            // (10 ms apart, longer on a busy machine: 1 MiB would take seconds of a stalled recorder) and the
            // final batch.
            assertTrue(Files.size(file) < 1 << 20, file + ": " + Files.size(file) + " B");
            List<RecordedEvent> events = RecordingFile.readAllEvents(file);
            assertEquals("jdk.JVMInformation", events.get(0).getEventType().getName(), file.toString());
            assertTrue(
                    events.stream().anyMatch(e -> e.getEventType().getName().equals("pools.Layout")), file.toString());
            assertTrue(
                    events.stream().anyMatch(e -> e.getEventType().getName().equals("pools.CallSite")),
                    file.toString());
            for (RecordedEvent e : events) {
                if (e.getEventType().getName().equals("pools.AllocationRefused")) {
                    numbers.add((int) (e.getLong("size") - (2 << 20)));
                }
            }
            Forked.Result report = Forked.cli(dir, "report", file.getFileName().toString());
            assertEquals(0, report.exit(), report.toString());
            assertFalse(report.out().contains("recovered"), "each file is marked as ended: " + report.out());
        }
        // The older refusals went with the first file, replaced at the second change; from then on, all,
        // each once. A thread records its refusals in the order it makes them, and a refusal goes to
        // the file in force when it is recorded: so of each thread's refusals the two files hold an
        // unbroken run that ends with its last, whatever the other thread or the machine's load.
        List<Integer> sorted = numbers.stream().sorted().toList();
        assertEquals(new HashSet<>(numbers).size(), numbers.size(), "no refusal twice: " + sorted);
        int refused = Integer.parseInt(line(r, "refused-0")) + Integer.parseInt(line(r, "refused-1"));
        for (int t = 0; t < 2; t++) {
            int own = t;
            int made = Integer.parseInt(line(r, "refused-" + t));
            List<Integer> mine = sorted.stream().filter(n -> n % 2 == own).toList();
            assertTrue(mine.get(0) > own, "the first file's refusals are gone with it: " + mine);
            List<Integer> expected = new ArrayList<>();
            for (int n = mine.get(0); n <= own + 2 * (made - 1); n += 2) {
                expected.add(n);
            }
            assertEquals(expected, mine, "thread " + t + ": every refusal since the earliest kept, to its last");
        }
        // Both files together are one JVM's recording: one report, its counters not summed.
        Forked.Result both = Forked.cli(
                dir,
                "report",
                current.getFileName().toString(),
                previous.getFileName().toString());
        assertEquals(0, both.exit(), both.toString());
        assertTrue(
                both.out().startsWith(current.getFileName() + " (with " + previous.getFileName() + "): "), both.out());
        assertFalse(both.out().contains("fleet"), both.out());
        // The refusals by the pools' counters; those of the file set aside before are counted only.
        assertTrue(
                both.out().lines().anyMatch(l -> l.matches("fallbacks: +" + refused + " .* refusals: " + refused)),
                both.out());
        assertTrue(
                both.out()
                        .contains("\n                   " + (refused - numbers.size())
                                + " of the refusals are counted only, not recorded one by one here: "),
                both.out());
        // html draws the same JVM from both files; given the current one only, it says where the rest is.
        // Before, it took one file and said nothing of the other.
        Forked.Result html = Forked.cli(
                dir,
                "html",
                current.getFileName().toString(),
                previous.getFileName().toString(),
                "-o",
                "both.html");
        assertEquals(0, html.exit(), html.toString());
        String page = Files.readString(dir.resolve("both.html"));
        assertTrue(page.matches("(?s).*fallbacks: +" + refused + " .* refusals: " + refused + "\\b.*"), page);
        Forked.Result one = Forked.cli(dir, "html", current.getFileName().toString(), "-o", "one.html");
        assertEquals(0, one.exit(), one.toString());
        assertTrue(one.err().contains(previous.getFileName() + " beside " + current.getFileName()), one.toString());
        Files.copy(previous, dir.resolve("other.jfr"), StandardCopyOption.REPLACE_EXISTING);
        Forked.Result two = Forked.cli(dir, "html", current.getFileName().toString(), "other.jfr", "-o", "two.html");
        assertEquals(2, two.exit(), two.toString());
        assertTrue(two.err().contains("html draws one JVM's recording, and 2 JVMs' were given"), two.toString());
        assertFalse(Files.exists(dir.resolve("two.html")));
    }

    /**
     * A batch reads the pools' reports and writes them; an install between the two made a batch of the
     * old pools follow the new layout's event, and report and suggest then read pools the recorded
     * layout does not have. Every pool report must be of the layout recorded last before it, with a
     * batch every millisecond and an install every two or so (before the fix, a few batches in a
     * thousand broke this).
     */
    @Test
    void every_pool_report_is_of_the_layout_recorded_before_it_though_installs_come_during_batches() throws Exception {
        Files.writeString(dir.resolve("layout.yaml"), """
                layout: sliced
                pools:
                  - page_size: 256 KiB
                intercept:
                  packages: [it.host]
                report:
                  file: run.jfr
                  period: 1 ms
                """);
        Forked.Result r = Forked.app(dir, List.of(Forked.agent(Path.of("layout.yaml"))), ApiApp.class, "install-loop");
        assertEquals(0, r.exit(), r.toString());
        assertTrue(r.out().contains("installed 400"), r.toString());
        List<RecordedEvent> events = new ArrayList<>(RecordingFile.readAllEvents(dir.resolve("run.jfr")));
        events.sort(Comparator.comparing(RecordedEvent::getEndTime));
        long pageSize = -1;
        int layouts = 0;
        int reports = 0;
        for (RecordedEvent e : events) {
            switch (e.getEventType().getName()) {
                case "pools.Layout" -> {
                    String yaml = e.getString("layout");
                    pageSize = yaml.contains("page_size: 1 MiB") ? 1 << 20 : 256 << 10;
                    assertTrue(yaml.contains("page_size: " + (pageSize == 1 << 20 ? "1 MiB" : "256 KiB")), yaml);
                    layouts++;
                }
                case "pools.PoolReport" -> {
                    assertEquals(pageSize, e.getLong("pageSize"), "a report of layout " + layouts + ": " + e);
                    reports++;
                }
                default -> {}
            }
        }
        assertEquals(401, layouts, "the layout at the start and each install");
        assertTrue(reports > 41, "reports: " + reports);
    }

    /**
     * Refusals wait in memory for the next batch; with report.period 0 that is the JVM's end. A storm of
     * them must neither grow the host's heap nor the file without bound: past what a file keeps between
     * batches they are counted, not recorded one by one, and the report says how many. Under {@code
     * on_exhausted: fail} too: there the refusals were counted only one by one, and the report said
     * "refusals: 11 857" of 200 000 requests refused to the host, and no word of the rest.
     */
    @ParameterizedTest
    @ValueSource(strings = {"fallback", "fail"})
    void with_report_period_0_a_storm_of_refusals_is_counted_and_the_file_stays_bounded(String onExhausted)
            throws Exception {
        Files.writeString(dir.resolve("layout.yaml"), """
                layout: sliced
                pools:
                  - page_size: 64 KiB
                    max_slice: 64 B
                on_exhausted: %s
                intercept:
                  packages: [it.host]
                report:
                  file: run.jfr
                  period: 0
                  max_size: 64 KiB
                """.formatted(onExhausted));
        int count = 200_000;
        int failed = onExhausted.equals("fail") ? count : 0;
        Forked.Result r = Forked.app(
                dir,
                List.of(Forked.agent(Path.of("layout.yaml"))),
                RecordedWorkload.class,
                "refuse-small",
                String.valueOf(count));
        assertEquals(0, r.exit(), r.toString());
        assertTrue(r.out().contains("refused " + count + ", failed " + failed), r.toString());
        assertTrue(r.err().matches("pools: \\d+ refusals were counted and not recorded one by one .*\\R"), r.err());
        Path file = dir.resolve("run.jfr");
        // 1 MiB of refusals at most between two batches, whatever max_size below it; the final batch besides.
        assertTrue(Files.size(file) < 1200 << 10, "bounded: " + Files.size(file) + " B");
        Forked.Result report = Forked.cli(dir, "report", "run.jfr");
        assertEquals(0, report.exit(), report.toString());
        assertTrue(
                report.out()
                        .lines()
                        .anyMatch(l -> l.matches("fallbacks: +" + (count - failed) + " .* refusals: " + count)),
                report.out());
        assertTrue(
                report.out().lines().anyMatch(l -> l.matches(" +\\d+ of the refusals are counted only, .*")),
                report.out());
        // 50 sizes refused: the 20 most frequent one by one, the rest counted in a line (a review's run
        // printed a line for each of a thousand sizes).
        List<String> refusedLines = report.out()
                .lines()
                .dropWhile(l -> !l.equals("refused requests:"))
                .skip(1)
                .toList();
        assertEquals(21, refusedLines.size(), report.out());
        assertTrue(
                refusedLines.subList(0, 20).stream().allMatch(l -> l.matches("  \\d+ x 1[0-4]\\d B at .*")),
                report.out());
        assertTrue(
                refusedLines
                        .get(20)
                        .matches(
                                "  and 30 more of other sizes or sites \\(\\d+ requests\\): report --json lists them all"),
                report.out());
        Forked.Result json = Forked.cli(dir, "report", "--json", "run.jfr");
        assertEquals(0, json.exit(), json.toString());
        assertTrue(json.out().contains("\"failedAllocs\": " + failed + ","), json.out());
        // One sample of the process's memory, at the end: not the direct memory's peak, so no limit from it.
        Forked.Result suggest = Forked.cli(dir, "suggest", "run.jfr");
        assertEquals(0, suggest.exit(), suggest.toString());
        assertTrue(
                suggest.out()
                        .contains("#   -XX:MaxDirectMemorySize: none suggested: run.jfr has the process's memory at its"
                                + " end only (report.period: 0), not at its peak\n"),
                suggest.out());
        assertTrue(
                suggest.out()
                        .lines()
                        .anyMatch(l -> l.matches("# \\d+ more requests the pools did not serve are counted only, .*")),
                suggest.out());
    }

    /**
     * A file that cannot be set aside at report.max_size (here a directory is in the way of
     * {@code <file>.1}) leaves the recording where it is, at its name, said in one line: not moved to
     * a file of another name.
     */
    @Test
    void a_file_that_cannot_be_set_aside_goes_on_at_its_name() throws Exception {
        Files.writeString(
                dir.resolve("layout.yaml"),
                LAYOUT.replace("file: run-%p.jfr", "file: run.jfr")
                        .replace("period: 200 ms", "period: 10 ms\n  max_size: 64 KiB"));
        Files.createDirectories(dir.resolve("run.jfr.1").resolve("in-the-way"));
        Forked.Result r = Forked.app(
                dir,
                List.of(Forked.agent(Path.of("layout.yaml"))),
                RecordedWorkload.class,
                "refuse-past",
                "65536",
                "run.jfr");
        assertEquals(0, r.exit(), r.toString());
        assertTrue(
                r.err()
                        .matches(
                                "pools: the recording could not be set aside at report.max_size; it goes on in one file,"
                                        + " unbounded: .*\\R"),
                r.err());
        try (var files = Files.list(dir)) {
            assertEquals(
                    List.of("layout.yaml", "run.jfr", "run.jfr.1"),
                    files.map(f -> f.getFileName().toString()).sorted().toList());
        }
        int refused = refused(r);
        Forked.Result report = Forked.cli(dir, "report", "run.jfr");
        assertEquals(0, report.exit(), report.toString());
        assertTrue(
                report.out().lines().anyMatch(l -> l.matches("fallbacks: +" + refused + " .* refusals: " + refused)),
                "every refusal in the file at the name: " + report.out());
    }

    private static boolean hasLayout(Path file) {
        try {
            return RecordingFile.readAllEvents(file).stream()
                    .anyMatch(e -> e.getEventType().getName().equals("pools.Layout"));
        } catch (Exception e) {
            return false; // not yet a recording
        }
    }

    @Test
    void a_refused_allocation_is_recorded_with_the_stack_of_the_code_that_asked() throws Exception {
        Forked.Result r = Forked.app(dir, agent(), RecordedWorkload.class, "refuse");
        assertEquals(0, r.exit(), r.toString());
        assertEquals(List.of("served 3145728"), r.out().lines().toList(), "the fallback served it");
        assertOneRefusalWithItsStack(recording());
    }

    /**
     * A refusal before the recording's file exists (created a second in at the latest, held back here
     * for a minute by a test property, so at the JVM's end whatever the machine's speed: a review measured
     * gaps down to 0.7 s between the refusal and the start on a loaded machine) is kept with its thread
     * and stack and written when the recording starts. Before, refusals until the recording's start
     * were only counted, and a JVM that ended before that start wrote no recording at all.
     */
    @Test
    void a_refusal_before_the_recording_starts_is_kept_and_a_short_jvm_is_recorded_whole() throws Exception {
        Files.writeString(dir.resolve("layout.yaml"), LAYOUT.replace("period: 200 ms", "period: 1 min"));
        Forked.Result r = Forked.app(
                dir,
                List.of(Forked.agent(Path.of("layout.yaml")), "-Dpools.test.recordingSetupDelayMs=60000"),
                RecordedWorkload.class,
                "refuse-now");
        assertEquals(0, r.exit(), r.toString());
        assertEquals(List.of("served 3145728"), r.out().lines().toList(), "the fallback served it");
        assertEquals("", r.err(), "nothing to say");
        assertOneRefusalWithItsStack(recording());
        // The file spans the time from the agent's start: the JVM's event is at that start (as JFR
        // writes it at a chunk's), not at the file's creation after the refusal.
        Map<String, Instant> first = new HashMap<>();
        for (RecordedEvent e : RecordingFile.readAllEvents(recording())) {
            first.merge(e.getEventType().getName(), e.getStartTime(), (a, b) -> a.isBefore(b) ? a : b);
        }
        assertTrue(first.get("jdk.JVMInformation").isBefore(first.get("pools.AllocationRefused")), first.toString());
        // And at its own time, before the file was created (with its layout, at the JVM's end).
        assertTrue(first.get("pools.AllocationRefused").isBefore(first.get("pools.Layout")), first.toString());
        Forked.Result report =
                Forked.cli(dir, "report", recording().getFileName().toString());
        assertEquals(0, report.exit(), report.toString());
        assertTrue(report.out().contains("layout sliced"), report.out());
        assertFalse(report.out().contains("recovered"), "the file was ended with its JVM: " + report.out());
    }

    private static void assertOneRefusalWithItsStack(Path recording) throws Exception {
        List<RecordedEvent> refused = RecordingFile.readAllEvents(recording).stream()
                .filter(e -> e.getEventType().getName().equals("pools.AllocationRefused"))
                .toList();
        assertEquals(1, refused.size());
        RecordedEvent e = refused.get(0);
        assertEquals(3L << 20, e.getLong("size"));
        assertEquals("fallback", e.getString("outcome"));
        assertEquals("it.host.Tensors#allocate", e.getString("site"));
        assertTrue(e.getString("reason").startsWith("no pool takes 3 MiB"), e.getString("reason"));
        assertEquals("main", e.getThread().getJavaName(), "the thread that asked");
        assertNotNull(e.getStackTrace());
        List<String> frames = e.getStackTrace().getFrames().stream()
                .map(RecordedFrame::getMethod)
                .map(m -> m.getType().getName() + "#" + m.getName())
                .collect(Collectors.toList());
        assertTrue(
                frames.contains("it.host.Tensors#allocate")
                        && frames.contains(RecordedWorkload.class.getName() + "#main"),
                frames.toString());
        List<RecordedEvent> usage = RecordingFile.readAllEvents(recording).stream()
                .filter(x -> x.getEventType().getName().equals("pools.Usage"))
                .sorted(Comparator.comparing(RecordedEvent::getEndTime))
                .toList();
        assertEquals(1, usage.get(usage.size() - 1).getLong("fallbackAllocs"));
    }

    /**
     * And kept in memory ({@code disk=false}), whose file the JDK writes at the end without the flag
     * the agent's own file has: report reads it as it is, not as the recording of a killed JVM.
     */
    @ParameterizedTest
    @ValueSource(strings = {"disk=true", "disk=false"})
    void a_users_own_flight_recording_keeps_working_beside_the_pools_recording(String disk) throws Exception {
        List<String> jvm = new ArrayList<>(agent());
        jvm.add("-XX:StartFlightRecording:" + disk + ",filename=user.jfr,settings=default");
        Forked.Result r = Forked.app(dir, jvm, RecordedWorkload.class, "normal");
        assertEquals(0, r.exit(), r.toString());
        assertEquals(apiLines(r.out()), finalState(recording()), "the pools recording is unchanged");
        List<RecordedEvent> user = RecordingFile.readAllEvents(dir.resolve("user.jfr"));
        assertTrue(
                user.stream().anyMatch(e -> e.getEventType().getName().equals("jdk.JVMInformation")),
                "the user's events are there");
        assertTrue(
                user.stream().anyMatch(e -> e.getEventType().getName().equals("pools.Usage")),
                "and may include the pools events");
        // With the layout at the chunk's end: report reads the user's recording too. Before, it had
        // none (the pools' own recording wrote it before JFR's listener was added) and was refused.
        Forked.Result report = Forked.cli(dir, "report", "user.jfr");
        assertEquals(0, report.exit(), report.toString());
        assertTrue(report.out().contains("layout sliced (from file)"), report.out());
        assertFalse(report.out().contains("did not end"), report.out());
    }

    @Test
    void the_jdk_jfr_tool_prints_and_summarises_the_recording() throws Exception {
        Forked.Result r = Forked.app(dir, agent(), RecordedWorkload.class, "normal");
        assertEquals(0, r.exit(), r.toString());
        String jfr = Path.of(System.getProperty("java.home"), "bin", "jfr").toString();
        Forked.Result print = Forked.run(
                dir, List.of(jfr, "print", "--events", "pools.*", recording().toString()));
        assertEquals(0, print.exit(), print.toString());
        for (String name :
                List.of("pools.Layout", "pools.PoolReport", "pools.Usage", "pools.CallSite", "pools.RequestSizes")) {
            assertTrue(print.out().contains(name + " {"), name + " in:\n" + print.out());
        }
        assertTrue(print.out().contains("site = \"it.host.Tensors#allocate\""), print.out());
        assertTrue(print.out().contains("pageSize = 256.0 kB"), "sizes carry @DataAmount: " + print.out());
        Forked.Result summary =
                Forked.run(dir, List.of(jfr, "summary", recording().toString()));
        assertEquals(0, summary.exit(), summary.toString());
        assertTrue(summary.out().contains("pools.PoolReport"), summary.out());
        List<String> others = summary.out()
                .lines()
                .map(String::strip)
                .filter(l -> l.startsWith("jdk."))
                .filter(
                        l -> !l.matches(
                                "jdk\\.(ActiveSetting|ActiveRecording|CheckPoint|Checkpoint|Metadata|ChunkHeader|JVMInformation)\\b.*"))
                .filter(l -> !l.split("\\s+")[1].equals("0"))
                .toList();
        assertEquals(
                List.of(),
                others,
                "beside JFR's own bookkeeping and the JVM's identity the recording holds only pools events");
    }
}
