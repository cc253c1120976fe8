package dev.pools.hosts.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.pools.hosts.it.apps.DjlArrays;
import dev.pools.it.Forked;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** DJL arrays made from Java data live in pool memory and compute exactly what they compute without the agent. */
class DjlArraysIT {

    @TempDir
    Path dir;

    private Forked.Result run(String layout, String... args) throws Exception {
        List<String> agent = List.of();
        if (layout != null) {
            Files.writeString(dir.resolve("layout.yaml"), layout);
            agent = List.of(Forked.agent(Path.of("layout.yaml")));
        }
        Forked.Result r = HostJvm.run(dir, agent, DjlArrays.class, args);
        assertEquals(0, r.exit(), r.toString());
        return r;
    }

    private static List<String> results(Forked.Result r) {
        return r.out().lines().filter(l -> l.startsWith("result-") || l.startsWith("zeros-")).toList();
    }

    private static final String GROWABLE = """
            layout: sliced
            pools:
              - page_size: 1 MiB
                max_slice: 64 KiB
              - page_size: 16 MiB
            report:
              file: none
            """;

    @Test
    void arrays_from_java_data_are_served_from_the_pools_and_equal_the_run_without_the_agent() throws Exception {
        Forked.Result without = run(null, "with-2d");
        Forked.Result with = run(GROWABLE, "with-2d");
        assertEquals(results(without), results(with), "every result equals the run without the agent, bit for bit");
        assertEquals("0.0", HostJvm.value(with, "zeros-abs-sum"), "zeros() are zero");
        for (String array : List.of("grid", "flat", "decoded", "direct")) {
            assertEquals("true", HostJvm.value(with, "pooled-" + array), array + " lives in a pool page");
            assertEquals("false", HostJvm.value(without, "pooled-" + array));
        }
        String[] live = HostJvm.value(with, "usage-live").split(" ");
        assertTrue(Long.parseLong(live[0]) >= 5, "usage rose while the arrays were live: " + with);
        assertEquals("0 0 0", HostJvm.value(with, "usage-start"));
        assertNotEquals("-1", HostJvm.value(with, "drained-ms"));
        assertEquals("0 0 0", HostJvm.value(with, "usage-end"), "release: gc: after close and collection, nothing is live");
    }

    @Test
    void release_close_gives_memory_back_at_close_without_a_collection() throws Exception {
        String layout = GROWABLE + "release: close\n";
        Forked.Result r = run(layout, "without-2d");
        assertEquals("0 0 0", HostJvm.value(r, "usage-after-close"), "back to zero right after close(): " + r);
        assertEquals("0", HostJvm.value(r, "collector-releases-at-close"), "released by the close hooks, not the collector");
        assertEquals("0 0 0", HostJvm.value(r, "usage-end"));
        assertEquals(results(run(null, "without-2d")), results(r));
    }

    @Test
    void under_release_close_only_the_2d_creators_temporary_waits_for_the_collector() throws Exception {
        Forked.Result r = run(GROWABLE + "release: close\n", "with-2d", "32");
        assertEquals("1 8192 0", HostJvm.value(r, "usage-after-close"), "the temporary 32x64 float buffer of create(float[][])");
        assertEquals("0 0 0", HostJvm.value(r, "usage-end"), "the collector releases the temporary");
    }

    @Test
    void a_full_capped_layout_falls_back_and_the_application_stays_correct() throws Exception {
        String capped = """
                layout: sliced
                pools:
                  - page_size: 64 KiB
                    pages: 1
                on_exhausted: fallback
                report:
                  file: none
                """;
        Forked.Result r = run(capped, "with-2d", "200");    // 200x64 floats = 50 KiB per array: the page holds one
        assertEquals(results(run(null, "with-2d", "200")), results(r), "fallback keeps every result correct");
        String[] end = HostJvm.value(r, "usage-end").split(" ");
        assertTrue(Long.parseLong(end[2]) > 0, "fallbacks are counted: " + r);
    }

    @Test
    void a_full_capped_layout_with_on_exhausted_fail_throws_the_pools_error() throws Exception {
        String capped = """
                layout: sliced
                pools:
                  - page_size: 64 KiB
                    pages: 1
                on_exhausted: fail
                report:
                  file: none
                """;
        Files.writeString(dir.resolve("layout.yaml"), capped);
        Forked.Result r = HostJvm.run(dir, List.of(Forked.agent(Path.of("layout.yaml"))), DjlArrays.class, "with-2d", "200");
        assertEquals(1, r.exit(), r.toString());
        assertTrue(r.err().contains("java.lang.OutOfMemoryError: pools: cannot serve 51200 B: every pool that takes 50 KiB (51200 B) is full:"
                + " pool 0 sliced (64 KiB pages, slices up to 64 KiB): 1/1 pages"), r.err());
    }
}
