package dev.pools.memory;

/**
 * One pool's state at one moment, in the seed's vocabulary plus what identifies the pool.
 *
 * @param index        position in the layout, from 0
 * @param kind         sliced, exclusive or direct
 * @param pageSize     bytes per page; 0 for a direct pool; {@code maxAlloc} for an exclusive pool
 * @param maxSlice     largest request the pool takes by its size class
 * @param pagesCap     most pages the pool may hold, -1 for none
 * @param pages        pages held now (a direct pool: live allocations)
 * @param pagesPeak    most pages held at once since install
 * @param largestAlloc largest requested size served since install
 * @param usage        this pool's share of the usage
 * @param runs         runs a sliced pool holds now: used slices cut into 64 equal slots, each run
 *                     serving requests of one effective size (docs/POOLS.md §3); 0 for other kinds
 * @param bytesInRuns  bytes of those runs, their free slots included: room only requests of each
 *                     run's slot size can take
 * @param allocsPeak   most live allocations at once since install, for exclusive and direct pools
 *                     (an exclusive pool's pages peak also counts free pages waiting to be reused or
 *                     to age out); -1 for sliced pools
 */
public record PoolReport(
        int index,
        PoolKind kind,
        long pageSize,
        long maxSlice,
        long pagesCap,
        long pages,
        long pagesPeak,
        long largestAlloc,
        Usage usage,
        long runs,
        long bytesInRuns,
        long allocsPeak) {}
