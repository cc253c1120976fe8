package dev.pools.layout;

import static dev.pools.layout.Layouts.GIB;
import static dev.pools.layout.Layouts.KIB;
import static dev.pools.layout.Layouts.MIB;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.pools.api.MemoryPoolLayout;
import dev.pools.api.SlicedPool;
import dev.pools.memory.PoolSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.Test;

class LayoutsTest {

    @Test
    void sub_slices_ladder_for_one_gib_matches_the_specification() {
        assertEquals(
                List.of(
                        new PoolSpec.Sliced(16 * MIB, 2 * MIB, PoolSpec.UNCAPPED),
                        new PoolSpec.Sliced(64 * MIB, 16 * MIB, PoolSpec.UNCAPPED),
                        new PoolSpec.Sliced(256 * MIB, 128 * MIB, PoolSpec.UNCAPPED),
                        new PoolSpec.Exclusive(GIB, 10_000)),
                Layouts.subSlices(GIB));
    }

    @Test
    void host_is_small_sliced_pools_then_an_exclusive_pool_and_the_default_without_a_file_or_a_layout_key()
            throws LayoutException {
        assertEquals(
                List.of(
                        new PoolSpec.Sliced(64 * KIB, 4 * KIB, PoolSpec.UNCAPPED),
                        new PoolSpec.Sliced(MIB, 64 * KIB, PoolSpec.UNCAPPED),
                        new PoolSpec.Sliced(2 * MIB, 512 * KIB, PoolSpec.UNCAPPED),
                        new PoolSpec.Exclusive(GIB, 10000, 0)),
                Layouts.host(GIB));
        for (PoolSpec p : Layouts.host(GIB)) {
            if (p instanceof PoolSpec.Sliced s) {
                assertTrue(
                        s.pageSize() <= 2 * s.maxSlice() + MIB, "one request alone reserves at most 2x + 1 MiB: " + s);
            }
        }
        assertEquals(new MemoryPoolLayout.Host(), PoolsConfig.defaults().layout());
        assertEquals(
                new MemoryPoolLayout.Host(),
                LayoutFile.parse("f.yaml", "release: gc\n", GIB).layout());
        assertEquals(
                new MemoryPoolLayout.Host(OptionalLong.of(64 * MIB)),
                LayoutFile.parse("f.yaml", "layout: host\nmax_page_size: 64 MiB\n", GIB)
                        .layout());
    }

    @Test
    void sub_slices_below_the_ladder_floor_is_only_the_exclusive_tail() {
        assertEquals(List.of(new PoolSpec.Exclusive(16 * MIB, 5000)), Layouts.subSlices(16 * MIB));
        assertEquals(
                List.of(
                        new PoolSpec.Sliced(8 * MIB, 4 * MIB, PoolSpec.UNCAPPED),
                        new PoolSpec.Exclusive(32 * MIB, 5000)),
                Layouts.subSlices(32 * MIB));
    }

    @Test
    void exclusive_pages_buckets_are_log_spaced_from_32_kib_to_the_largest_page() {
        List<Long> cubecl = Layouts.exclusiveBuckets(GIB, 512);
        assertEquals(32_768, cubecl.get(0));
        assertEquals(51_712, cubecl.get(1), "the CubeCL figure with 512-byte alignment");
        List<Long> ours = Layouts.exclusiveBuckets(GIB, 64);
        assertEquals(24, ours.size());
        assertEquals(32_768, ours.get(0));
        assertEquals(51_520, ours.get(1));
        assertEquals(GIB, ours.get(23));
        for (int i = 1; i < ours.size(); i++) {
            double ratio = (double) ours.get(i) / ours.get(i - 1);
            assertEquals(Math.pow(2, 15.0 / 23), ratio, 0.01, "even log spacing at bucket " + i);
        }
        List<PoolSpec> pools = Layouts.exclusivePages(GIB);
        assertEquals(new PoolSpec.Exclusive(32_768, 5000), pools.get(0));
        assertEquals(new PoolSpec.Exclusive(GIB, 10_000), pools.get(23));
    }

    @Test
    void exclusive_pages_drops_duplicate_buckets() {
        List<Long> buckets = Layouts.exclusiveBuckets(64 * KIB, 64 * KIB);
        assertEquals(List.of(64 * KIB), buckets);
    }

    @Test
    void default_largest_page_is_a_quarter_of_direct_memory_up_to_one_gib() {
        assertEquals(GIB, Layouts.defaultMaxPageSize(6 * GIB));
        assertEquals(64 * MIB, Layouts.defaultMaxPageSize(256 * MIB));
        assertEquals(MIB, Layouts.defaultMaxPageSize(MIB), "never below the smallest largest page");
    }

    @Test
    void sliced_sizes_are_rounded_up_to_the_alignment() throws LayoutException {
        List<PoolSpec> pools = Layouts.compile(
                MemoryPoolLayout.sliced(SlicedPool.of(1000).withMaxSlice(100).withPages(3)), GIB);
        assertEquals(List.of(new PoolSpec.Sliced(1024, 128, 3)), pools);
    }

