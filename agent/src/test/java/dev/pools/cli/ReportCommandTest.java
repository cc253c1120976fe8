package dev.pools.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.pools.layout.InstalledLayout;
import dev.pools.layout.LayoutFile;
import dev.pools.layout.LayoutPrinter;
import dev.pools.layout.Layouts;
import dev.pools.layout.PoolsConfig;
import dev.pools.memory.PoolAllocator;
import dev.pools.recording.RecordingFixture;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReportCommandTest {

    /**
     * The line is the same whatever the run's release mode: under {@code release: close} too the
     * pools collect for buffers left to the collector, so the line must not name {@code release: gc}.
     */
    @Test
    void the_collections_line_names_no_release_mode() {
        StringBuilder b = new StringBuilder();
        ReportCommand.appendCollections(b, 2, 142_600_000L, " in pool 1");
        assertEquals(
                "collections:       2 made by the pools for a full pool, 142 ms waited in pool 1"
                        + " (buffers left to the collector, under a cap)\n",
                b.toString());
    }

    /**
     * The span in the report's first line, as the HTML report gives it: a JVM recorded whole at its
     * end, under a second, is not "0 s"; a long one is in minutes.
     */
    @Test
    void the_span_has_tenths_below_a_minute_and_minutes_above() {
        Instant t = Instant.parse("2026-12-05T01:25:50.100Z");
        assertEquals("0.9 s", ReportCommand.span(t, t.plusMillis(900)));
        assertEquals("3 s", ReportCommand.span(t, t.plusMillis(3_000)));
        assertEquals("12 min 5 s", ReportCommand.span(t, t.plusSeconds(725)));
    }

    @Test
    void no_collection_no_line() {
        StringBuilder b = new StringBuilder();
        ReportCommand.appendCollections(b, 0, 0, "");
        assertEquals("", b.toString());
    }

    @TempDir
    Path dir;

    /** The runs a pool held at the end are said, per pool, with their bytes; a pool without runs says nothing. */
    @Test
    void the_runs_each_pool_held_at_the_end_are_said_with_their_bytes() throws Exception {
        String yaml = "layout: sliced\npools:\n  - page_size: 64 KiB\n  - page_size: 1 MiB\n";
        PoolsConfig config = LayoutFile.parse("r.yaml", yaml, Layouts.GIB);
        PoolAllocator pools = new PoolAllocator(Layouts.compile(config.layout(), Layouts.GIB));
        List<ByteBuffer> held = new ArrayList<>();
        for (int i = 0; i < 70; i++) {
            held.add(pools.allocate(64, 0)); // a full run of 64 slots, and a second one
        }
        held.add(pools.allocate(100, 0)); // 128 B slots: a run of their own
        held.add(pools.allocate(100 << 10, 0)); // the second pool, whose 1 MiB pages have runs too: none used
        RecordingSummary s = RecordingSummary.read(record("r.jfr", pools, config), false);
        StringBuilder b = new StringBuilder();
        ReportCommand.appendRuns(b, s);
        assertEquals(
                "runs at the end:   pool 0: 3 runs of equal slots (16 KiB of its 64 KiB): free slots only for requests"
                        + " of their size\n",
                b.toString());
        assertTrue(ReportCommand.text(s, 5).contains(b), "in the report");
        held.clear();
    }

    /**
     * The agent appends a batch, then makes the header count it, and marks the file as ended only at
     * its JVM's end. A JVM killed between the two writes leaves bytes past the chunk: what the header
     * counts is read, and the report says the recording was recovered.
     */
    @Test
    void a_recording_of_a_jvm_killed_in_the_middle_of_a_batch_reads_to_its_last_whole_batch() throws Exception {
        String yaml = "layout: sliced\npools:\n  - page_size: 64 KiB\n";
        PoolsConfig config = LayoutFile.parse("r.yaml", yaml, Layouts.GIB);
        PoolAllocator pools = new PoolAllocator(Layouts.compile(config.layout(), Layouts.GIB));
        ByteBuffer held = pools.allocate(1000, 0);
        Path whole = record("k-ended.jfr", pools, config);
        RecordingSummary ended = RecordingSummary.read(whole, false);
        assertNull(ended.recoveredFrom, "marked as ended with its JVM");
        String complete = ReportCommand.text(ended, 5);
        Path file = dir.resolve("k.jfr");
        RecordingFixture.writeKilled(
                file,
                pools,
                new InstalledLayout("sliced", LayoutPrinter.print(config, Layouts.GIB), InstalledLayout.Source.FILE));
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
            f.seek(f.length());
            f.write(new byte[] {(byte) 0x9a, (byte) 0x81, 0, 0, 0x65, 1, 2}); // half an event
        }
        RecordingSummary killed = RecordingSummary.read(file, false);
        assertEquals(file, killed.recoveredFrom);
        String text = ReportCommand.text(killed, 5);
        assertTrue(
                text.contains("recovered from " + file
                        + ": its JVM did not end the recording (killed, or its file could not be"
                        + " written to the end, as on a full disk, which the JVM's output says)"),
                text);
        assertEquals(
                complete.lines().filter(l -> l.matches(" +0 +sliced .*")).toList(),
                text.lines().filter(l -> l.matches(" +0 +sliced .*")).toList(),
                "the same pool as read from the whole file");
        assertEquals(1000, held.capacity());
    }

    /** The recording the agent writes at exit for {@code pools} under {@code config}, in {@code dir}. */
    private Path record(String name, PoolAllocator pools, PoolsConfig config) throws Exception {
        Path file = dir.resolve(name);
        RecordingFixture.write(
                file,
                pools,
                new InstalledLayout("sliced", LayoutPrinter.print(config, Layouts.GIB), InstalledLayout.Source.FILE));
        return file;
    }
}
