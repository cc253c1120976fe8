package dev.pools.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.pools.layout.InstalledLayout;
import dev.pools.layout.LayoutFile;
import dev.pools.layout.LayoutPrinter;
import dev.pools.layout.Layouts;
import dev.pools.layout.PoolsConfig;
import dev.pools.memory.PoolAllocator;
import dev.pools.memory.Stops;
import dev.pools.recording.RecordingFixture;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Which files the CLI reads as one JVM. Each recording here says process id 1 and the same start
 * time, as the recordings of containers of one fleet can (all pid 1, started in the same millisecond).
 */
class RecordingSummaryTest {

    @TempDir
    Path dir;

    private Path record(String name, int buffers) throws Exception {
        PoolsConfig config = LayoutFile.parse("m.yaml", "layout: sliced\npools:\n  - page_size: 64 KiB\n", Layouts.GIB);
        PoolAllocator pools = new PoolAllocator(Layouts.compile(config.layout(), Layouts.GIB));
        for (int i = 0; i < buffers; i++) {
            ByteBuffer held = pools.allocate(60 << 10, 0); // a page each
            assertEquals(60 << 10, held.capacity());
        }
        Path file = dir.resolve(name);
        RecordingFixture.write(
                file,
                pools,
                new InstalledLayout("sliced", LayoutPrinter.print(config, Layouts.GIB), InstalledLayout.Source.FILE),
                1,
                1_700_000_000_000L);
        return file;
    }

    private static final String NO_BATCH_YET = ": a running JVM writes this recording and has written no batch to it"
            + " yet (the first comes one report.period after its start, at most a second; with report.period: 0 the"
            + " only one is at its end); read it again then";

    private PoolAllocator pools() throws Exception {
        return new PoolAllocator(Layouts.compile(config().layout(), Layouts.GIB));
    }

    private static PoolsConfig config() throws Exception {
        return LayoutFile.parse("m.yaml", "layout: sliced\npools:\n  - page_size: 64 KiB\n", Layouts.GIB);
    }

    private static InstalledLayout layout() throws Exception {
        return new InstalledLayout("sliced", LayoutPrinter.print(config(), Layouts.GIB), InstalledLayout.Source.FILE);
    }

    /**
     * A running JVM's file before its first batch (with {@code report.period: 0}, for the JVM's whole
     * life): said as what it is. Before, it read as "its JVM was killed before its first" batch.
     */
    @Test
    void a_running_jvms_recording_before_its_first_batch_is_said_to_be_running_not_killed() throws Exception {
        Path file = dir.resolve("running.jfr");
        PoolAllocator pools = pools();
        try (AutoCloseable running = RecordingFixture.begin(file, pools, layout(), 7)) {
            BadInput e = assertThrows(BadInput.class, () -> RecordingSummary.read(file, false));
            assertEquals(file + NO_BATCH_YET, e.getMessage());
        }
        assertEquals(7, RecordingSummary.read(file, false).pid, "ended, it reads whole");
    }

    /**
     * A byte changed in the agent's own file after it was written. JFR's format has no checksum, so it
     * was read as a value: one byte set to 0xff made a report of 1 PiB of direct buffers. Now each batch
     * ends with a checksum of the chunk before it, and a changed byte fails the read, or changes no figure
     * of the report: the header's duration, file state and flags, and the last checksum's own time are
     * not covered, and no figure comes from them. Every byte from the header to the end of the first
     * batch, then every seventh, is changed in turn.
     */
    @Test
    void a_byte_changed_anywhere_in_the_agents_file_fails_the_read_or_changes_no_figure() throws Exception {
        Path file = dir.resolve("whole.jfr");
        PoolAllocator pools = pools();
        ByteBuffer held = pools.allocate(60 << 10, 0);
        try (AutoCloseable running = RecordingFixture.begin(file, pools, layout(), 7)) {
            pools.allocate(30 << 10, 0);
        }
        String report = ReportCommand.text(RecordingSummary.read(file, false), 10);
        byte[] whole = Files.readAllBytes(file);
        long firstBatch = Files.size(file) / 2;
        Path changed = dir.resolve("whole.jfr.changed");
        int damaged = 0;
        int failed = 0;
        int unchanged = 0;
        for (int at = 0; at < whole.length; at += at < firstBatch ? 1 : 7) {
            byte[] bytes = whole.clone();
            bytes[at] ^= (byte) (at % 2 == 0 ? 0x01 : 0xff);
            Files.write(changed, bytes);
            try {
                String read = ReportCommand.text(RecordingSummary.read(changed, false), 10);
                assertEquals(report, read.replace(changed.toString(), file.toString()), "byte " + at + " changed");
                unchanged++;
            } catch (BadInput e) {
                damaged += e.getMessage().contains("the recording is damaged (") ? 1 : 0;
                failed++;
            }
        }
        assertTrue(unchanged < 20, unchanged + " changed bytes read, each to the same report");
        assertTrue(damaged > failed / 2, damaged + " of " + failed + " said damaged by their checksum");
        assertEquals(60 << 10, held.capacity());
    }

