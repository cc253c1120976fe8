package dev.pools.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.pools.layout.InstalledLayout;
import dev.pools.layout.LayoutFile;
import dev.pools.layout.LayoutPrinter;
import dev.pools.layout.Layouts;
import dev.pools.layout.PoolsConfig;
import dev.pools.memory.PoolAllocator;
import dev.pools.memory.PoolSpec;
import dev.pools.recording.RecordingFixture;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The capping policy of {@code suggest}, on a recording written in this JVM. */
class SuggestTest {

    @TempDir
    Path dir;

    private static final String MEASURED = "layout: sliced\npools:\n  - page_size: 64 KiB\n  - page_size: 1 MiB\n";

    @Test
    void each_pool_is_capped_at_its_peak_plus_headroom_and_the_result_is_a_valid_layout() throws Exception {
        PoolsConfig config = LayoutFile.parse("m.yaml", MEASURED, Layouts.GIB);
        PoolAllocator pools = new PoolAllocator(Layouts.compile(config.layout(), Layouts.GIB));
        List<ByteBuffer> held = threePagesAndOne(pools);
        List<RecordingSummary> runs = recordedRuns("m.jfr", pools, config);
        PoolsConfig recorded = LayoutFile.parse("recorded", runs.get(0).layoutYaml, Layouts.GIB);
        String capped = new CappedLayout(recorded, runs, 0, null).write();
        assertTrue(capped.contains("pages: 3  # peak 3,"), capped);
        assertTrue(capped.contains("pages: 1  # peak 1,"), capped);
        String withHeadroom = new CappedLayout(recorded, runs, 0.5, null).write();
        assertTrue(withHeadroom.contains("pages: 5  # peak 3,"), "3 pages plus 50 %, rounded up: " + withHeadroom);
        PoolsConfig again = LayoutFile.parse("capped", capped, Layouts.GIB);
        assertEquals(2, Layouts.compile(again.layout(), Layouts.GIB).size());
        held.clear();
    }

    /**
     * A refusal of a capped pool that was full is not a request no pool takes: suggest says which
     * pools were binding, and proposes a pool only for the requests no pool took. Found by a review:
     * 150 refusals were all said to have "found no pool", 119 of them by a full pool.
     */
    @Test
    void refusals_by_full_pools_are_told_apart_from_requests_no_pool_takes() throws Exception {
        PoolsConfig config = LayoutFile.parse("m.yaml", MEASURED, Layouts.GIB);
        PoolAllocator pools = new PoolAllocator(Layouts.compile(config.layout(), Layouts.GIB));
        ByteBuffer held = pools.allocate(60 << 10, 0);
        List<RecordingSummary> runs = recordedRuns("refused.jfr", pools, config);
        runs.get(0)
                .refusals
                .put(
                        "full",
                        new RecordingSummary.Refusals(
                                "a#b",
                                60 << 10,
                                "fallback",
                                119,
                                "every pool that takes 60 KiB (61440 B) is full: pool 0 ..."));
        runs.get(0)
                .refusals
                .put(
                        "none",
                        new RecordingSummary.Refusals(
                                "a#b", 3 << 20, "fallback", 31, "no pool takes 3 MiB (3145728 B) requests"));
        String capped = new CappedLayout(config, runs, 0, null).write();
        assertTrue(
                capped.contains("# 119 requests found the pools that take them full, at their caps, during the"
                        + " measurement (see 'report')"),
                capped);
        assertTrue(capped.contains("# 31 requests of up to 3 MiB found no pool during the measurement"), capped);
        pools.release(held);
    }

    /**
     * A pool that held more pages than a cap can be (65 535) is capped at that, and the layout says
     * that the cap holds less than measured. Found by a review: it was capped silently.
     */
    @Test
    void a_peak_above_the_largest_cap_is_said() throws Exception {
        PoolsConfig config = LayoutFile.parse("m.yaml", "layout: sliced\npools:\n  - page_size: 64 B\n", Layouts.GIB);
        PoolAllocator pools = new PoolAllocator(Layouts.compile(config.layout(), Layouts.GIB));
        List<ByteBuffer> held = new ArrayList<>();
        for (int i = 0; i < 70_000; i++) {
            held.add(pools.allocate(64, 0));
        }
        List<RecordingSummary> runs = recordedRuns("many.jfr", pools, config);
        String capped = new CappedLayout(config, runs, 0, null).write();
        assertTrue(capped.contains("pages: 65535  # peak 70000"), capped);
        assertTrue(
                capped.contains("# a pool of 64 B pages held 70000 pages (with headroom 70000), more than a pool can"
                        + " have (65535): capped, it holds less than measured; choose larger pages for it\n"),
                capped);
        LayoutFile.parse("capped", capped, Layouts.GIB);
        held.forEach(pools::release);
    }

