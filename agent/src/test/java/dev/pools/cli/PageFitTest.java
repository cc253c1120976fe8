package dev.pools.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.pools.memory.PoolSpec;
import dev.pools.memory.Stops;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The replay that suggest --fit searches with places what the capped run will place. */
class PageFitTest {

    private static final int K = 1024;

    /**
     * The capped run keeps thread caches; a buffer the collector releases is never cached (its room
     * is back in the pool's tree at once), one released explicitly goes to the releasing thread's
     * cache. The replay released every buffer on its own thread, cached: for releases by the
     * collector it fitted this trace in one 64 KiB page where the run needed two, and the layout
     * suggest --fit wrote fell back at once. The trace now says which releases were the collector's.
     */
    @Test
    void a_replay_caches_explicit_releases_only_as_the_capped_run_does() {
        // By the collector: A's 8 KiB is free in the page, the 4 KiB takes it, the 8 KiB finds no room.
        assertEquals(2, pagesFor(PageFit.COLLECTED));
        // Explicitly, on the thread: A's 8 KiB is in its cache and serves the last 8 KiB request.
        assertEquals(1, pagesFor(0));
    }

    /**
     * Thread 1 takes two 8 KiB slices and releases the first into its cache; thread 2 then takes
     * 8 KiB and 48 KiB. In the run, thread 2's 8 KiB cannot come from thread 1's cache: it lands
     * after the slice still held, and the 48 KiB needs a second page. The replay kept one cache for
     * every thread and fitted one page, which the capped run was then refused at (a review).
     */
    @Test
    void each_threads_releases_serve_only_that_threads_requests_in_a_replay() throws Exception {
        Path file = dir.resolve("two.trace");
        Files.writeString(file, """
                # pools trace v2
                a 1 8192 h#a 1
                a 2 8192 h#a 1
                r 1 1
                a 3 8192 h#a 2
                a 4 49152 h#a 2
                """);
        PageFit.Trace two = PageFit.read(file);
        List<PoolSpec.Sliced> page = List.of(new PoolSpec.Sliced(64 * K, 64 * K, PoolSpec.UNCAPPED));
        assertEquals(2, PageFit.replay(two, page).pagesPeak()[0]);
        // Threads of any numbers, as an edited trace may give them: numbered again as they appear.
        Path renumbered = dir.resolve("renumbered.trace");
        Files.writeString(
                renumbered,
                Files.readString(file).replace(" 1\n", " 4000000000\n").replace(" 2\n", " 2147483647\n"));
        assertEquals(2, PageFit.replay(PageFit.read(renumbered), page).pagesPeak()[0]);
        // The same lines of one thread (a trace of version 1 names none): the cache serves the 8 KiB.
        Files.writeString(
                file, Files.readString(file).replaceAll(" [12]\n", "\n").replace("v2", "v1"));
        assertEquals(1, PageFit.replay(PageFit.read(file), page).pagesPeak()[0]);
        // A virtual thread (0) caches nothing: its release goes back to the page, its next 8 KiB takes
        // that room, and another thread's 48 KiB fits after the slice still held.
        Files.writeString(file, """
                # pools trace v2
                a 1 8192 h#a 0
                a 2 8192 h#a 0
                r 1 0
                a 3 8192 h#a 0
                a 4 49152 h#a 1
                """);
        assertEquals(1, PageFit.replay(PageFit.read(file), page).pagesPeak()[0]);
    }

    /**
     * A host that runs each task on a new thread: thousands of thread numbers, one after the other.
     * The replay kept a thread for each until its end, and every step summed every cache (a review:
     * 75.9 s for 3 000 tasks, against 2.9 s read as one thread); its threads now end after their last
     * operation, as the run's did. (Its time is B5's; here, that it replays them whole and alike.)
     */
    @Test
    void a_thread_per_task_replays_as_the_run_made_it() throws Exception {
        StringBuilder b = new StringBuilder("# pools trace v2\n");
        for (int t = 1; t <= 3000; t++) {
            b.append("a ").append(t).append(" 4096 h#a ").append(t).append('\n');
            b.append("r ").append(t).append(' ').append(t).append('\n');
        }
        Path file = dir.resolve("tasks.trace");
        Files.writeString(file, b);
        PageFit.Outcome o =
                PageFit.replay(PageFit.read(file), List.of(new PoolSpec.Sliced(64 * K, 64 * K, PoolSpec.UNCAPPED)));
        assertEquals(1, o.pagesPeak()[0]);
        assertEquals(4 * K, o.peakInUse());
    }

    /** A replay that runs out of this JVM's heap or threads is said as such, not as a layout the pools refused. */
    @Test
    void only_the_pools_and_the_direct_memory_limit_refuse_a_replay() {
        assertTrue(PageFit.refusal(new OutOfMemoryError("pools: cannot serve 49152 B: every pool ...")));
        assertTrue(PageFit.refusal(new OutOfMemoryError(
                "Cannot reserve 65536 bytes of direct buffer memory (allocated: 0, limit: 1024)")));
        assertFalse(PageFit.refusal(new OutOfMemoryError("Java heap space")));
        assertFalse(PageFit.refusal(new OutOfMemoryError("unable to create native thread: possibly out of memory")));
        assertFalse(PageFit.refusal(new OutOfMemoryError()));
    }