    private static String refusal(MemoryPoolLayout layout) {
        return assertThrows(LayoutException.class, () -> Layouts.compile(layout, GIB))
                .getMessage();
    }

    @Test
    void every_validation_rule_names_the_pool_the_key_and_the_value() {
        assertEquals(
                "pools is empty (a sliced layout needs at least one pool)",
                refusal(new MemoryPoolLayout.Sliced(List.of())));
        List<SlicedPool> many = new ArrayList<>();
        for (int i = 0; i < 255; i++) {
            many.add(SlicedPool.of(MIB));
        }
        assertEquals("pools has 255 pools (at most 254)", refusal(new MemoryPoolLayout.Sliced(many)));
        assertEquals(
                "pools[1].page_size is 0 (a size must be at least 1 byte)",
                refusal(MemoryPoolLayout.sliced(SlicedPool.of(MIB), SlicedPool.of(0))));
        assertEquals(
                "pools[0].max_slice is 0 (a size must be at least 1 byte)",
                refusal(MemoryPoolLayout.sliced(SlicedPool.of(MIB).withMaxSlice(0))));
        assertEquals(
                "pools[1].max_slice (2 MiB) is larger than its page_size (1 MiB)",
                refusal(MemoryPoolLayout.sliced(
                        SlicedPool.of(MIB), SlicedPool.of(MIB).withMaxSlice(2 * MIB))));
        assertEquals(
                "pools[0].pages (0) is outside 1..=65535",
                refusal(MemoryPoolLayout.sliced(SlicedPool.of(MIB).withPages(0))));
        assertEquals(
                "pools[0].pages (70000) is outside 1..=65535",
                refusal(MemoryPoolLayout.sliced(SlicedPool.of(MIB).withPages(70_000))));
        assertEquals("pools[0].page_size (-5) is negative", refusal(MemoryPoolLayout.sliced(SlicedPool.of(-5))));
        assertEquals(
                "pools[0].page_size (9223372036854775807 B) is larger than 2147483584 B (a direct buffer holds at most 2 GiB)",
                refusal(MemoryPoolLayout.sliced(SlicedPool.of(Long.MAX_VALUE))));
        assertEquals(
                "pools[0].page_size (4 GiB) is larger than 2147483584 B (a direct buffer holds at most 2 GiB)",
                refusal(MemoryPoolLayout.sliced(SlicedPool.of(4 * GIB))));
        assertEquals(
                "max_page_size (512 KiB) is outside 1 MiB..2147483584 B (a direct buffer holds at most 2 GiB)",
                refusal(new MemoryPoolLayout.SubSlices(OptionalLong.of(512 * KIB))));
    }

    @Test
    void check_names_every_rounded_size_of_a_ladder_in_bytes_too() {
        assertEquals(
                "exclusive, max_alloc 50.3 KiB (51520 B), dealloc_period 10000",
                LayoutPrinter.describe(new PoolSpec.Exclusive(51_520, 10_000)));
        assertEquals(
                "sliced, page_size 16 MiB, max_slice 2 MiB, no cap",
                LayoutPrinter.describe(new PoolSpec.Sliced(16 << 20, 2 << 20, PoolSpec.UNCAPPED)));
    }

    @Test
    void sizeLinesAlignTheirCommentsAsFormatDid() {
        assertEquals("page_size: 4 KiB         # 4096 B\n", LayoutPrinter.sizeLine("page_size", 4096));
        String[] keys = {"max_slice", "max_page_size", "a_key_longer_than_the_column"};
        long[] sizes = {1024, 4096, 2 << 20, 1L << 30, 3L << 40};
        for (String key : keys) {
            for (long bytes : sizes) {
                String formatted = String.format("%-24s # %d B", key + ": " + Layouts.describe(bytes), bytes) + "\n";
                assertEquals(formatted, LayoutPrinter.sizeLine(key, bytes));
            }
        }
        assertEquals("max_slice: 100 B\n", LayoutPrinter.sizeLine("max_slice", 100));
    }

    @Test
    void only_a_preset_without_its_largest_page_asks_for_the_default_to_be_printed() throws Exception {
        LongSupplier refuses = () -> {
            throw new AssertionError("the default largest page was asked for");
        };
        PoolsConfig sliced = LayoutFile.parse("s.yaml", "layout: sliced\npools:\n  - page_size: 1 MiB\n", 1L << 30);
        assertTrue(LayoutPrinter.print(sliced, refuses).contains("page_size: 1 MiB"));
        PoolsConfig given = LayoutFile.parse("h.yaml", "layout: host\nmax_page_size: 64 MiB\n", 1L << 30);
        assertTrue(LayoutPrinter.print(given, refuses).contains("max_page_size: 64 MiB"));
        PoolsConfig host = LayoutFile.parse("h.yaml", "layout: host\n", 1L << 30);
        assertTrue(LayoutPrinter.print(host, () -> 256L << 20).contains("max_page_size: 256 MiB"));
    }
}
