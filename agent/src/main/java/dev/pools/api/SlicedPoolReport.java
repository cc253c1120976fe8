package dev.pools.api;

/**
 * One dynamic pool's measured state, in the order the pools were installed.
 *
 * <p>The read side of a measured layout: install a growable one, run the workload, read these,
 * re-install capped at {@code pagesPeak}. Placement is deterministic, so the same allocations in
 * the same order fit the capped layout by construction.
 *
 * @param pageSize     size of each page in bytes; 0 for a direct pool, which has no pages to size
 * @param pages        pages held now; for a direct pool, live allocations
 * @param pagesPeak    the most pages held at once since the layout was installed
 * @param largestAlloc the largest single allocation served, in requested bytes
 */
public record SlicedPoolReport(long pageSize, long pages, long pagesPeak, long largestAlloc) {}
