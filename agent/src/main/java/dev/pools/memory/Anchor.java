package dev.pools.memory;

import java.lang.ref.ReferenceQueue;

/**
 * The attachment of a handed-out buffer: the buffer and every view of it hold this object, and
 * nothing else does. When it becomes unreachable, no buffer points into the memory any more, and
 * its {@link Lease} is enqueued for release.
 */
final class Anchor {
    final Lease lease;

    Anchor(Pool pool, int size, int site, ReferenceQueue<Object> queue) {
        this.lease = new Lease(this, queue, pool, size, site);
    }
}