    /** A request above the largest page a pool can have is not one the agent traces (it is the JDK's, an 'f' line). */
    @Test
    void a_request_above_the_largest_page_is_not_a_line_of_a_trace() throws Exception {
        Path file = dir.resolve("big.trace");
        Files.writeString(file, "# pools trace v2\na 1 2147483647 s 1\n");
        BadInput e = assertThrows(BadInput.class, () -> PageFit.read(file));
        assertTrue(e.getMessage().startsWith(file + ":2: not a line of a pools trace"), e.getMessage());
    }

    /**
     * A trace of a version this jar does not read, a line of a version-2 trace without all its fields,
     * and a file that is not text: each refused with one line. A last line cut short (a JVM killed in
     * the middle of it) is left out, said on stderr. Before, all of these were replayed: the cut line
     * "a 30 500" as a request of 500 bytes, and an unknown version as if it were known (a review).
     */
    @Test
    void a_trace_of_another_version_a_line_short_of_fields_or_no_text_is_refused() throws Exception {
        Path file = dir.resolve("v9.trace");
        Files.writeString(file, "# pools trace v9\na 1 4096 s 1\n");
        BadInput e = assertThrows(BadInput.class, () -> PageFit.read(file));
        assertEquals(
                file + ":1: a trace of version 'v9', which this pools.jar does not read (it reads v1 and v2)",
                e.getMessage());

        Path shortLine = dir.resolve("short.trace");
        Files.writeString(shortLine, "# pools trace v2\na 1 4096 s 1\na 2 500\nr 1 1\n");
        e = assertThrows(BadInput.class, () -> PageFit.read(shortLine));
        assertTrue(e.getMessage().startsWith(shortLine + ":3: not a line of a pools trace"), e.getMessage());

        Path cut = dir.resolve("cut.trace");
        Files.writeString(cut, "# pools trace v2\na 1 4096 s 1\na 2 64 s 1\nr 2 1\na 3 500");
        PageFit.Trace t = PageFit.read(cut);
        assertEquals(4096, t.largest());
        assertEquals(4, t.ops().length, "2 requests, 1 release, and the one live at the end given back");

        Path binary = dir.resolve("recording.jfr");
        Files.write(binary, new byte[] {'F', 'L', 'R', 0, (byte) 0xff, (byte) 0xfe, 0, 2});
        e = assertThrows(BadInput.class, () -> PageFit.read(binary));
        assertEquals(
                binary + ": not a pools trace, which is text (a file written by report.trace; a recording is given"
                        + " to suggest without --fit)",
                e.getMessage());
    }

    /**
     * An allocation named again while live (two traces joined, say) is refused with its line: read
     * as a new one, the first would have stayed live to the end of every replay, uncounted.
     */
    @Test
    void an_allocation_named_again_while_live_is_refused_with_its_line() throws Exception {
        Path file = dir.resolve("twice.trace");
        Files.writeString(file, "# pools trace v2\na 1 4096 s 1\na 2 64 s 1\nr 2 1\na 2 64 s 1\na 1 4096 s 1\n");
        BadInput e = assertThrows(BadInput.class, () -> PageFit.read(file));
        assertEquals(
                file + ":6: allocation 1 is already live (a trace names an allocation once, until its 'r' or 'c' line)",
                e.getMessage());
    }

    @TempDir
    Path dir;

    private static long pagesFor(long collected) {
        long[] ops = {
            8 * K, // 0: A
            8 * K, // 1: B
            48 * K, // 2: C
            -1 - 0 - collected, // A back
            -1 - 2 - collected, // C back
            4 * K, // 5
            44 * K, // 6
            8 * K, // 7
            -1 - 1,
            -1 - 5,
            -1 - 6,
            -1 - 7
        };
        return PageFit.replay(
                        new PageFit.Trace(Path.of("t.trace"), ops, 48 * K),
                        List.of(new PoolSpec.Sliced(64 * K, 64 * K, PoolSpec.UNCAPPED)))
                .pagesPeak()[0];
    }

    /**
     * A replay whose pools stop (here a pool's lock left held, as a full heap leaves it) is no measure:
     * it ends with one line. Before, the JDK's buffers made the replay's count disagree with the pools'
     * and suggest ended in an internal error (a review).
     */
    @Test
    void a_replay_whose_pools_stop_ends_with_a_line() throws Exception {
        Path file = dir.resolve("stop.trace");
        Files.writeString(file, "# pools trace v2\na 1 64 s 1\na 2 64 s 1\nr 1 1\n");
        PageFit.replayStarting = pools -> {
            try {
                Stops.abandonLock(pools);
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        };
        try {
            BadInput e = assertThrows(
                    BadInput.class,
                    () -> PageFit.replay(
                            PageFit.read(file), List.of(new PoolSpec.Sliced(64 * 1024, 4096, PoolSpec.UNCAPPED))));
            assertTrue(e.getMessage().startsWith("the replay of " + file + " stopped the pools ("), e.getMessage());
        } finally {
            PageFit.replayStarting = null;
        }
    }
}
