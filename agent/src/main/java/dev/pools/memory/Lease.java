package dev.pools.memory;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.lang.ref.PhantomReference;
import java.lang.ref.ReferenceQueue;

/**
 * One allocation served by a pool, from reservation to release.
 *
 * <p>Ownership: the pool holds the lease strongly (in the slot it reserved), so that the lease
 * outlives its {@link Anchor}; the anchor is held only by the buffer and its views. A lease is
 * released exactly once, by whichever comes first: an explicit release, or the reference queue
 * once the anchor is unreachable. {@link #claimRelease()} decides the winner; every later claim
 * is a double release and changes nothing.
 */
final class Lease extends PhantomReference<Anchor> {
    private static final VarHandle STATE;
    private static final int LIVE = 0;
    private static final int RELEASED = 1;

    static {
        try {
            STATE = MethodHandles.lookup().findVarHandle(Lease.class, "state", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    final Pool pool;
    /** The pool's own record of what this lease reserved (a slice, a page or a block). */
    final Object slot;
    final long address;
    /** Requested size in bytes: the buffer's capacity. */
    final int size;
    /** Call site that asked for it, see {@link CallSites}. */
    final int site;
    /** The id an {@link AllocationTrace} gave this allocation; 0 when no trace runs. */
    long traceId;
    @SuppressWarnings("unused") // accessed through STATE
    private volatile int state;

    Lease(Anchor anchor, ReferenceQueue<Anchor> queue, Pool pool, Object slot, long address, int size, int site) {
        super(anchor, queue);
        this.pool = pool;
        this.slot = slot;
        this.address = address;
        this.size = size;
        this.site = site;
    }

    /** True for the one caller that may release this lease; false for every later one. */
    boolean claimRelease() {
        return STATE.compareAndSet(this, LIVE, RELEASED);
    }

    boolean isLive() {
        return state == LIVE;
    }
}
