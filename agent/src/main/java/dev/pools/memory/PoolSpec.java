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

    /** One page per allocation of at most {@code maxAlloc} bytes; free pages age out every {@code deallocPeriod / 5} reservations. */
    record Exclusive(long maxAlloc, long deallocPeriod) implements PoolSpec {
        public Exclusive {
            if (maxAlloc <= 0 || deallocPeriod < 5) {
                throw new IllegalArgumentException("invalid exclusive pool " + maxAlloc + "/" + deallocPeriod);
            }
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
