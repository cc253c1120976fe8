package dev.pools.layout;

import dev.pools.api.MemoryPoolLayout;
import dev.pools.api.SlicedPool;
import dev.pools.memory.PoolSpec;
import dev.pools.memory.Sizes;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.function.LongSupplier;

/**
 * Turns a {@link MemoryPoolLayout} into the pools it means (docs/POOLS.md §6 and §8): validates it,
 * rounds sizes up to the alignment, and expands the presets into their ladders.
 */
public final class Layouts {

    public static final long KIB = 1024;
    public static final long MIB = 1024 * KIB;
    public static final long GIB = 1024 * MIB;

    /** Most pools in one layout. */
    public static final int MAX_POOLS = 254;
    /** Most pages one capped pool may hold. */
    public static final long MAX_PAGES = 65_535;
    /** The smallest {@code max_page_size} a preset accepts. */
    public static final long MIN_MAX_PAGE_SIZE = MIB;
    /** The sub-slices ladder divides pages while they are at least this large. */
    static final long LADDER_FLOOR = 32 * MIB;

    static final long EXCLUSIVE_SMALLEST = 32 * KIB;
    static final int EXCLUSIVE_BUCKETS = 24;

    private Layouts() {}

    /** The default largest page: {@code min(1 GiB, MaxDirectMemorySize / 4)}, rounded up to the alignment. */
    public static long defaultMaxPageSize(long maxDirectMemory) {
        return Math.max(MIN_MAX_PAGE_SIZE, Sizes.roundUp(Math.min(GIB, maxDirectMemory / 4)));
    }

    /**
     * The pools a layout means. {@code defaultMaxPageSize} stands in for an absent
     * {@code max_page_size} of a preset.
     */
    public static List<PoolSpec> compile(MemoryPoolLayout layout, long defaultMaxPageSize) throws LayoutException {
        return compile(layout, () -> defaultMaxPageSize);
    }

    /**
     * The same, with the default asked for only by a preset without {@code max_page_size}: reading the
     * JDK's direct memory limit costs {@code premain} milliseconds on recent JDKs.
     */
    public static List<PoolSpec> compile(MemoryPoolLayout layout, LongSupplier defaultMaxPageSize)
            throws LayoutException {
        if (layout instanceof MemoryPoolLayout.Sliced sliced) {
            return sliced(sliced.pools());
        }
        if (layout instanceof MemoryPoolLayout.Direct) {
            return List.of(new PoolSpec.Direct());
        }
        if (layout instanceof MemoryPoolLayout.Host h) {
            return host(maxPageSize(h.maxPageSize(), defaultMaxPageSize));
        }
        if (layout instanceof MemoryPoolLayout.SubSlices s) {
            return subSlices(maxPageSize(s.maxPageSize(), defaultMaxPageSize));
        }
        if (layout instanceof MemoryPoolLayout.ExclusivePages e) {
            return exclusivePages(maxPageSize(e.maxPageSize(), defaultMaxPageSize));
        }
        throw new LayoutException("unknown layout " + layout);
    }

    private static long maxPageSize(OptionalLong given, LongSupplier fallback) throws LayoutException {
        if (given.isEmpty()) {
            return fallback.getAsLong();
        }
        long p = given.getAsLong();
        if (p < MIN_MAX_PAGE_SIZE || p > Sizes.MAX_PAGE) {
            throw LayoutException.at(
                    "max_page_size",
                    "max_page_size (" + describe(p) + ") is outside " + Sizes.human(MIN_MAX_PAGE_SIZE) + ".."
                            + describe(Sizes.MAX_PAGE) + " (a direct buffer holds at most 2 GiB)");
        }
        return Sizes.roundUp(p);
    }

    private static List<PoolSpec> sliced(List<SlicedPool> pools) throws LayoutException {
        if (pools.isEmpty()) {
            throw LayoutException.at("pools", "pools is empty (a sliced layout needs at least one pool)");
        }
        if (pools.size() > MAX_POOLS) {
            throw LayoutException.at("pools", "pools has " + pools.size() + " pools (at most " + MAX_POOLS + ")");
        }
        List<PoolSpec> out = new ArrayList<>();
        for (int i = 0; i < pools.size(); i++) {
            out.add(slicedPool(i, pools.get(i)));
        }
        return List.copyOf(out);
    }

