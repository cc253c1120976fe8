package dev.pools.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.pools.it.apps.FullHeapMoments;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Moments of a full Java heap, which the host survives, while three threads allocate from a capped
 * pool under {@code fail} and leave their buffers to the collector: no release is lost, and the pool
 * then serves exactly its cap. Before, in about half the runs of a review's program of the same
 * shape, up to 188 slices stayed in use with nothing live (the marker of the collections, made
 * again while leases taken from the queue waited, threw) and as many requests were refused; in one
 * run of four the release thread and a drain waited on each other for ever (the JDK's read lock,
 * whose hold counter the heap refused after it counted the hold).
 */
class FullHeapIT {

    @TempDir
    Path dir;

    @Test
    void moments_of_a_full_heap_lose_no_release_and_the_cap_is_served_whole() throws Exception {
        Files.writeString(dir.resolve("capped.yaml"), Forked.cappedToFail(32));
        Forked.Result r = Forked.app(
                dir, List.of(Forked.agent(Path.of("capped.yaml")), "-Xmx64m"), FullHeapMoments.class, "20", "32768");
        assertEquals(0, r.exit(), r.toString());
        assertTrue(r.out().contains("\nin use 0\n"), r.toString());
        assertTrue(r.out().contains("\nrefused 0 of 32768\n"), r.toString());
        assertFalse(r.err().contains("pools stopped"), r.toString());
        assertFalse(r.err().contains("did not let go of the release queue"), r.toString());
    }
}
