package dev.pools.memory;

import java.util.List;
import java.util.Set;

/**
 * What every pool kind shares: a lock, the accounting of docs/POOLS.md §7, the marks that reset only
 * at install ({@code pagesPeak}, {@code largestAlloc}) and a histogram of request sizes.
 *
 * <p>Threading: every field below is guarded by {@link #lock}. An allocation holds one pool's lock
 * at a time; only an install holds them all, taken in layout order. A method whose name ends in
 * {@code Locked} runs with the lock held by its caller; every other method takes it itself.
 */
abstract sealed class Pool permits SlicingPool, ExclusivePool, DirectPool {

    /** Buckets of {@link Sizes#log2Bucket}: a request is at most {@code Integer.MAX_VALUE} bytes. */
    static final int HISTOGRAM_BUCKETS = 32;

    /** The allocator this pool belongs to: where its leases are released. */
    final PoolAllocator owner;

    final int index;
    final OwnedLock lock = new OwnedLock(this::abandoned, HOLDERS);

    /** The classes whose code takes a pool's lock (see {@link OwnedLock}). */
    private static final Class<?>[] HOLDERS = {
        Pool.class,
        SlicingPool.class,
        ExclusivePool.class,
        DirectPool.class,
        PoolAllocator.class,
        Locks.class,
        OwnedLock.class
    };

    /**
     * Takes the lock; false, and the lock not taken, if it was found abandoned (the pools stopped, see
     * {@link OwnedLock}): no one changes the pool after that, so what it holds may be read without it.
     */
    final boolean lockUnlessAbandoned() {
        return Locks.acquireUnlessAbandoned(lock);
    }

    /** The lock found abandoned: the change its holder was making may be half made, so the pools stop. */
    private void abandoned(AbandonedLockException e) {
        if (owner.stoppedBy == null) {
            owner.stoppedBy = e;
        }
    }

    /** Set by an install that replaced this pool's layout: reserve refuses, the caller re-routes. */
    volatile boolean retired;

    /**
     * Set by an install while it decides whether this pool holds anything live: a thread that
     * served or cached a slice without the lock (see {@link ThreadCache}) checks it afterwards and
     * goes through the lock instead.
     */
    volatile boolean closing;

    long numberAllocs;
    long bytesInUse;
    long bytesPadding;
    long largestAlloc;
    long pagesPeak;
    /** Most live allocations at once since install, as counted under the lock (see {@link #allocsPeakLocked}). */
    long allocsPeak;

    final long[] requestSizes = new long[HISTOGRAM_BUCKETS + 1];
    /** Every live lease of this pool, newest first: the pool's strong hold on them (see {@link Lease}). */
    private Lease liveHead;

