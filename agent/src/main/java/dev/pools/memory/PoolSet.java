package dev.pools.memory;

import java.util.List;

/**
 * The pools of one installed layout, and routing between them (docs/POOLS.md §2).
 *
 * <p>Routing a request of {@code s} bytes: take the pools in layout order, keep those that accept
 * {@code s} by size class; the first one reserves (reusing a free slice or growing itself); only when
 * it cannot (a capped pool at its cap, or a page the JDK refused) does the next accepting pool try.
 * When none can, the uncapped pools whose near-page rule takes {@code s} try, in order.
 *
 * <p><b>JVM:</b> CubeCL lets an uncapped pool take a near-page size before any later pool. Here it is
 * a last resort: otherwise a request would go to one pool while measuring (all pools uncapped) and
 * to another once capped, and a layout capped at the measured peaks would no longer fit the same
 * workload by construction (docs/POOLS.md §2.5).
 *
 * <p>Nothing here is random or depends on the calling thread, so the same requests in the same
 * order land in the same places.
 */
final class PoolSet {
    final List<PoolSpec> specs;
    final Pool[] pools;
    /** Set once an install replaced this set; reservations then go to the new one. */
    volatile boolean retired;

    PoolSet(PoolAllocator owner, List<PoolSpec> specs) {
        this.specs = List.copyOf(specs);
        this.pools = new Pool[specs.size()];
        for (int i = 0; i < pools.length; i++) {
            pools[i] = Pool.create(owner, i, specs.get(i));
        }
    }

    /**
     * Routes a request. Without {@code spill}, only the first pool that takes the size by its size
     * class tries (or, when none does, the first pool whose near-page rule takes it): the caller
     * first waits for releases in flight before it lets a request spill to a later pool.
     */
    Anchor reserve(int size, int site, boolean retry, boolean spill) {
        boolean byClass = false;
        for (Pool pool : pools) {
            if (pool.accepts(size)) {
                byClass = true;
                Anchor anchor = pool.reserve(size, site, retry);
                if (anchor != null || !spill) {
                    return anchor;
                }
            }
        }
        for (Pool pool : pools) {
            if (pool.acceptsAsLastResort(size)) {
                Anchor anchor = pool.reserve(size, site, retry);
                if (anchor != null || (!spill && !byClass)) {
                    return anchor;
                }
            }
        }
        return null;
    }

    /** Why a request of {@code size} bytes found no room: the state of every pool that accepts it. */
    /** Whether some pool takes {@code size} bytes, by its size class or as a last resort: a fact of the layout alone. */
    boolean takes(int size) {
        for (Pool pool : pools) {
            if (pool.accepts(size) || pool.acceptsAsLastResort(size)) {
                return true;
            }
        }
        return false;
    }

    /** How many bytes the collector's releases have given back to the pools that take {@code size}. */
    long collectorFreedBytesTaking(int size) {
        long n = 0;
        for (Pool pool : pools) {
            if (pool.accepts(size) || pool.acceptsAsLastResort(size)) {
                n += pool.collectorFreedBytes();
            }
        }
        return n;
    }

    String whyRefused(int size) {
        StringBuilder b = new StringBuilder();
        for (Pool pool : pools) {
            if (pool.accepts(size) || pool.acceptsAsLastResort(size)) {
                b.append(b.length() == 0 ? "" : "; ").append(pool.describe(size));
            }
        }
        if (b.length() == 0) {
            return "no pool takes " + Sizes.human(size) + " (" + size + " B) requests";
        }
        String jdk = NativeAccess.lastRefusal();
        return "every pool that takes " + Sizes.human(size) + " (" + size + " B) is full: " + b
                + (jdk == null ? "" : "; last page refused by the JDK: " + jdk);
    }
}
