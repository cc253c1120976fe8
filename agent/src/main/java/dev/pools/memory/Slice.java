package dev.pools.memory;

/**
 * A range of one page: used (it backs one lease) or free. The slices of a page form a doubly
 * linked list in address order that tiles the page exactly. A free slice is also a node of the
 * pool's {@link FreeSliceTree}.
 */
final class Slice {
    final SlicingPool.Page page;
    int offset;
    /** Bytes of the page this slice covers: a multiple of the alignment. */
    int length;

    boolean free;
    /** Used, but in a thread's {@link ThreadCache}: free to the reports, not to the free tree. */
    boolean cached;
    /**
     * Free, and may hold bytes a host wrote: a release by the collector left it unzeroed, here or in
     * a slice merged into it. The allocation that takes any of it zeroes what it takes. Never set on a
     * used or cached slice.
     */
    boolean dirty;

    Slice prev;
    Slice next;
    /**
     * The lease a used slice backs; null while free or cached, and on a run's container. A run's slot
     * token holds the lease it served from a thread's cache; a slot handed out under the lock has its
     * lease in its run's array instead.
     */
    Lease lease;
    /**
     * The run this slice belongs to, or null: set on a run's container (the used slice of the page
     * the run covers, whose {@link SlicingPool.Run#slice} it is) and on the token of a run's slot
     * that a thread's cache holds or held (the slot's bytes, never in the page's list nor in the free
     * tree).
     */
    SlicingPool.Run run;
    /**
     * The thread cache that last held this slice, or null: a hint for its next release, which uses
     * it in place of a thread-local lookup when the releasing thread owns it. Written by that
     * cache's owner; a reader on another thread may see an older cache, whose owner is then not the
     * reader, so the hint is never taken for the wrong thread's.
     */
    ThreadCache holder;

    // FreeSliceTree fields, meaningful while free.
    Slice left;
    Slice right;
    int priority;
    /** Largest {@link #length} in this node's subtree. */
    int maxLength;

    Slice(SlicingPool.Page page, int offset, int length) {
        this.page = page;
        this.offset = offset;
        this.length = length;
    }

    /** Sort key of the free tree: page order, then address order. */
    long key() {
        return ((long) page.index << 32) | offset;
    }

    @Override
    public String toString() {
        return (free ? "free " : "used ") + page.index + ":" + offset + "+" + length;
    }
}
