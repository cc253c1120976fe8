package dev.pools.memory;

/**
 * One dynamic pool of an installed layout, after presets are expanded and sizes rounded up to
 * {@link NativeAccess#ALIGNMENT}. Built and validated by the layout package; the pools trust it.
 */
public sealed interface PoolSpec {

    /** No cap: the pool grows as long as the JDK gives it pages. */
    long UNCAPPED = -1;

    PoolKind kind();

    /** Pages of {@code pageSize} bytes cut into slices of at most {@code maxSlice}; at most {@code pagesCap} pages. */
    record Sliced(long pageSize, long maxSlice, long pagesCap) implements PoolSpec {
        public Sliced {
            if (pageSize <= 0 || maxSlice <= 0 || maxSlice > pageSize || (pagesCap != UNCAPPED && pagesCap <= 0)) {
                throw new IllegalArgumentException("invalid sliced pool " + pageSize + "/" + maxSlice + "/" + pagesCap);
            }
        }

        public boolean capped() {
            return pagesCap != UNCAPPED;
        }

        @Override
        public PoolKind kind() {
            return PoolKind.SLICED;
        }
    }

    /**
     * One page per allocation of at most {@code maxAlloc} bytes; free pages age out every
     * {@code deallocPeriod / 5} reservations. New pages are at least the running average of request
     * sizes, which starts at {@code startAverage}: {@code maxAlloc / 2} in the seed's presets (GPU
     * memory, few large tensors), 0 in the host preset (a page is the size of its request).
     */
    record Exclusive(long maxAlloc, long deallocPeriod, long startAverage) implements PoolSpec {
        public Exclusive {
            if (maxAlloc <= 0 || deallocPeriod < 5 || startAverage < 0 || startAverage > maxAlloc) {
                throw new IllegalArgumentException(
                        "invalid exclusive pool " + maxAlloc + "/" + deallocPeriod + "/" + startAverage);
            }
        }

        /** As the seed has it: the running average starts at half the largest allocation. */
        public Exclusive(long maxAlloc, long deallocPeriod) {
            this(maxAlloc, deallocPeriod, maxAlloc / 2);
        }

        @Override
        public PoolKind kind() {
            return PoolKind.EXCLUSIVE;
        }
    }

    /** One block per allocation, reused by exact effective size. */
    record Direct() implements PoolSpec {
        @Override
        public PoolKind kind() {
            return PoolKind.DIRECT;
        }
    }
}
