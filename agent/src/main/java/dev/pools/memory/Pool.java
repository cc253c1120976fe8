package dev.pools.memory;

import java.lang.ref.ReferenceQueue;
import java.util.concurrent.locks.ReentrantLock;

/**
 * What every pool kind shares: a lock, the accounting of POOLS.md §7, the marks that reset only
 * at install ({@code pagesPeak}, {@code largestAlloc}) and a histogram of request sizes.
 *
 * <p>Threading: every field below is guarded by {@link #lock}. An allocation holds one pool's lock
 * at a time; only an install holds them all, taken in layout order.
 */
abstract sealed class Pool permits SlicingPool, ExclusivePool, DirectPool {

    /** Buckets of {@link Sizes#log2Bucket}: a request is at most {@code Integer.MAX_VALUE} bytes. */
    static final int HISTOGRAM_BUCKETS = 32;

    /** The allocator this pool belongs to: where its leases are released. */
    final PoolAllocator owner;
    final int index;
    final ReentrantLock lock = new ReentrantLock();

    /** Set by an install that replaced this pool's layout: reserve refuses, the caller re-routes. */
    boolean retired;
    long numberAllocs;
    long bytesInUse;
    long bytesPadding;
    long largestAlloc;
    long pagesPeak;
    final long[] requestSizes = new long[HISTOGRAM_BUCKETS + 1];

    Pool(PoolAllocator owner, int index) {
        this.owner = owner;
        this.index = index;
    }

    static Pool create(PoolAllocator owner, int index, PoolSpec spec) {
        if (spec instanceof PoolSpec.Sliced s) {
            return new SlicingPool(owner, index, s);
        }
        if (spec instanceof PoolSpec.Exclusive e) {
            return new ExclusivePool(owner, index, e);
        }
        return new DirectPool(owner, index, (PoolSpec.Direct) spec);
    }

    /** Whether this pool takes a request of {@code size} bytes by its size class. */
    abstract boolean accepts(int size);

    /**
     * Whether this pool takes {@code size} bytes as a last resort, when no pool takes it by size
     * class: an uncapped sliced pool's near-page rule. False for every other pool.
     */
    boolean acceptsAsLastResort(int size) {
        return false;
    }

    /**
     * Reserves room for {@code size > 0} bytes and returns the anchor of its lease; null when this pool cannot serve
     * it now (capped and full, refused a page by the JDK, or retired). Takes the lock.
     */
    abstract Anchor reserve(int size, int site, ReferenceQueue<Anchor> queue);

    /** Returns a released lease's room to the pool. The caller has claimed the release, cleaned the memory, and holds the lock. */
    abstract void freeLocked(Lease lease);

    final void free(Lease lease) {
        lock.lock();
        try {
            freeLocked(lease);
        } finally {
            lock.unlock();
        }
    }

    /** Returns released leases' room to the pool under one acquisition of its lock. */
    final void free(Lease[] leases, int from, int to) {
        lock.lock();
        try {
            for (int i = from; i < to; i++) {
                freeLocked(leases[i]);
            }
        } finally {
            lock.unlock();
        }
    }

    /** Gives every empty page back to the JDK; returns how many. Caller holds the lock. */
    abstract int releaseEmptyPages();

    /** Pages held now (a direct pool: live allocations). Caller holds the lock. */
    abstract long pages();

    /** Bytes held from the JDK, used or free. Caller holds the lock. */
    abstract long bytesReserved();

    abstract PoolSpec spec();

    /** Checks the pool's structural invariants, throwing {@link AssertionError}; for tests. Caller holds the lock. */
    abstract void checkInvariants();

    final void served(int size) {
        numberAllocs++;
        bytesInUse += size;
        bytesPadding += Sizes.padding(size);
        if (size > largestAlloc) {
            largestAlloc = size;
        }
        requestSizes[Sizes.log2Bucket(size)]++;
    }

    final void returned(int size) {
        numberAllocs--;
        bytesInUse -= size;
        bytesPadding -= Sizes.padding(size);
        assert numberAllocs >= 0 && bytesInUse >= 0 && bytesPadding >= 0 : "accounting went negative in pool " + index;
    }

    final void notePages(long pages) {
        if (pages > pagesPeak) {
            pagesPeak = pages;
        }
    }

    final int cleanup() {
        lock.lock();
        try {
            return releaseEmptyPages();
        } finally {
            lock.unlock();
        }
    }

    final PoolReport report() {
        lock.lock();
        try {
            return reportLocked();
        } finally {
            lock.unlock();
        }
    }

    final PoolReport reportLocked() {
        PoolSpec spec = spec();
        long pageSize;
        long maxSlice;
        long cap = PoolSpec.UNCAPPED;
        if (spec instanceof PoolSpec.Sliced s) {
            pageSize = s.pageSize();
            maxSlice = s.maxSlice();
            cap = s.pagesCap();
        } else if (spec instanceof PoolSpec.Exclusive e) {
            pageSize = e.maxAlloc();
            maxSlice = e.maxAlloc();
        } else {
            pageSize = 0;
            maxSlice = Sizes.MAX_PAGE;
        }
        Usage usage = new Usage(numberAllocs, bytesInUse, bytesPadding, bytesReserved(), 0, 0);
        return new PoolReport(index, spec.kind(), pageSize, maxSlice, cap, pages(), pagesPeak, largestAlloc, usage);
    }

    final long[] requestSizes() {
        lock.lock();
        try {
            return requestSizes.clone();
        } finally {
            lock.unlock();
        }
    }

    /** One line for an error message: what the pool is and what it holds. */
    final String describe() {
        PoolReport r = report();
        StringBuilder b = new StringBuilder("pool ").append(index).append(' ').append(r.kind().label());
        if (r.kind() == PoolKind.SLICED) {
            b.append(" (").append(Sizes.human(r.pageSize())).append(" pages, slices up to ").append(Sizes.human(r.maxSlice()))
                    .append("): ").append(r.pages()).append(r.pagesCap() < 0 ? "" : "/" + r.pagesCap()).append(" pages");
        } else if (r.kind() == PoolKind.EXCLUSIVE) {
            b.append(" (up to ").append(Sizes.human(r.maxSlice())).append("): ").append(r.pages()).append(" pages");
        } else {
            b.append(": ").append(r.pages()).append(" blocks");
        }
        return b.append(", ").append(Sizes.human(r.usage().bytesInUse())).append(" in use of ")
                .append(Sizes.human(r.usage().bytesReserved())).append(" reserved").toString();
    }
}
