package dev.pools.api;

import java.util.List;
import java.util.OptionalLong;

/**
 * A layout for the JVM's pooled off-heap memory, applied with {@link MemoryPools#install}.
 */
public sealed interface MemoryPoolLayout {

    /**
     * An ordered list of pools that sub-slice fixed-size pages. An allocation lands in the first
     * pool that accepts its size, so a small pool listed before a large one captures the
     * small-allocation traffic. Pages are allocated on first use. No pool is added behind them:
     * a size above every pool is exhausted.
     */
    record Sliced(List<SlicedPool> pools) implements MemoryPoolLayout {
        public Sliced {
            pools = List.copyOf(pools);
        }
    }

    /**
     * One direct pool for everything: every allocation is its own block, sized to the request and
     * reused by exact size. What a workload runs on for its largest allocation to be read back as
     * it was asked for.
     */
    record Direct() implements MemoryPoolLayout {}

    /**
     * The default, for host (CPU) memory: small pages for small tensors, so that a workload that
     * holds little reserves little, then one exclusive pool for allocations above 512 KiB: sliced
     * pools of 64 KiB pages (slices up to 4 KiB), 1 MiB pages (up to 64 KiB) and 2 MiB pages (up
     * to 512 KiB), then an exclusive pool up to {@code maxPageSize} (empty: {@code min(1 GiB,
     * MaxDirectMemorySize / 4)}).
     */
    record Host(OptionalLong maxPageSize) implements MemoryPoolLayout {
        public Host() {
            this(OptionalLong.empty());
        }
    }

    /**
     * The seed's default, for GPU memory: a ladder of size-bucketed pools that sub-slice large pages
     * (16 MiB and up), then one exclusive pool for the largest allocations. {@code maxPageSize} is the largest page the ladder uses;
     * empty means {@code min(1 GiB, MaxDirectMemorySize / 4)}.
     */
    record SubSlices(OptionalLong maxPageSize) implements MemoryPoolLayout {
        public SubSlices() {
            this(OptionalLong.empty());
        }
    }

    /** One page per allocation, in exponentially spaced size buckets up to {@code maxPageSize}. */
    record ExclusivePages(OptionalLong maxPageSize) implements MemoryPoolLayout {
        public ExclusivePages() {
            this(OptionalLong.empty());
        }
    }

    static MemoryPoolLayout sliced(SlicedPool... pools) {
        return new Sliced(List.of(pools));
    }
}
