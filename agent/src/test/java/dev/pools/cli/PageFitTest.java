package dev.pools.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.pools.memory.PoolSpec;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

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
}
