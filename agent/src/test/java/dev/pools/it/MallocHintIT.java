package dev.pools.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.pools.it.apps.MallocProbe;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The agent frees one block of its largest slice so that glibc raises its mmap threshold, as the
 * host's own direct buffers would have made it do: blocks up to that size then come from glibc's
 * heaps instead of being mapped and unmapped each time (README, Troubleshooting; BENCHMARKS.md, B3).
 */
class MallocHintIT {

    private static final long MIB = 1 << 20;

    @TempDir
    Path dir;

    @Test
    void glibc_keeps_blocks_up_to_the_largest_slice_in_its_heaps_unless_the_hint_is_off() throws Exception {
        Assumptions.assumeTrue(
                Files.readString(Path.of("/proc/self/maps")).contains("libc.so.6"),
                "the hint is for glibc's malloc, and this JVM runs on another C library (or OS)");
        Files.writeString(
                dir.resolve("layout.yaml"),
                """
                layout: sliced
                pools:
                  - page_size: 16 MiB
                    max_slice: 8 MiB
                report:
                  file: none
                """);
        List<String> exports = List.of("--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED");

        Forked.Result hinted = Forked.app(
                dir, concat(exports, Forked.agent(Path.of("layout.yaml"))), MallocProbe.class, String.valueOf(6 * MIB));
        assertEquals(0, hinted.exit(), hinted.err());
        assertTrue(hinted.out().contains("started true"), hinted.out());
        assertTrue(
                hinted.out().contains("mapped " + 6 * MIB + " 0/8"),
                "6 MiB blocks come from the heap: " + hinted.out());

        Forked.Result off = Forked.app(
                dir,
                concat(exports, "-Dpools.mallocHint=false", Forked.agent(Path.of("layout.yaml"))),
                MallocProbe.class,
                String.valueOf(6 * MIB));
        assertEquals(0, off.exit(), off.err());
        assertTrue(off.out().contains("started true"), off.out());
        assertTrue(off.out().contains("mapped " + 6 * MIB + " 8/8"), "without the hint glibc maps them: " + off.out());
    }

    private static List<String> concat(List<String> first, String... more) {
        List<String> all = new ArrayList<>(first);
        all.addAll(List.of(more));
        return all;
    }
}
