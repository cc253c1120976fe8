package dev.pools.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.pools.it.apps.RecordedWorkload;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The recording holds the final state after every way a JVM ends, and the JDK's own tools read it. */
class RecordingIT {

    @TempDir
    Path dir;

    private static final String LAYOUT =
            """
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
    }

    @Test
    void after_system_exit_the_last_reports_equal_what_the_api_saw_at_the_end() throws Exception {
        Forked.Result r = Forked.app(dir, agent(), RecordedWorkload.class, "exit");
        assertEquals(3, r.exit(), r.toString());
        assertEquals(apiLines(r.out()), finalState(recording()));
    }

    @Test
    void sigterm_while_four_threads_allocate_leaves_a_complete_recording() throws Exception {
        List<String> cmd = new ArrayList<>(List.of(Forked.java()));
        cmd.addAll(agent());
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
        p.destroy(); // SIGTERM
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        assertEquals(143, p.exitValue(), "killed by SIGTERM");

        List<String> last = finalState(recording());
        List<String> api = apiLines(String.join("\n", lines));
        assertEquals(
                api.subList(0, 2),
                last.subList(0, 2),
                "pools' page sizes, pages and peaks as the API saw them when steady");
        String[] usage = last.get(2).split(" ");
        long live = Long.parseLong(usage[1]);
        assertTrue(live >= 28 && live <= 32, "four threads hold 7 or 8 buffers each at any moment: " + last);
        assertEquals(live * 64 * 1024, Long.parseLong(usage[2]), "bytes in use match the live count");
        assertEquals(2L << 20, Long.parseLong(usage[4]), "32 buffers of 64 KiB fill two 1 MiB pages exactly: " + last);
    }

    @Test
    void a_refused_allocation_is_recorded_with_the_stack_of_the_code_that_asked() throws Exception {
        Forked.Result r = Forked.app(dir, agent(), RecordedWorkload.class, "refuse");
        assertEquals(0, r.exit(), r.toString());
        assertEquals(List.of("served 3145728"), r.out().lines().toList(), "the fallback served it");
        List<RecordedEvent> refused = RecordingFile.readAllEvents(recording()).stream()
                .filter(e -> e.getEventType().getName().equals("pools.AllocationRefused"))
                .toList();
        assertEquals(1, refused.size());
        RecordedEvent e = refused.get(0);
        assertEquals(3L << 20, e.getLong("size"));
        assertEquals("fallback", e.getString("outcome"));
        assertEquals("it.host.Tensors#allocate", e.getString("site"));
        assertTrue(e.getString("reason").startsWith("no pool takes 3 MiB"), e.getString("reason"));
        assertNotNull(e.getStackTrace());
        List<String> frames = e.getStackTrace().getFrames().stream()
                .map(RecordedFrame::getMethod)
                .map(m -> m.getType().getName() + "#" + m.getName())
                .collect(Collectors.toList());
        assertTrue(
                frames.contains("it.host.Tensors#allocate")
                        && frames.contains(RecordedWorkload.class.getName() + "#main"),
                frames.toString());
        List<RecordedEvent> usage = RecordingFile.readAllEvents(recording()).stream()
                .filter(x -> x.getEventType().getName().equals("pools.Usage"))
                .sorted(Comparator.comparing(RecordedEvent::getEndTime))
                .toList();
        assertEquals(1, usage.get(usage.size() - 1).getLong("fallbackAllocs"));
    }

    @Test
    void a_users_own_flight_recording_keeps_working_beside_the_pools_recording() throws Exception {
        List<String> jvm = new ArrayList<>(agent());
        jvm.add("-XX:StartFlightRecording:filename=user.jfr,settings=default");
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
                .filter(l -> !l.matches(
                        "jdk\\.(ActiveSetting|ActiveRecording|CheckPoint|Checkpoint|Metadata|ChunkHeader)\\b.*"))
                .filter(l -> !l.split("\\s+")[1].equals("0"))
                .toList();
        assertEquals(List.of(), others, "beside JFR's own bookkeeping the recording holds only pools events");
    }
}
