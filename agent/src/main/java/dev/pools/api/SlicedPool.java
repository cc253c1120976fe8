package dev.pools.api;

import java.util.OptionalLong;

/**
 * One pool of a {@link MemoryPoolLayout.Sliced} layout: allocations are slices of fixed-size pages,
 * capped at {@code pages} pages. An allocation that no longer fits goes to the next pool that
 * accepts it, and is exhausted when none does.
 *
 * <p>Sizes are rounded up to 64 bytes, so a pool holds at least what it was asked for. A pool that
 * cannot be honoured at all (a zero size, {@code maxSlice} past {@code pageSize}, {@code pages}
 * outside {@code 1..=65535}) is refused at install with {@link InstallMemoryPoolsException.Kind#INVALID_LAYOUT}.
 *
 * @param pageSize size of each page in bytes; also the largest single allocation the pool can serve
 * @param pages    how many pages the pool may hold; empty grows without a cap, which is what a
 *                 workload is measured on before its caps are known
 * @param maxSlice largest allocation routed to this pool; empty accepts anything up to {@code pageSize}
 */
public record SlicedPool(long pageSize, OptionalLong pages, OptionalLong maxSlice) {

    public SlicedPool {
        java.util.Objects.requireNonNull(pages, "pages");
        java.util.Objects.requireNonNull(maxSlice, "maxSlice");
    }

    /** A growable pool of {@code pageSize}-byte pages that takes slices up to a whole page. */
    public static SlicedPool of(long pageSize) {
        return new SlicedPool(pageSize, OptionalLong.empty(), OptionalLong.empty());
    }

    /** This pool capped at {@code pages} pages. */
    public SlicedPool withPages(long pages) {
        return new SlicedPool(pageSize, OptionalLong.of(pages), maxSlice);
    }

    /** This pool taking only allocations of at most {@code maxSlice} bytes. */
    public SlicedPool withMaxSlice(long maxSlice) {
        return new SlicedPool(pageSize, pages, OptionalLong.of(maxSlice));
    }
}
