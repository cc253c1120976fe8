package dev.pools.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.pools.it.apps.MallocProbe;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * When the pools serve a request larger than any before, the agent frees one block of that size so
 * that glibc raises its mmap threshold, as the host's own direct buffer would have made it do when
 * freed: blocks up to that size then come from glibc's heaps instead of being mapped and unmapped
 * each time (README, Troubleshooting; BENCHMARKS.md, B3). Each case is a JVM of its own: glibc's
 * thresholds only rise, and the probe's own frees would raise them too.
 */
class MallocHintIT {

    private static final long MIB = 1 << 20;
    private static final List<String> EXPORTS = List.of("--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED");

    @TempDir
    Path dir;

    @BeforeEach
    void layout() throws Exception {
        Assumptions.assumeTrue(
                Files.readString(Path.of("/proc/self/maps")).contains("libc.so.6"),
                "the hint is for glibc's malloc, and this JVM runs on another C library (or OS)");
        Files.writeString(dir.resolve("layout.yaml"), """
                layout: sliced
                pools:
                  - page_size: 16 MiB
                    max_slice: 8 MiB
                intercept:
                  packages: [it.host]
                report:
                  file: none
                """);
    }

    @Test
    void after_the_pools_served_6_mib_glibc_keeps_6_mib_blocks_in_its_heaps() throws Exception {
        assertProbe(List.of(), 6 * MIB, "mapped " + 6 * MIB + " 0/8");
    }

    @Test
    void a_workload_of_small_buffers_leaves_glibc_at_its_defaults_whatever_the_layouts_largest_slice()
            throws Exception {
        assertProbe(List.of(), 64 << 10, "mapped " + 6 * MIB + " 8/8");
    }

    @Test
    void with_the_hint_off_glibc_maps_them() throws Exception {
        assertProbe(List.of("-Dpools.mallocHint=false"), 6 * MIB, "mapped " + 6 * MIB + " 8/8");
    }

    private void assertProbe(List<String> options, long pooled, String expected) throws Exception {
        List<String> jvm = new ArrayList<>(EXPORTS);
        jvm.addAll(options);
        jvm.add(Forked.agent(Path.of("layout.yaml")));
        Forked.Result r = Forked.app(dir, jvm, MallocProbe.class, String.valueOf(pooled), String.valueOf(6 * MIB));
        assertEquals(0, r.exit(), r.toString());
        assertTrue(r.out().contains("started true"), r.out());
        assertTrue(r.out().contains("held " + pooled), r.out());
        assertTrue(r.out().contains(expected), r.out());
    }
}