    /**
     * An exclusive pool (the host preset's last) keeps freed pages of each size for a while: requests
     * that grow a little each time held 300 pages for at most 10 live buffers. As a sliced pool of
     * pages of the largest request, one page per live buffer is enough: the cap is the peak of live
     * allocations, where it was the 300 pages (30 times what the capped run needed).
     */
    @Test
    void an_exclusive_pool_is_capped_at_its_live_allocations_not_its_free_pages() throws Exception {
        PoolsConfig config = LayoutFile.parse("h.yaml", "layout: host\n", Layouts.GIB);
        List<PoolSpec> specs = Layouts.compile(config.layout(), Layouts.GIB);
        PoolAllocator pools = new PoolAllocator(specs);
        for (int round = 0; round < 30; round++) {
            List<ByteBuffer> live = new ArrayList<>();
            for (int i = 0; i < 10; i++) {
                live.add(pools.allocate((4 << 20) + 64 * (round * 10 + i), 0));
            }
            live.forEach(pools::release);
        }
        List<RecordingSummary> runs = recordedRuns("h.jfr", pools, config);
        RecordingSummary.Pool exclusive = runs.get(0).pools.get(specs.size() - 1);
        assertEquals("exclusive", exclusive.kind());
        assertEquals(10, exclusive.allocsPeak());
        assertTrue(exclusive.pagesPeak() > 10, "free pages of other sizes held: " + exclusive);
        String capped = new CappedLayout(config, runs, 0, null).write();
        assertTrue(
                capped.contains("# it held " + exclusive.pagesPeak() + " pages at its peak, for at most 10 live"
                        + " allocations at once: capped at those\n"),
                capped);
        assertTrue(capped.contains("pages: 10  # peak 10, largest request"), capped);
        LayoutFile.parse("capped", capped, Layouts.GIB);
    }

    /**
     * A recording that begins long after its JVM started (its earlier part set aside and replaced at
     * report.max_size, or a late attach) misses the process's memory before: the limits say so.
     */
    @Test
    void limits_from_a_recording_that_began_late_say_so() throws Exception {
        PoolsConfig config = LayoutFile.parse("m.yaml", MEASURED, Layouts.GIB);
        PoolAllocator pools = new PoolAllocator(Layouts.compile(config.layout(), Layouts.GIB));
        ByteBuffer held = pools.allocate(60 << 10, 0);
        Path file = dir.resolve("late.jfr");
        RecordingFixture.write(
                file,
                pools,
                new InstalledLayout("sliced", LayoutPrinter.print(config, Layouts.GIB), InstalledLayout.Source.FILE),
                7,
                System.currentTimeMillis() - 60_000);
        List<RecordingSummary> runs = List.of(RecordingSummary.read(file, false));
        String capped = new CappedLayout(config, runs, 0, null).write();
        assertTrue(
                capped.matches("(?s).*\n#   \\(" + Pattern.quote(file.toString())
                        + " begins 6\\d s after its JVM started: .*"),
                capped);
        pools.release(held);
    }

    /** The recording the agent would write at exit for {@code pools} under {@code config}, read back. */
    private List<RecordingSummary> recordedRuns(String name, PoolAllocator pools, PoolsConfig config) throws Exception {
        Path file = dir.resolve(name);
        RecordingFixture.write(
                file,
                pools,
                new InstalledLayout("sliced", LayoutPrinter.print(config, Layouts.GIB), InstalledLayout.Source.FILE));
        return List.of(RecordingSummary.read(file, false));
    }

    /**
     * {@code -XX:MaxDirectMemorySize} is the capped pages, whose caps hold the headroom already, and the
     * direct memory outside the pools plus headroom. Before, the headroom was applied to the capped
     * pages a second time: 41m for 20 MiB of pages and 17.5 KiB at 100 % (a review).
     */
    @Test
    void the_direct_memory_limit_adds_the_headroom_once() throws Exception {
        PoolsConfig config = LayoutFile.parse("m.yaml", MEASURED, Layouts.GIB);
        PoolAllocator pools = new PoolAllocator(Layouts.compile(config.layout(), Layouts.GIB));
        List<ByteBuffer> held = threePagesAndOne(pools);
        Path file = dir.resolve("sampled.jfr");
        RecordingFixture.writeSampled(file, pools, layout(config), 3L << 20, 5L << 20);
        List<RecordingSummary> runs = List.of(RecordingSummary.read(file, false));
        // 100 %: 6 pages of 64 KiB and 2 of 1 MiB (2.375 MiB), and 5 MiB outside the pools, doubled: 12.4 MiB.
        String capped = new CappedLayout(config, runs, 1.0, null).write();
        assertTrue(
                capped.contains("\n#   -XX:MaxDirectMemorySize=13m   the capped pages (2.4 MiB) and the direct memory"
                        + " outside the pools at its peak (5 MiB, plus headroom)\n"),
                capped);
        // 0 %: 3 pages and 1 (1.2 MiB), and 5 MiB.
        assertTrue(capped(config, runs, 0).contains("\n#   -XX:MaxDirectMemorySize=7m "), capped(config, runs, 0));
        held.clear();
    }