    /**
     * A new JVM renames its file over an ended recording between the look at the file (ended: read in
     * place) and its reading, while it appends a batch that its header does not count yet. Read in
     * place as the ended file it was, the new file's uncounted bytes failed the read ("not a readable
     * JFR recording"); now the name is seen to hold another file, and it is read again from the start,
     * as the running JVM's that it is.
     */
    @Test
    void a_recording_replaced_while_it_is_read_is_read_again_as_the_file_now_at_its_name() throws Exception {
        Path same = record("same.jfr", 2);
        Path next = dir.resolve("next.jfr");
        PoolAllocator pools = pools();
        try (AutoCloseable running = RecordingFixture.begin(next, pools, layout(), 8)) {
            try (FileChannel append = FileChannel.open(next, StandardOpenOption.WRITE)) {
                append.write(
                        ByteBuffer.wrap(new byte[] {'h', 'a', 'l', 'f', ' ', 'a', ' ', 'b', 'a', 't', 'c', 'h'}),
                        append.size());
            }
            int[] renames = {0};
            RecordingSummary.beforeReadingInPlace = () -> {
                if (renames[0]++ == 0) {
                    try {
                        Files.move(next, same, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                }
            };
            try {
                BadInput e = assertThrows(BadInput.class, () -> RecordingSummary.read(same, false));
                assertEquals(same + NO_BATCH_YET, e.getMessage());
                assertEquals(1, renames[0], "read in place once, then from a copy of the running JVM's file");
            } finally {
                RecordingSummary.beforeReadingInPlace = null;
            }
        }
    }

    /**
     * Only a file and its {@code <file>.1} are one JVM's: files of other names are other JVMs, whatever
     * their process ids and start times say. Before, the second JVM here was read as part of the
     * first, its peaks dropped, and suggest capped below what it used.
     */
    @Test
    void files_of_other_names_are_other_jvms_though_their_pids_and_start_times_agree() throws Exception {
        Path a = record("a.jfr", 1);
        Path b = record("b.jfr", 3);
        List<RecordingSummary> read = RecordingSummary.readAll(List.of(a, b), false);
        assertEquals(2, read.size());
        assertEquals(
                List.of(1L, 3L),
                List.of(
                        read.get(0).pools.get(0).pagesPeak(),
                        read.get(1).pools.get(0).pagesPeak()));
        assertEquals(3, new FleetReport(read).maxPeakPages().get(0));

        Path earlier = record("b.jfr.1", 2);
        List<RecordingSummary> parts = RecordingSummary.readAll(List.of(b, earlier), false);
        assertEquals(1, parts.size(), "a file and its .1: one JVM");
        assertEquals(Set.of(b, earlier), Set.copyOf(parts.get(0).parts));
    }

    /**
     * A JVM's file set aside at {@code report.max_size} and the file that follows it: the new file
     * begins with the layout as it stands, written after the older file's reports. Read first (the
     * newer file names the JVM), that statement dropped every report of the older file as if from
     * before an install, and the peak of 3 pages held before the rotation read as 1 (a review, with
     * an install of the same layout before the rotation, where the newer file's own reports count
     * from the install on).
     */
    @Test
    void a_file_set_aside_keeps_its_peaks_when_read_with_the_file_that_follows_it() throws Exception {
        Path older = record("c.jfr.1", 3);
        Path newer = record("c.jfr", 1);
        for (List<Path> given : List.of(List.of(newer, older), List.of(older, newer))) {
            List<RecordingSummary> read = RecordingSummary.readAll(given, false);
            assertEquals(1, read.size(), given.toString());
            assertEquals(newer, read.get(0).file, "the newer file names the JVM");
            assertEquals(3, read.get(0).pools.get(0).pagesPeak(), given.toString());
        }
    }

    /**
     * Pools that stopped after an error inside them, in a recording that holds none of the requests
     * the JDK served after the stop one by one (a deep recursion made half a million of them, more
     * than the recording keeps between two batches). The stop was read only from those requests:
     * the report said nothing of it and suggest capped from the figures before it. Every batch now
     * says it.
     */
    @Test
    void a_stop_is_read_from_the_batches_when_no_request_after_it_is_recorded() throws Exception {
        PoolsConfig config = LayoutFile.parse("m.yaml", "layout: sliced\npools:\n  - page_size: 64 KiB\n", Layouts.GIB);
        PoolAllocator pools = new PoolAllocator(Layouts.compile(config.layout(), Layouts.GIB));
        Stops.stop(pools);
        ByteBuffer after = pools.allocate(1000, 0);
        assertFalse(PoolAllocator.isPoolMemory(after));
        Path file = dir.resolve("stopped.jfr");
        RecordingFixture.write(
                file,
                pools,
                new InstalledLayout("sliced", LayoutPrinter.print(config, Layouts.GIB), InstalledLayout.Source.FILE));
        RecordingSummary read = RecordingSummary.read(file, false);
        assertEquals(0, read.refusedCount(null), "no request after the stop recorded one by one");
        assertEquals(1, read.refusals(), "the one after the stop, counted");
        assertEquals(PoolAllocator.STOPPED + "java.lang.StackOverflowError", read.stoppedBy);
        assertEquals(2, PoolsCli.run("suggest", file.toString()), "suggest refuses the run");

        Path running = record("running.jfr", 1);
        assertNull(RecordingSummary.read(running, false).stoppedBy);
    }

    /** A file named twice, or under a second name (a hard link), is read once, not counted twice. */
    @Test
    void the_same_file_given_twice_is_read_once() throws Exception {
        Path a = record("a.jfr", 2);
        Path link = dir.resolve("a.jfr.1");
        Files.createLink(link, a);
        for (List<Path> given : List.of(List.of(a, a), List.of(a, link), List.of(a, dir.resolve("./a.jfr")))) {
            List<RecordingSummary> read = RecordingSummary.readAll(given, false);
            assertEquals(1, read.size(), given.toString());
            assertEquals(List.of(a), read.get(0).parts, given.toString());
        }
    }
}
