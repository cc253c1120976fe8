package dev.pools.memory;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.lang.ref.PhantomReference;
import java.lang.ref.ReferenceQueue;

/**
 * One allocation served by a pool, from reservation to release.
 *
 * <p>Ownership: the pool holds every live lease strongly (a sliced pool through the used slice,
 * the other kinds on their list of live leases, see {@link Pool}), so that the lease outlives its {@link Anchor} and the collector enqueues it when
 * the anchor dies: a phantom reference that is itself unreachable is never enqueued. The anchor
 * is held only by the buffer and its views. A lease is released exactly once, by whichever comes
 * first: an explicit release, or the reference queue once the anchor is unreachable.
 * {@link #claimRelease()} decides the winner; every later claim changes nothing.
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
    /** Requested size in bytes: the buffer's capacity. */
    final int size;
    /** Call site that asked for it, see {@link CallSites}. */
    final int site;
    /** The pool's own record of what this lease reserved (a slice, a page or a block); set once, under the pool's lock. */
    Object slot;
    /** Where the memory starts; set with {@link #slot}. */
    long address;
    /** The id an {@link AllocationTrace} gave this allocation; 0 when no trace runs. Written by the thread it serves, before the buffer is handed out. */
    long traceId;
    /**
     * Set by a release of the collector's that left the memory as the host wrote it, for the pool
     * to mark its room as not zeroed ({@link Pool#zeroesAtHandOut()}); written before the pool's lock.
     */
    boolean leftDirty;
    /**
     * Bytes from {@link #address} that the allocating thread zeroes after the pool's lock: room a
     * collector's release left as the host wrote it. Set under the lock, with {@link #slot}.
     */
    int zeroAtHandOut;
    /** Neighbours on the pool's list of live leases; guarded by the pool's lock. */
    Lease prevLive;

    Lease nextLive;

    @SuppressWarnings("unused") // accessed through STATE
    private volatile int state;

    Lease(Anchor anchor, ReferenceQueue<Object> queue, Pool pool, int size, int site) {
        super(anchor, queue);
        this.pool = pool;
        this.size = size;
        this.site = site;
    }

    /**
     * Publishes {@link #slot} and {@link #address} written outside the pool's lock (a slice from a
     * thread's cache) to whichever thread later claims the release.
     */
    void published() {
        STATE.setRelease(this, LIVE);
    }

    /** True for the one caller that may release this lease; false for every later one. */
    boolean claimRelease() {
        return STATE.compareAndSet(this, LIVE, RELEASED);
    }

    boolean isLive() {
        return state != RELEASED;
    }
}