    /**
     * A run that sampled the process's memory once (its JVM ended or was killed before its second
     * batch) is said as that, not as a recording of {@code report.period: 0}; beside runs sampled over
     * their run, its sample counts with theirs, and the limit is suggested. Before, it took the limit
     * away for the whole fleet, with a reason about a period that none of the files had (a review).
     */
    @Test
    void a_run_sampled_once_is_said_as_such_and_keeps_the_fleets_limit() throws Exception {
        PoolsConfig config = LayoutFile.parse("m.yaml", MEASURED, Layouts.GIB);
        PoolAllocator pools = new PoolAllocator(Layouts.compile(config.layout(), Layouts.GIB));
        ByteBuffer held = pools.allocate(60 << 10, 0);
        Path once = dir.resolve("once.jfr");
        RecordingFixture.writeSampled(once, pools, layout(config), 6L << 20);
        Path twice = dir.resolve("twice.jfr");
        RecordingFixture.writeSampled(twice, pools, layout(config), 1L << 20, 2L << 20);
        String why = "has one sample of the process's memory (its JVM ended or was killed before its second batch),"
                + " maybe not its peak";
        String alone = capped(config, List.of(RecordingSummary.read(once, false)), 0);
        assertTrue(alone.contains("\n#   -XX:MaxDirectMemorySize: none suggested: " + once + " " + why + "\n"), alone);
        String fleet =
                capped(config, List.of(RecordingSummary.read(once, false), RecordingSummary.read(twice, false)), 0);
        assertTrue(
                fleet.contains("\n#   (" + once + " " + why + ": the limit counts that sample with the others'"
                        + " peaks)\n#   -XX:MaxDirectMemorySize=8m "),
                fleet);
        pools.release(held);
    }

    /** A direct layout's suggestion grows: no pages to cap, and no direct memory limit, each said as such. */
    @Test
    void a_direct_layouts_suggestion_says_why_it_has_no_caps_nor_limit() throws Exception {
        PoolsConfig config = LayoutFile.parse("d.yaml", "layout: direct\n", Layouts.GIB);
        PoolAllocator pools = new PoolAllocator(Layouts.compile(config.layout(), Layouts.GIB));
        ByteBuffer held = pools.allocate(60 << 10, 0);
        Path file = dir.resolve("direct.jfr");
        RecordingFixture.writeSampled(
                file,
                pools,
                new InstalledLayout("direct", LayoutPrinter.print(config, Layouts.GIB), InstalledLayout.Source.FILE),
                1L << 20,
                2L << 20);
        String capped = capped(config, List.of(RecordingSummary.read(file, false)), 0);
        assertFalse(capped.contains("capped at the most pages it held"), capped);
        assertTrue(capped.contains("\n#   -XX:MaxDirectMemorySize: none suggested: the layout above grows"), capped);
        pools.release(held);
    }

    /** Three buffers of one 64 KiB page each and one of a 1 MiB page, of {@link #MEASURED}'s pools. */
    private static List<ByteBuffer> threePagesAndOne(PoolAllocator pools) {
        List<ByteBuffer> held = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            held.add(pools.allocate(60 << 10, 0));
        }
        held.add(pools.allocate(700 << 10, 0));
        return held;
    }

    private static String capped(PoolsConfig config, List<RecordingSummary> runs, double headroom) {
        return new CappedLayout(config, runs, headroom, null).write();
    }

    private static InstalledLayout layout(PoolsConfig config) {
        return new InstalledLayout("sliced", LayoutPrinter.print(config, Layouts.GIB), InstalledLayout.Source.FILE);
    }

    @Test
    void headroom_takes_a_percentage_and_refuses_anything_else_with_one_line() {
        assertEquals(0.1, SuggestCommand.headroom("10%"), 1e-12);
        assertEquals(0.1, SuggestCommand.headroom(" 10 "), 1e-12);
        assertEquals(0.105, SuggestCommand.headroom("10.5%"), 1e-12);
        assertEquals("0.0001%", CappedLayout.percent(SuggestCommand.headroom("0.0001%")));
        // A headroom the header would print as 0% that still added a page to every cap (a review).
        for (String bad : List.of("-5%", "ten", "2000%", "NaN", "0.0000001%")) {
            BadInput e = assertThrows(BadInput.class, () -> SuggestCommand.headroom(bad));
            assertEquals(
                    "--headroom " + bad
                            + ": expected a percentage from 0% to 1000%, at most 4 decimal places, e.g. 10%",
                    e.getMessage());
        }
    }
}