    private long liveCount;

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
     * Reserves room for {@code size > 0} bytes and returns the anchor of its lease; null when this
     * pool cannot serve it now (capped and full, refused a page by the JDK, or retired). The same
     * for every pool kind: the anchor and lease are made before the lock is taken (an allocation
     * that fails there leaves the pool untouched); under the lock the pool finds the room
     * ({@link #take}), puts the lease on its list of live leases, and counts it.
     *
     * @param retry whether the same request was tried before (after releases or a collection), so
     *              that per-request statistics count it once
     */
    final Anchor reserve(int size, int site, boolean retry) {
        Anchor anchor = new Anchor(this, size, site, Releaser.QUEUE);
        Lease lease = anchor.lease;
        AllocationTrace trace = owner.options().trace();
        if (!retry && takeCached(lease)) {
            if (trace != null) {
                lease.traceId = trace.allocated(size, site);
            }
            return anchor;
        }
        if (!lockUnlessAbandoned()) {
            return null; // the pools stopped: the caller finds so
        }
        try {
            if (retired || owner.stoppedBy != null || !takeLocked(lease, retry)) {
                return null;
            }
            if (listsLeases()) {
                linkLocked(lease);
            }
            served(size);
            if (trace != null) {
                // Under the lock, so the trace lists one pool's allocations and releases in the order the pool saw
                // them.
                lease.traceId = trace.allocated(size, site);
            }
        } catch (Throwable t) {
            // With no call in between (see PoolAllocator#stoppedBy).
            if (!(t instanceof OutOfMemoryError)) {
                owner.stoppedBy = t;
            }
            throw t;
        } finally {
            lock.unlock();
        }
        if (lease.zeroAtHandOut > 0) {
            // Outside the lock: the room is this lease's alone, and threads zero their own in parallel.
            NativeAccess.fill(lease.address, lease.zeroAtHandOut, (byte) 0);
        }
        return anchor;
    }

    /**
     * Whether a release of {@code lease} by the collector may leave the memory as the host wrote it,
     * for the allocation that next takes the room to zero it (a sliced pool marks such room, see
     * {@link SlicingPool}); false: the release zeroes at once.
     */
    boolean zeroesAtHandOut(Lease lease) {
        return false;
    }

    /**
     * Finds room for {@code lease.size} bytes and records it in {@code lease.slot} and
     * {@code lease.address}; false when there is none. Caller holds the lock. Allocates any object
     * it needs before it changes the pool, so that a failed allocation leaves the pool as it was.
     */
    abstract boolean takeLocked(Lease lease, boolean retry);

    /**
     * Serves {@code lease} without the lock, from the calling thread's cache of released room;
     * false when there is none (the caller then takes the lock). Only sliced pools cache.
     */
    boolean takeCached(Lease lease) {
        return false;
    }

    /**
     * The calling thread's counts in the call sites, when the pool knows them without a lookup (see
     * {@link SlicingPool}); null otherwise.
     */
    CallSites.ThreadCounts knownCounts(Lease lease) {
        return null;
    }

    /** Keeps a released, cleaned lease's room in the calling thread's cache; false if it does not. */
    boolean cacheReleased(Lease lease) {
        return false;
    }

    /**
     * Whether the pool holds its live leases on its own list. A sliced pool does not: its slices
     * hold them, and a slice served from a thread's cache is not on any list the lock guards.
     */
    boolean listsLeases() {
        return true;
    }

    /**
     * Adds to {@code found}, from index {@code n} up to its length, the live leases of the pool whose
     * buffer the collector has found unreachable (the anchor cleared); returns the new count. Caller
     * holds the lock. See {@link PoolAllocator#recoverDropped}.
     */
    int droppedLocked(Lease[] found, int n) {
        for (Lease l = liveHead; l != null && n < found.length; l = l.nextLive) {
            n = addIfDropped(l, found, n);
        }
        return n;
    }

    static int addIfDropped(Lease l, Lease[] found, int n) {
        if (n < found.length && l.isLive() && l.refersTo(null)) {
            found[n++] = l;
        }
        return n;
    }

    /** The count and bytes of the live leases the pool holds; caller holds the lock. From the list by default. */
    long[] liveLeasesLocked() {
        long n = 0;
        long bytes = 0;
        for (Lease l = liveHead; l != null; l = l.nextLive) {
            if (!l.isLive() || l.pool != this) {
                throw new AssertionError("pool " + index + " lists a lease that is released or not its own");
            }
            n++;
            bytes += l.size;
        }
        if (n != liveCount) {
            throw new AssertionError("pool " + index + " lists " + n + " leases, counts " + liveCount);
        }
        return new long[] {n, bytes};
    }

    /**
     * The counters of {@link ThreadCache}, summed over this pool's caches (layout of
     * {@link ThreadCache#STATS}); null when the pool keeps no caches. Caller holds the lock.
     */
    long[] cacheStatsLocked() {
        return null;
    }

    /** Gives every slice in any thread's cache back to the pool; caller holds the lock. */
    void drainCachesLocked() {}

    /** Returns a released lease's room to the pool. The caller has claimed the release, cleaned the memory, and holds the lock. */
    abstract void giveBackLocked(Lease lease);

    final void free(Lease lease) {
        free(lease, true);
    }

    /** An explicit release: to the calling thread's cache if {@code mayCache} and it takes it, else to the pool. */
    final void free(Lease lease, boolean mayCache) {
        if (mayCache && cacheReleased(lease)) {
            AllocationTrace trace = owner.options().trace();
            if (trace != null) {
                trace.released(lease.traceId, false);
            }
            return;
        }
        if (!lockUnlessAbandoned()) {
            return; // the pools stopped: nothing is given back to them
        }
        try {
            if (owner.stoppedBy == null) {
                freeLocked(lease, false);
            }
        } catch (Throwable t) {
            // With no call in between (see PoolAllocator#stoppedBy).
            if (!(t instanceof OutOfMemoryError)) {
                owner.stoppedBy = t;
            }
            throw t;
        } finally {
            lock.unlock();
        }
    }

    /** Returns released leases' room to the pool under one acquisition of its lock. */
    final void free(Lease[] leases, int from, int to) {
        if (!lockUnlessAbandoned()) {
            return; // the pools stopped: nothing is given back to them
        }
        try {
            if (owner.stoppedBy != null) {
                return;
            }
            long bytes = 0;
            for (int i = from; i < to; i++) {
                freeLocked(leases[i], true);
                bytes += leases[i].size;
            }
            collectorFreedBytes = collectorFreedBytes + bytes;
        } catch (Throwable t) {
            // With no call in between (see PoolAllocator#stoppedBy).
            if (!(t instanceof OutOfMemoryError)) {
                owner.stoppedBy = t;
            }
            throw t;
        } finally {
            lock.unlock();
        }
    }

    /** How many bytes the collector's releases gave back to this pool; written under the lock. */
    private volatile long collectorFreedBytes;

    /** How many bytes the collector's releases have given back to this pool so far. */
    final long collectorFreedBytes() {
        return collectorFreedBytes;
    }

    private void freeLocked(Lease lease, boolean byCollector) {
        if (listsLeases()) {
            unlinkLocked(lease);
        }
        returned(lease.size);
        giveBackLocked(lease);
        AllocationTrace trace = owner.options().trace();
        if (trace != null) {
            try {
                trace.released(lease.traceId, byCollector);
            } catch (OutOfMemoryError e) {
                // The room is back whatever the trace says: a full Java heap that refused a trace's line
                // left the rest of a collector's batch out of its pools for good (a review).
            }
        }
    }

    /** Puts a lease on the list of live leases: the pool's strong hold on it. Caller holds the lock. */
    private void linkLocked(Lease lease) {
        lease.nextLive = liveHead;
        if (liveHead != null) {
            liveHead.prevLive = lease;
        }
        liveHead = lease;
        liveCount++;
    }

    private void unlinkLocked(Lease lease) {
        Lease prev = lease.prevLive;
        Lease next = lease.nextLive;
        if (prev == null) {
            assert liveHead == lease : "releasing a lease that is not on pool " + index + "'s live list";
            liveHead = next;
        } else {
            prev.nextLive = next;
        }
        if (next != null) {
            next.prevLive = prev;
        }
        lease.prevLive = null;
        lease.nextLive = null;
        liveCount--;
    }

    /** Checks the list of live leases against the accounting, then the kind's own invariants. Caller holds the lock. */
    final void checkAllInvariantsLocked() {
        long[] live = liveLeasesLocked();
        long[] cached = cacheStatsLocked();
        long allocs = numberAllocs + (cached == null ? 0 : cached[ThreadCache.COUNT]);
        long bytes = bytesInUse + (cached == null ? 0 : cached[ThreadCache.BYTES]);
        if (live[0] != allocs || live[1] != bytes) {
            throw new AssertionError("pool " + index + " holds " + live[0] + " live leases of " + live[1]
                    + " B, counts " + allocs + " allocations of " + bytes + " B");
        }
        checkInvariantsLocked();
    }

    /** Gives every empty page back to the JDK; returns how many. Caller holds the lock. */
    abstract int releaseEmptyPagesLocked();

    /** The empty pages now (a direct pool: its free blocks), as themselves. Caller holds the lock. */
    abstract List<Object> emptyPagesLocked();

    /** Gives back those of {@code earlier} that are still empty; returns how many. Caller holds the lock. */
    abstract int releaseStillEmptyLocked(Set<Object> earlier);

    /** {@link #emptyPagesLocked()} under the lock. */
    final List<Object> emptyPages() {
        if (!lockUnlessAbandoned()) {
            return List.of(); // the pools stopped
        }
        try {
            return owner.stoppedBy != null ? List.of() : emptyPagesLocked();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Takes back the slices threads' caches hold and the room of idle runs (a sliced pool's), as a
     * cleanup does, without giving any page back; returns whether some page is empty that was not.
     */
    final boolean drainForGiveBack() {
        if (!lockUnlessAbandoned()) {
            return false; // the pools stopped
        }
        try {
            if (owner.stoppedBy != null) {
                return false;
            }
            int before = emptyPagesLocked().size();
            drainCachesLocked();
            freeIdleLocked();
            return emptyPagesLocked().size() > before;
        } catch (Throwable t) {
            // With no call in between (see PoolAllocator#stoppedBy).
            if (!(t instanceof OutOfMemoryError)) {
                owner.stoppedBy = t;
            }
            throw t;
        } finally {
            lock.unlock();
        }
    }

    /** Frees room the pool keeps for sizes of its own (a sliced pool's idle runs). Caller holds the lock. */
    void freeIdleLocked() {}

    /** {@link #releaseStillEmptyLocked} under the lock; thread caches stay as they are. */
    final int releaseStillEmpty(Set<Object> earlier) {
        if (!lockUnlessAbandoned()) {
            return 0; // the pools stopped
        }
        try {
            return owner.stoppedBy != null ? 0 : releaseStillEmptyLocked(earlier);
        } catch (Throwable t) {
            // With no call in between (see PoolAllocator#stoppedBy).
            if (!(t instanceof OutOfMemoryError)) {
                owner.stoppedBy = t;
            }
            throw t;
        } finally {
            lock.unlock();
        }
    }

    /** Pages held now (a direct pool: live allocations). Caller holds the lock. */
    abstract long pagesLocked();

    /** Bytes held from the JDK, used or free. Caller holds the lock. */
    abstract long bytesReservedLocked();

    /** Runs of equal slots held now; only a sliced pool has any. Caller holds the lock. */
    /**
     * The most live allocations at once since install, where the lock counts them all (exclusive
     * and direct pools); -1 where a thread's cache serves some without it (sliced pools).
     */
    long allocsPeakLocked() {
        return allocsPeak;
    }

    long runsLocked() {
        return 0;
    }

    /** Bytes of the runs held now, their free slots included. Caller holds the lock. */
    long bytesInRunsLocked() {
        return 0;
    }

    abstract PoolSpec spec();

    /** Checks the pool's structural invariants, throwing {@link AssertionError}; for tests. Caller holds the lock. */
    abstract void checkInvariantsLocked();

    final void served(int size) {
        if (++numberAllocs > allocsPeak) {
            allocsPeak = numberAllocs;
        }
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
        // Only the count: a slice a thread's cache served counts its bytes in that cache, and its release
        // through the lock takes them from the pool, for a size of the same effective size as the one
        // the pool counted (65 B served by the lock, 128 B by the cache). So a pool's own bytes may go
        // below zero; the pool's and its caches' together are exact. Its own count cannot: every slice
        // a cache served was given back to a cache before, and first served by the lock.
        assert numberAllocs >= 0 : "accounting went negative in pool " + index;
    }

    final void notePages(long pages) {
        if (pages > pagesPeak) {
            pagesPeak = pages;
        }
    }

    final int cleanup() {
        if (!lockUnlessAbandoned()) {
            return 0; // the pools stopped
        }
        try {
            if (owner.stoppedBy != null) {
                return 0;
            }
            drainCachesLocked();
            return releaseEmptyPagesLocked();
        } catch (Throwable t) {
            // With no call in between (see PoolAllocator#stoppedBy).
            if (!(t instanceof OutOfMemoryError)) {
                owner.stoppedBy = t;
            }
            throw t;
        } finally {
            lock.unlock();
        }
    }

    final PoolReport report() {
        boolean held = lockUnlessAbandoned();
        try {
            return reportLocked();
        } finally {
            if (held) {
                lock.unlock();
            }
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
        long[] cached = cacheStatsLocked();
        Usage usage = cached == null
                ? new Usage(numberAllocs, bytesInUse, bytesPadding, bytesReservedLocked(), 0, 0)
                : new Usage(
                        numberAllocs + cached[ThreadCache.COUNT],
                        bytesInUse + cached[ThreadCache.BYTES],
                        bytesPadding + cached[ThreadCache.PADDING],
                        bytesReservedLocked(),
                        0,
                        0);
        long largest = cached == null ? largestAlloc : Math.max(largestAlloc, cached[ThreadCache.LARGEST]);
        return new PoolReport(
                index,
                spec.kind(),
                pageSize,
                maxSlice,
                cap,
                pagesLocked(),
                pagesPeak,
                largest,
                usage,
                runsLocked(),
                bytesInRunsLocked(),
                allocsPeakLocked());
    }

    final long[] requestSizes() {
        boolean held = lockUnlessAbandoned();
        try {
            long[] sizes = requestSizes.clone();
            long[] cached = cacheStatsLocked();
            if (cached != null) {
                for (int i = 0; i < sizes.length; i++) {
                    sizes[i] += cached[ThreadCache.HISTOGRAM + i];
                }
            }
            return sizes;
        } finally {
            if (held) {
                lock.unlock();
            }
        }
    }

    /**
     * One line for a refusal of {@code size} bytes: what the pool is and what it holds, and, where a
     * capped sliced pool at its cap has that much free, that its free room is in pieces too small.
     */
    final String describe(int size) {
        PoolReport r = report();
        String line = describe(r);
        Usage u = r.usage();
        // At most the free room outside runs of slots (which serve their slot size only): in use counts
        // the runs' slots in use, which the runs' bytes count again.
        long free = u.bytesReserved() - u.bytesInUse() - u.bytesPadding() - r.bytesInRuns();
        long slice = (size + 63L) & ~63L;
        if (r.kind() == PoolKind.SLICED && r.pagesCap() >= 0 && r.pages() >= r.pagesCap() && free >= slice) {
            // The refusal would otherwise read as a pool without room (a review: "55.6 KiB in use of 64 KiB").
            return line + "; its " + Sizes.human(free) + " free are in pieces smaller than the request (first fit"
                    + " leaves holes between live slices)";
        }
        return line;
    }

    /** One line for an error message: what the pool is and what it holds. */
    private String describe(PoolReport r) {
        StringBuilder b = new StringBuilder("pool ")
                .append(index)
                .append(' ')
                .append(r.kind().label());
        if (r.kind() == PoolKind.SLICED) {
            b.append(" (")
                    .append(Sizes.human(r.pageSize()))
                    .append(" pages, slices up to ")
                    .append(Sizes.human(r.maxSlice()))
                    .append("): ")
                    .append(r.pages())
                    .append(r.pagesCap() < 0 ? "" : "/" + r.pagesCap())
                    .append(" pages");
        } else if (r.kind() == PoolKind.EXCLUSIVE) {
            b.append(" (up to ")
                    .append(Sizes.human(r.maxSlice()))
                    .append("): ")
                    .append(r.pages())
                    .append(" pages");
        } else {
            b.append(": ").append(r.pages()).append(" blocks");
        }
        return b.append(", ")
                .append(Sizes.human(r.usage().bytesInUse()))
                .append(" in use of ")
                .append(Sizes.human(r.usage().bytesReserved()))
                .append(" reserved")
                .append(
                        r.runs() == 0
                                ? ""
                                : " (" + r.runs() + (r.runs() == 1 ? " run" : " runs") + " of equal slots, "
                                        + Sizes.human(r.bytesInRuns()) + ", take only requests of their slot size)")
                .toString();
    }
}
