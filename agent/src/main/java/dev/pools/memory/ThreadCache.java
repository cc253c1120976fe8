package dev.pools.memory;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * One thread's cache of released slices of one {@link SlicingPool}: the thread that released a
 * slice takes it again for a request of the same effective size without the pool's lock, as Netty's
 * {@code PoolThreadCache} does.
 *
 * <p><b>Ownership.</b> Only the owning thread puts slices in ({@link #put}) and takes them for
 * requests ({@link #pop}). Any thread holding the pool's lock may take every slice out
 * ({@link #takeAll}) and give it back to the pool: the pool does so before it grows, and so before
 * it refuses. Every slot is one atomic cell, so the owner and a drainer never both get a slice.
 *
 * <p><b>Accounting.</b> A cached slice is free to the pool's reports: when the owner caches a
 * released lease, its counters here go down by the lease; when it serves a request from the cache,
 * they go up. The pool's own counters (under its lock) still count the slice as taken, so the sum
 * of both is exact, and giving a cached slice back to the pool changes neither. Only the owner
 * writes the counters; readers add them up with {@link #addStats}. An update changes several
 * counters (a request's count, bytes, padding), so it is framed by a sequence number, odd while the
 * owner writes: a reader retries until it read them all between the same even number, and so never
 * sees a count of one moment with the bytes of another. An owner that an error stopped in the middle
 * of an update (a {@code StackOverflowError}) leaves the number odd; that error stops the pools too
 * ({@link PoolAllocator#stoppedBy}), and readers then take the counters as they are.
 */
final class ThreadCache {

    /** Slices one thread keeps per pool. */
    static final int SLOTS = 8;

    /** The longest slice a cache keeps: larger ones cost their zeroing more than the pool's lock. */
    static final int MAX_LENGTH = 64 * 1024;

    private static final VarHandle SLOT = MethodHandles.arrayElementVarHandle(Slice[].class);
    private static final VarHandle STAT = MethodHandles.arrayElementVarHandle(long[].class);

    static final int COUNT = 0;
    static final int BYTES = 1;
    static final int PADDING = 2;
    static final int LARGEST = 3;
    static final int HISTOGRAM = 4;
    static final int STATS = HISTOGRAM + Pool.HISTOGRAM_BUCKETS + 1;
    /** The sequence number of the counters, after them in {@link #stats}: odd while the owner writes them. */
    private static final int SEQUENCE = STATS;

    /**
     * Array elements kept unused at both ends of {@link #slots} and {@link #stats}: 64 bytes or more,
     * so that the collector, which may place two threads' arrays side by side, never puts two
     * threads' counters on one cache line (measured: 62 against 630 ns per operation, by fork).
     */
    private static final int PAD = 16;

    final Thread owner;
    /**
     * The owner's counts in its pools' {@link CallSites} (null when it keeps none there), so that a
     * request or release served through this cache counts its call site without looking them up.
     */
    final CallSites.ThreadCounts counts;

    private final Slice[] slots = new Slice[SLOTS + 2 * PAD];
    private final long[] stats = new long[STATS + 1 + 2 * PAD];

    ThreadCache(Thread owner, CallSites.ThreadCounts counts) {
        this.owner = owner;
        this.counts = counts;
    }

    ThreadCache(Thread owner) {
        this(owner, null);
    }

    /** A cached slice of exactly {@code length} bytes, taken out of the cache; null if none. Owner only. */
    Slice pop(int length) {
        for (int i = PAD; i < PAD + SLOTS; i++) {
            Slice s = (Slice) SLOT.getAcquire(slots, i);
            if (s != null && s.length == length && SLOT.compareAndSet(slots, i, s, null)) {
                return s;
            }
        }
        return null;
    }

    /** An empty slot for {@link #put}, or -1: only the owner fills slots, so it stays empty until then. Owner only. */
    int emptySlot() {
        for (int i = PAD; i < PAD + SLOTS; i++) {
            if (SLOT.getAcquire(slots, i) == null) {
                return i;
            }
        }
        return -1;
    }

    /** Puts a slice in a slot {@link #emptySlot()} returned. Owner only. */
    void put(int slot, Slice s) {
        SLOT.setVolatile(slots, slot, s);
    }

    /** Takes {@code s} back out of {@code slot} unless a drainer took it first; true if this caller got it. */
    boolean takeBack(int slot, Slice s) {
        return SLOT.compareAndSet(slots, slot, s, null);
    }

    /** Takes every cached slice out into {@code out} from {@code n}; returns the new count. Pool's lock held. */
    int takeAll(Slice[] out, int n) {
        for (int i = PAD; i < PAD + SLOTS; i++) {
            Slice s = (Slice) SLOT.getAndSet(slots, i, null);
            if (s != null) {
                out[n++] = s;
            }
        }
        return n;
    }

    /** Slices cached now; for the pool's invariant check. */
    int size() {
        int n = 0;
        for (int i = PAD; i < PAD + SLOTS; i++) {
            if (SLOT.getVolatile(slots, i) != null) {
                n++;
            }
        }
        return n;
    }

    /**
     * Counts a request served from the cache, then orders that count before the caller's next read
     * (of the pool's {@code closing} flag): an install that sets the flag and then reads the counts
     * either sees this request or is seen by it. Owner only.
     */
    void served(int size) {
        beginUpdate();
        add(COUNT, 1);
        add(BYTES, size);
        add(PADDING, Sizes.padding(size));
        if (size > (long) STAT.getOpaque(stats, PAD + LARGEST)) {
            STAT.setOpaque(stats, PAD + LARGEST, (long) size);
        }
        add(HISTOGRAM + Sizes.log2Bucket(size), 1);
        endUpdate();
        VarHandle.fullFence();
    }

    /** Counts a released lease whose slice the cache keeps; before the slice is {@linkplain #put put}. Owner only. */
    void returned(int size) {
        beginUpdate();
        add(COUNT, -1);
        add(BYTES, -size);
        add(PADDING, -Sizes.padding(size));
        endUpdate();
    }

    /** Undoes {@link #served}: the request went back to the pool's slow path. Owner only. */
    void unserved(int size) {
        beginUpdate();
        add(COUNT, -1);
        add(BYTES, -size);
        add(PADDING, -Sizes.padding(size));
        add(HISTOGRAM + Sizes.log2Bucket(size), -1);
        endUpdate();
    }

    /** Makes the sequence number odd, before any counter is written. Owner only. */
    private void beginUpdate() {
        STAT.setOpaque(stats, PAD + SEQUENCE, (long) STAT.getOpaque(stats, PAD + SEQUENCE) + 1);
        VarHandle.storeStoreFence();
    }

    /** Makes the sequence number even again, after every counter was written. Owner only. */
    private void endUpdate() {
        STAT.setRelease(stats, PAD + SEQUENCE, (long) STAT.getOpaque(stats, PAD + SEQUENCE) + 1);
    }

    private void add(int i, long delta) {
        STAT.setOpaque(stats, PAD + i, (long) STAT.getOpaque(stats, PAD + i) + delta);
    }

    /**
     * Adds this cache's counters into {@code into} (maximum for {@link #LARGEST}), all as they were
     * at one moment between the owner's updates. An update is a few stores with no lock in between,
     * so the wait lasts until the owner runs again; a thread that ended writes no more, nor does any
     * once the {@code pools} stopped ({@link PoolAllocator#stoppedBy}).
     */
    void addStats(long[] into, PoolAllocator pools) {
        long[] seen = new long[STATS];
        for (int attempt = 0; ; attempt++) {
            long before = (long) STAT.getAcquire(stats, PAD + SEQUENCE);
            for (int i = 0; i < STATS; i++) {
                seen[i] = (long) STAT.getOpaque(stats, PAD + i);
            }
            VarHandle.loadLoadFence();
            long after = (long) STAT.getOpaque(stats, PAD + SEQUENCE);
            if ((before & 1) == 0 && before == after || !owner.isAlive() || pools.stoppedBy != null) {
                break;
            }
            if (attempt < 64) {
                Thread.onSpinWait();
            } else {
                Thread.yield();
            }
        }
        for (int i = 0; i < STATS; i++) {
            into[i] = i == LARGEST ? Math.max(into[i], seen[i]) : into[i] + seen[i];
        }
    }
}
