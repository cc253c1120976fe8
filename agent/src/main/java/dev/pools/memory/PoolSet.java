package dev.pools.memory;

import java.lang.ref.ReferenceQueue;
import java.util.List;

/**
 * The pools of one installed layout, and routing between them (POOLS.md §2).
 *
 * <p>Routing a request of {@code s} bytes: take the pools in layout order, keep those that accept
 * {@code s} by size class; the first one reserves (reusing a free slice or growing itself); only when
 * it cannot (a capped pool at its cap, or a page the JDK refused) does the next accepting pool try.
 * When none can, the uncapped pools whose near-page rule takes {@code s} try, in order.
 *
 * <p><b>JVM:</b> CubeCL lets an uncapped pool take a near-page size before any later pool. Here it is
 * a last resort: otherwise a request would go to one pool while measuring (all pools uncapped) and
 * to another once capped, and a layout capped at the measured peaks would no longer fit the same
 * workload by construction (POOLS.md §2.5).
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

    Anchor reserve(int size, int site, ReferenceQueue<Anchor> queue) {
        for (Pool pool : pools) {
            if (pool.accepts(size)) {
                Anchor anchor = pool.reserve(size, site, queue);
                if (anchor != null) {
                    return anchor;
                }
            }
        }
        for (Pool pool : pools) {
            if (pool.acceptsAsLastResort(size)) {
                Anchor anchor = pool.reserve(size, site, queue);
                if (anchor != null) {
                    return anchor;
                }
            }
        }
        return null;
    }

    /** Why a request of {@code size} bytes found no room: the state of every pool that accepts it. */
    String whyRefused(int size) {
        StringBuilder b = new StringBuilder();
        for (Pool pool : pools) {
            if (pool.accepts(size) || pool.acceptsAsLastResort(size)) {
                b.append(b.length() == 0 ? "" : "; ").append(pool.describe());
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
