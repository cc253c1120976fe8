package dev.pools.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.pools.it.apps.HeapAfterPoolsCollect;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The collection the pools make for a full pool leaves the Java heap's committed size alone: a
 * {@code System.gc()} of the host's own would have shrunk it (BENCHMARKS.md, B8), and
 * {@code MaxHeapFreeRatio} is the host's again afterwards.
 */
class HeapKeepingCollectionIT {

    @TempDir
    Path dir;

    /**
     * Concurrent cycles are kept from starting ({@code InitiatingHeapOccupancyPercent=100}, not
     * adaptive): G1 may also shrink the heap at a cycle's remark, which would make the size before
     * the pools' collection depend on when such a cycle ran. (Serial's first full collection does
     * not shrink the old generation, so it shows nothing here.) The second buffer is served under
     * {@code fail}: the collection did run.
     */
    @Test
    void the_pools_collection_does_not_shrink_the_heap_under_g1() throws Exception {
        Files.writeString(dir.resolve("layout.yaml"), Forked.cappedToFail(1));
        Forked.Result r = Forked.app(
                dir,
                List.of(
                        Forked.agent(Path.of("layout.yaml")),
                        "-XX:+UseG1GC",
                        "-Xms16m",
                        "-Xmx512m",
                        "-XX:InitiatingHeapOccupancyPercent=100",
                        "-XX:-G1UseAdaptiveIHOP",
                        "-XX:MaxHeapFreeRatio=70"),
                HeapAfterPoolsCollect.class,
                "240");
        assertEquals(0, r.exit(), r.toString());
        Matcher m = Pattern.compile(
                        "committed before (\\d+) MiB, after (\\d+) MiB, MaxHeapFreeRatio (\\d+), second 1048576")
                .matcher(r.out());
        assertTrue(m.find(), r.out());
        long before = Long.parseLong(m.group(1));
        long after = Long.parseLong(m.group(2));
        assertTrue(before >= 240, "the heap grew for the arrays: " + r.out());
        assertTrue(after >= before, "the pools' collection shrank the heap: " + r.out());
        assertEquals("70", m.group(3), "the flag is the host's again: " + r.out());
    }
}
