package dev.pools.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.pools.it.apps.EndDuringRecordingStart;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A JVM that ends while its recording is starting still exits. The recording starts on a thread of
 * the agent's; when {@code main} returned during that start, JFR's shutdown hook could finish first,
 * and the start, once in JFR, never returned: the agent's shutdown hook waited for it, and the JVM
 * hung at exit (seen under DJL's own tests, and in 1 to 3 of 14 JVMs that ended within 2 s of
 * their start). A test hook holds the start open for 3 s, and {@code main} returns while it is.
 */
class RecordingStartIT {

    private static final String LAYOUT = """
            layout: sliced
            pools:
              - page_size: 1 MiB
            report:
              file: run.jfr
            """;

    @TempDir
    Path dir;

    @Test
    void a_jvm_that_ends_while_its_recording_starts_exits() throws Exception {
        Forked.Result r = endDuringStart("pools.test.recordingStartDelayMs");
        // Whichever of JFR's hook and the agent's finished first, the agent says what became of the
        // recording, or JFR wrote it.
        assertTrue(
                r.err().isBlank() || r.err().contains("the JVM ended while the recording was starting"), r.toString());
    }

    /**
     * A JVM that ends just after its recording started, before the first {@code pools.Layout} event:
     * the layout is then recorded at the chunk's end with the final reports, so that the recording
     * can be reported (without it, report refused the file: a recording without its layout).
     */
    @Test
    void a_jvm_that_ends_before_its_layout_is_recorded_leaves_a_recording_that_reports() throws Exception {
        // Held 1 s, of the 5 s the JVM's end waits for a start (Recorder.SHUTDOWN_WAIT_MS): the rest of the
        // start has 4 s, on a busy machine too (with 3 s held, a review counted 2 s left for it).
        Forked.Result r = endDuringStart("pools.test.layoutEventDelayMs", 1000);
        assertTrue(r.err().isBlank(), r.toString());
        Forked.Result report = Forked.cli(dir, "report", "run.jfr");
        assertEquals(0, report.exit(), report.toString());
        assertTrue(report.out().contains("layout sliced"), report.out());
    }

    /**
     * A JVM whose shutdown begins before its recording's start (the file is created one report.period
     * in): the agent's shutdown writes the whole recording then, and the recording's thread, let go by
     * its test hook while the JVM is held open, adds nothing and says nothing. Before, such a JVM
     * wrote no recording and said so ("the JVM ended before the recording started").
     */
    @Test
    void a_jvm_that_ends_before_its_recording_starts_has_it_written_at_its_end() throws Exception {
        Forked.Result r = endDuringStart("pools.test.recordingSetupDelayMs", 1000, "hold-exit");
        assertEquals(
                List.of(), r.err().lines().filter(l -> l.startsWith("pools:")).toList(), r.toString());
        Forked.Result report = Forked.cli(dir, "report", "run.jfr");
        assertEquals(0, report.exit(), report.toString());
        assertTrue(report.out().contains("layout sliced"), report.out());
        assertFalse(report.out().contains("recovered"), "the file was ended with its JVM: " + report.out());
    }

    /**
     * A JVM that ends while a periodic batch is being written: the JVM's end waits for that batch, and
     * the final batch comes after it, whole. Before, the shutdown hook wrote the final batch and closed
     * the file at once: the batch in progress was cut (its pool reports without their usage), or landed
     * after the final batch and passed for the JVM's last state. A test hook holds the batch open for
     * 2 s, between its pool reports and the rest.
     */
    @Test
    void a_jvm_that_ends_during_a_batch_has_that_batch_whole_and_the_final_batch_last() throws Exception {
        Files.writeString(dir.resolve("layout.yaml"), LAYOUT + "  period: 50 ms\n");
        Forked.Result r = Forked.app(
                dir,
                List.of(Forked.agent(Path.of("layout.yaml")), "-Dpools.test.batchDelayMs=2000"),
                EndDuringRecordingStart.class);
        assertEquals(0, r.exit(), r.toString());
        assertTrue(r.out().contains("ending during the recording's start"), r.toString());
        assertTrue(r.err().isBlank(), r.toString());

        // In the file's order: each batch is one pool report (one pool), its usage and the process's
        // memory. Three batches: the first (at the start), the one held, and the final one.
        List<String> order = new ArrayList<>();
        for (RecordedEvent e : RecordingFile.readAllEvents(dir.resolve("run.jfr"))) {
            String name = e.getEventType().getName();
            if (name.equals("pools.PoolReport") || name.equals("pools.Usage") || name.equals("pools.ProcessMemory")) {
                order.add(name.substring("pools.".length()));
            }
        }
        String batch = "PoolReport Usage ProcessMemory";
        assertEquals(
                String.join(" ", batch, batch, batch),
                String.join(" ", order),
                "the first batch, the one held, then the final batch, each whole");
    }

    private Forked.Result endDuringStart(String property) throws Exception {
        return endDuringStart(property, 3000);
    }

    /** Runs a JVM whose main returns while the test hook {@code property} holds the recording's start. */
    private Forked.Result endDuringStart(String property, int delayMs, String... args) throws Exception {
        Files.writeString(dir.resolve("layout.yaml"), LAYOUT);
        Forked.Result r = Forked.app(
                dir,
                List.of(Forked.agent(Path.of("layout.yaml")), "-D" + property + "=" + delayMs),
                EndDuringRecordingStart.class,
                args);
        assertEquals(0, r.exit(), r.toString());
        assertTrue(r.out().contains("ending during the recording's start"), r.toString());
        return r;
    }
}