    private static PoolSpec.Sliced slicedPool(int i, SlicedPool p) throws LayoutException {
        String at = "pools[" + i + "].";
        long pageSize = size(at + "page_size", p.pageSize());
        long maxSlice = pageSize;
        if (p.maxSlice().isPresent()) {
            maxSlice = size(at + "max_slice", p.maxSlice().getAsLong());
            if (maxSlice > pageSize) {
                throw LayoutException.at(
                        at + "max_slice",
                        at + "max_slice (" + describe(p.maxSlice().getAsLong()) + ") is larger than its page_size ("
                                + describe(pageSize) + ")");
            }
        }
        long cap = PoolSpec.UNCAPPED;
        if (p.pages().isPresent()) {
            cap = p.pages().getAsLong();
            if (cap < 1 || cap > MAX_PAGES) {
                throw LayoutException.at(at + "pages", at + "pages (" + cap + ") is outside 1..=" + MAX_PAGES);
            }
        }
        return new PoolSpec.Sliced(pageSize, maxSlice, cap);
    }

    private static long size(String key, long bytes) throws LayoutException {
        if (bytes == 0) {
            throw LayoutException.at(key, key + " is 0 (a size must be at least 1 byte)");
        }
        if (bytes < 0) {
            throw LayoutException.at(key, key + " (" + bytes + ") is negative");
        }
        if (bytes > Sizes.MAX_PAGE) {
            throw LayoutException.at(
                    key,
                    key + " (" + describe(bytes) + ") is larger than " + describe(Sizes.MAX_PAGE)
                            + " (a direct buffer holds at most 2 GiB)");
        }
        return Sizes.roundUp(bytes);
    }

    /** {@code 2 MiB} or, where no unit is exact, {@code 2097153 B}. */
    static String describe(long bytes) {
        String human = Sizes.human(bytes);
        return human.contains(".") ? bytes + " B" : human;
    }

    /**
     * The host preset for largest page {@code p}: three sliced pools whose page is at most twice
     * their largest slice plus 1 MiB (so that one request alone never reserves more than that), then
     * an exclusive pool for the rest whose pages are the size of their requests (its running
     * average starts at 0, not at half of {@code p} as on a GPU).
     */
    public static List<PoolSpec> host(long p) {
        return List.of(
                new PoolSpec.Sliced(64 * KIB, 4 * KIB, PoolSpec.UNCAPPED),
                new PoolSpec.Sliced(MIB, 64 * KIB, PoolSpec.UNCAPPED),
                new PoolSpec.Sliced(2 * MIB, 512 * KIB, PoolSpec.UNCAPPED),
                new PoolSpec.Exclusive(p, deallocPeriod(p), 0));
    }

    /** The sub-slices ladder for largest page {@code p}: smallest page first, then the exclusive tail. */
    public static List<PoolSpec> subSlices(long p) {
        List<PoolSpec> ladder = new ArrayList<>();
        long cur = p;
        int k = 1;
        while (cur >= LADDER_FLOOR) {
            cur = Sizes.roundUp(cur / 4);
            ladder.add(0, new PoolSpec.Sliced(cur, Sizes.roundUp(cur >> k), PoolSpec.UNCAPPED));
            k++;
        }
        ladder.add(new PoolSpec.Exclusive(p, deallocPeriod(p)));
        return List.copyOf(ladder);
    }

    /** {@value #EXCLUSIVE_BUCKETS} exclusive pools, log-spaced from 32 KiB to {@code p}, smallest first. */
    public static List<PoolSpec> exclusivePages(long p) {
        List<PoolSpec> out = new ArrayList<>();
        for (long size : exclusiveBuckets(p, Sizes.ALIGNMENT)) {
            out.add(new PoolSpec.Exclusive(size, deallocPeriod(size)));
        }
        return List.copyOf(out);
    }

    /** The exclusive-pages bucket sizes for largest page {@code p} and an alignment: log-spaced, rounded up, no duplicates. */
    static List<Long> exclusiveBuckets(long p, long alignment) {
        List<Long> out = new ArrayList<>();
        double low = Math.log(EXCLUSIVE_SMALLEST);
        double step = (Math.log(p) - low) / (EXCLUSIVE_BUCKETS - 1);
        long previous = -1;
        for (int i = 0; i < EXCLUSIVE_BUCKETS; i++) {
            // exp(log(x)) may land a hair above an exact x; do not let that round up a whole step.
            long size = i == EXCLUSIVE_BUCKETS - 1 ? p : (long) Math.ceil(Math.exp(low + step * i) - 1e-6);
            size = Math.min((size + alignment - 1) / alignment * alignment, Sizes.MAX_PAGE);
            if (size > previous) {
                out.add(size);
                previous = size;
            }
        }
        return out;
    }

    /** {@code 5000 * round(1 + maxAlloc / 1 GiB)}. */
    static long deallocPeriod(long maxAlloc) {
        return 5000 * Math.round(1 + (double) maxAlloc / GIB);
    }
}
