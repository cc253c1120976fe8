package dev.pools.memory;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;

/**
 * A sliced pool (docs/POOLS.md §3): fixed-size pages, each cut into slices on demand.
 *
 * <pre>
 *   page 0  |used 4 MiB|free 15 MiB        |used 8 MiB |used 4 MiB|free 1 MiB|
 *           0          4                   19          27         31         32 MiB
 *   page 1  |free 32 MiB (a fresh page is one free slice)                    |
 * </pre>
 *
 * <b>Terms.</b> A request of {@code s} bytes has effective size {@code e = roundUp(s, 64)}; the
 * slice that serves it covers exactly {@code e} bytes.
 *
 * <p><b>Invariants</b> (checked by {@link #checkInvariantsLocked()}, the cheap ones by {@code assert}):
 * <ol>
 *   <li>The slices of a page tile it exactly: offsets start at 0, each slice starts where the last
 *       ended, the lengths add up to the page size, every offset and length is a multiple of 64.</li>
 *   <li>No two neighbouring slices are free (they merge on release).</li>
 *   <li>Every free slice, and nothing else, is in {@link #free}.</li>
 *   <li>{@code page.used} counts its used slices; a page with none is a single free slice.</li>
 *   <li>Free memory is zero, except under poisoning (then allocation zeroes), except in a
 *       {@linkplain Slice#dirty dirty} free slice, and except above a page's {@code zeroedTo}. A
 *       release by the collector (the one release thread) leaves the memory as the host wrote it and
 *       marks the free slice dirty; merging ORs the mark, splitting copies it, and the allocation that
 *       takes a dirty slice zeroes all of it, outside the lock ({@link Lease#zeroAtHandOut}). An
 *       explicit release zeroes at once, so a thread's cache holds only zeroed slices. A fresh page
 *       is not zeroed ({@link NativeAccess#allocatePage}), and the part of a slice above that mark is
 *       zeroed when the slice is handed out, which raises the mark to the slice's end. Every used or
 *       cached slice ends at or below the mark, and none is dirty.</li>
 * </ol>
 *
 * <p><b>Reserve</b> {@code s}: (1) first fit in (page index, offset) order: the first free slice
 * of length at least {@code e}; (2) if none: a capped pool at its cap refuses (the router spills);
 * otherwise take a new page at the lowest free page index; (3) if the slice is longer than
 * {@code e}, split: the front {@code e} bytes become the used slice, the rest stays free in place.
 *
 * <p><b>Runs</b> (JVM: not in CubeCL; docs/POOLS.md §3). A request of effective size {@code e} at
 * most {@link #runMax} is served from a <em>run</em>: a used slice of {@code RUN_SLOTS * e} bytes,
 * taken by the steps above, cut into {@link #RUN_SLOTS} slots of {@code e} bytes, with one bit a
 * slot. Per size the pool has at most one current run, which serves until it is full, and a list
 * of the other runs that have a free slot; a run whose last slot comes back is freed as one slice.
 * A slot has no object of its own (its run holds its lease in an array), so a small buffer adds
 * no object that old ones point to: a host that drops many small buffers then costs G1 half the
 * young collections and a fraction of the old cards to scan, and the pools half the collections
 * they make for a full pool (BENCHMARKS, B1 "runs"). The order, deterministic: (a) a slot of the current
 * run, else of the first listed run; (b) a new run in a free slice that fits it; (c) a plain slice
 * of {@code e} bytes where no run fits; (d) the caches drained and idle runs freed, then (a) to (c)
 * again; (e) a new page for a new run, or a refusal at the cap. Before the pool grows it has drained
 * every cache and freed every run with no used slot.
 *
 * <p><b>Free</b>: the slice merges with a free neighbour on either side, or becomes a free slice
 * of its own. Empty pages stay until {@link #releaseEmptyPagesLocked()} (an explicit cleanup).
 *
 * <p><b>Thread caches</b> ({@link ThreadCache}): a slice of at most {@link #cacheLimit} bytes that a
 * platform thread releases explicitly stays in that thread's cache, counted free, and serves its
 * next request of the same effective size without the lock. Before the pool grows, and so before
 * a capped pool refuses, it takes every cached slice back (step 1 is retried after it), so no pool
 * grows, spills, falls back or refuses while a cache holds a slice of it. Caches change where later
 * slices land (and so, either way, how many pages the same requests need); a single thread's
 * placement stays deterministic. A traced run caches as any other (a run it caps will), and its
 * trace says which thread made each request and release, for a replay (suggest --fit) to cache them
 * as that thread did.
 *
 * <p><b>Accepts</b> {@code s <= min(maxSlice, pageSize)}; an uncapped pool also takes a size that
 * would leave less than a fifth of a page unused, but only as a last resort (see {@link PoolSet}).
 */
final class SlicingPool extends Pool {

    /** One page: its memory and the head of its slice list. */
    static final class Page {
        final int index;
        final NativeAccess.Block block;
        Slice head;
        int used;
        /** Bytes from the page's start that have been zero once: the rest was never handed out. */
        int zeroedTo;

        Page(int index, NativeAccess.Block block) {
            this.index = index;
            this.block = block;
            this.zeroedTo = block.zeroed ? block.size : 0;
        }
    }

    /** Slots of one run: one bit each in {@link Run#used}. */
    static final int RUN_SLOTS = 64;

    /** The longest slot a run has: a request of at most this effective size is served from a run. */
    static final int RUN_MAX_SLOT = 256;

    /**
     * A used slice of a page cut into {@link #RUN_SLOTS} slots of one effective size, one bit each. A
     * slot has no object of its own: handed out under the lock, its lease names the run, and the
     * run's array holds the lease. Only a slot that a thread caches gets a slice object, its token in
     * the cache, made the first time and kept; a lease served from a cache names the token, and the
     * token holds it, so that threads sharing a run do not write one array at every request. Guarded
     * by the pool's lock, except that the owner of a thread cache sets and clears the lease of a slot
     * it caches or serves from its cache, as it does for any cached slice.
     */
    static final class Run {
        /** The container: the used slice of the page this run covers; set once, by {@link #attach}. */
        Slice slice;
        /** Bytes of each slot: an effective size. */
        final int length;
        /** Index in {@link #current} and {@link #partial}. */
        final int sizeClass;
        /** Address of slot 0. */
        long base;
        /**
         * The lease of each used slot, null while the slot is free or cached: the pool's strong hold on
         * them. An array, not an object per slot: a new lease stored in an older run marks one card of
         * the heap for G1 where objects per slot would mark eight, and nothing else is made per buffer
         * (BENCHMARKS, B1 "runs").
         */
        final Lease[] leases = new Lease[RUN_SLOTS];

        /** The lease of slot {@code k}, served by the lock or, through its token, by a thread's cache; null if free. */
        Lease leaseAt(int k) {
            Lease l = leases[k];
            return l == null && tokens[k] != null ? tokens[k].lease : l;
        }
        /** The slice object of each slot a thread's cache holds or held: its token there; null until then. */
        final Slice[] tokens = new Slice[RUN_SLOTS];
        /** Bit {@code i}: slot {@code i} is used or cached. */
        long used;
        /**
         * Bit {@code i}: slot {@code i} was never handed out, and the container was taken
         * {@linkplain Slice#dirty dirty}, so it may hold bytes a host wrote: zeroed at its first hand-out.
         */
        long unzeroed;
        /** Whether this run is on its size's list of runs with a free slot, and its neighbours there. */
        boolean listed;

        Run prev;
        Run next;

        /** A run not yet placed: made before the pool changes, so that a failed allocation changes nothing. */
        Run(int length, int sizeClass) {
            this.length = length;
            this.sizeClass = sizeClass;
        }

        void attach(Slice container) {
            this.slice = container;
            this.base = container.page.block.address + container.offset;
            this.unzeroed = container.dirty ? -1L : 0;
        }

        int slotAt(long address) {
            return (int) ((address - base) / length);
        }

        int slotOf(Slice token) {
            return (token.offset - slice.offset) / length;
        }

        @Override
        public String toString() {
            return "run of " + length + " B at " + slice + ", used " + Long.toBinaryString(used);
        }
    }

    private final PoolSpec.Sliced spec;
    private final int pageSize;
    private final int maxSlice;
    private final boolean capped;
    private final FreeSliceTree free = new FreeSliceTree();
    private Page[] pages = new Page[4];
    private int pageCount;
    /** Runs held now, and their bytes; guarded by the lock. */
    private int runCount;

    private long runBytes;

    /** The longest slice that a release by the collector zeroes at once; longer ones are zeroed at hand-out. */
    static final int ZEROED_AT_RELEASE = 4096;

    /** The longest slice a thread's cache keeps; 0 when this pool caches nothing. */
    private final int cacheLimit;

    private final ThreadLocal<ThreadCache> cache = new ThreadLocal<>();
    /** Every thread's cache of this pool; replaced (copy on write) under the lock. */
    private volatile ThreadCache[] caches = new ThreadCache[0];
    /** For tests: run by a drain after it looked at which caches' owners ended, before it drops them; null otherwise. */
    static volatile Runnable afterOwnersLooked;
    /** For tests: run by a drain right after it took a cache's slots; null otherwise. */
    static volatile Runnable afterSlotsTaken;

    /** The counters of caches whose threads ended, folded in when they were dropped; guarded by the lock. */
    private final long[] endedCaches = new long[ThreadCache.STATS];

    /** The largest effective size served from runs: 0 when none is ({@code RUN_SLOTS} slots above an eighth of a page). */
    private final int runMax;
    /** Per size ({@code e / 64 - 1}): the run that serves next, or null; guarded by the lock. */
    private final Run[] current;
    /** Per size: the first of the runs, not current, that have a free slot; guarded by the lock. */
    private final Run[] partial;

    SlicingPool(PoolAllocator owner, int index, PoolSpec.Sliced spec) {
        super(owner, index);
        this.spec = spec;
        this.pageSize = Math.toIntExact(spec.pageSize());
        this.maxSlice = Math.toIntExact(spec.maxSlice());
        this.capped = spec.capped();
        this.cacheLimit =
                owner != null && owner.options().threadCaches() ? Math.min(ThreadCache.MAX_LENGTH, pageSize / 8) : 0;
        int largestRun = pageSize / 8 / RUN_SLOTS / Sizes.ALIGNMENT * Sizes.ALIGNMENT;
        this.runMax = Math.min(RUN_MAX_SLOT, Math.min(largestRun, Sizes.effective(maxSlice)));
        int classes = Math.max(0, runMax / Sizes.ALIGNMENT);
        this.current = new Run[classes];
        this.partial = new Run[classes];
    }

    @Override
    PoolSpec spec() {
        return spec;
    }

    @Override
    boolean accepts(int size) {
        return size <= maxSlice;
    }

    @Override
    boolean acceptsAsLastResort(int size) {
        return !capped && size > maxSlice && size <= pageSize && (long) (pageSize - size) * 5 < pageSize;
    }

    @Override
    boolean takeLocked(Lease lease, boolean retry) {
        int length = Sizes.effective(lease.size);
        if (length <= runMax) {
            return takeSlotLocked(lease, length);
        }
        Slice used = takeSliceLocked(length);
        if (used == null) {
            return false;
        }
        handOut(lease, used);
        return true;
    }

    /** Gives a used slice (not a slot) to a lease. */
    private static void handOut(Lease lease, Slice used) {
        lease.zeroAtHandOut = used.dirty ? used.length : 0;
        used.dirty = false;
        used.lease = lease;
        lease.slot = used;
        lease.address = used.page.block.address + used.offset;
    }

    /** Steps (1) to (3) of a reserve: a used slice of {@code length} bytes; null at the cap or when refused a page. */
    private Slice takeSliceLocked(int length) {
        Slice slice = free.firstFit(length);
        if (slice == null && reclaimLocked() > 0) {
            slice = free.firstFit(length);
        }
        if (slice == null) {
            slice = newPageLocked();
            if (slice == null) {
                return null;
            }
        }
        return use(slice, length);
    }

    /** A reserve of {@code length <= runMax} bytes: steps (a) to (e) of the runs, see the class comment. */
    private boolean takeSlotLocked(Lease lease, int length) {
        int sizeClass = length / Sizes.ALIGNMENT - 1;
        for (boolean reclaimed = false; ; reclaimed = true) {
            Run run = runWithFreeSlotLocked(sizeClass);
            if (run != null) {
                handOutSlot(lease, run);
                return true;
            }
            Slice room = free.firstFit(length * RUN_SLOTS);
            if (room != null) {
                Run fresh = new Run(length, sizeClass); // before the pool changes (see Pool#takeLocked)
                handOutSlot(lease, newRunLocked(fresh, use(room, length * RUN_SLOTS)));
                return true;
            }
            room = free.firstFit(length);
            if (room != null) {
                handOut(lease, use(room, length));
                return true;
            }
            if (reclaimed || reclaimLocked() == 0) {
                break;
            }
        }
        Run fresh = new Run(length, sizeClass);
        Slice whole = newPageLocked();
        if (whole == null) {
            return false;
        }
        handOutSlot(lease, newRunLocked(fresh, use(whole, length * RUN_SLOTS)));
        return true;
    }

    /** The current run of a size, else the first listed one, made current; null if neither. */
    private Run runWithFreeSlotLocked(int sizeClass) {
        Run run = current[sizeClass];
        if (run == null && (run = partial[sizeClass]) != null) {
            unlist(run);
            current[sizeClass] = run;
        }
        return run;
    }

    /** Gives the first free slot of the current run of its size to a lease. */
    private void handOutSlot(Lease lease, Run run) {
        int i = Long.numberOfTrailingZeros(~run.used);
        long bit = 1L << i;
        run.used |= bit;
        if (run.used == -1L) {
            current[run.sizeClass] = null; // full: on the list again when a slot comes back
        }
        lease.zeroAtHandOut = (run.unzeroed & bit) != 0 ? run.length : 0;
        run.unzeroed &= ~bit;
        run.leases[i] = lease;
        lease.slot = run;
        lease.address = run.base + (long) i * run.length;
    }

    /** Places a new run in {@code container} and makes it the current run of its size. */
    private Run newRunLocked(Run run, Slice container) {
        run.attach(container);
        runCount++;
        runBytes += container.length;
        container.dirty = false;
        container.run = run;
        current[run.sizeClass] = run;
        return run;
    }

    /** The whole free slice of a new page; null at the cap or when the JDK refuses the page. */
    private Slice newPageLocked() {
        if (capped && pageCount >= spec.pagesCap()) {
            return null;
        }
        Page page = newPage();
        return page == null ? null : page.head;
    }

    /** Takes {@code length} bytes from the front of a free slice as a used slice, zeroed up to its page's mark. */
    private Slice use(Slice slice, int length) {
        Slice used = take(slice, length);
        zeroFirstUse(used);
        used.page.used++;
        return used;
    }

    /**
     * What a pool does before it grows: every thread's cached slices back to the pool, then every
     * run with no used slot freed. Returns how many slices and runs it gave back. Caller holds the lock.
     */
    private int reclaimLocked() {
        return drainCachesCountLocked() + freeIdleRunsLocked();
    }

    /** Frees the current runs that have no used slot (listed runs never do); returns how many. */
    private int freeIdleRunsLocked() {
        int freed = 0;
        for (int c = 0; c < current.length; c++) {
            Run run = current[c];
            if (run != null && run.used == 0) {
                current[c] = null;
                freeRunLocked(run);
                freed++;
            }
        }
        return freed;
    }

    /** Gives a run's container back as a free slice. Its slots are all free. */
    private void freeRunLocked(Run run) {
        assert run.used == 0 && !run.listed : "freeing a run in use: " + run;
        Slice container = run.slice;
        runCount--;
        runBytes -= container.length;
        container.run = null;
        container.dirty = run.unzeroed != 0;
        freeSliceLocked(container);
    }

    /**
     * Makes slot {@code i} of a run free: a run whose last slot comes back is freed, unless it is the
     * current one; a full run that gets a slot back goes on its size's list. Caller holds the lock.
     */
    private void freeSlotLocked(Run run, int i) {
        assert run.leases[i] == null && (run.tokens[i] == null || !run.tokens[i].cached && run.tokens[i].lease == null)
                : "freeing a slot in use: " + i + " of " + run;
        boolean wasFull = run.used == -1L;
        run.used &= ~(1L << i);
        if (current[run.sizeClass] == run) {
            return;
        }
        if (run.used == 0) {
            if (run.listed) {
                unlist(run);
            }
            freeRunLocked(run);
        } else if (wasFull) {
            list(run);
        }
    }

    private void list(Run run) {
        Run first = partial[run.sizeClass];
        run.prev = null;
        run.next = first;
        if (first != null) {
            first.prev = run;
        }
        partial[run.sizeClass] = run;
        run.listed = true;
    }

    private void unlist(Run run) {
        if (run.prev == null) {
            partial[run.sizeClass] = run.next;
        } else {
            run.prev.next = run.next;
        }
        if (run.next != null) {
            run.next.prev = run.prev;
        }
        run.prev = null;
        run.next = null;
        run.listed = false;
    }

    /** Makes a drained slice free: a slot's token back to its run, any other slice back to its page. Caller holds the lock. */
    private void freeRoomLocked(Slice slice) {
        if (slice.run != null) {
            freeSlotLocked(slice.run, slice.run.slotOf(slice));
        } else {
            freeSliceLocked(slice);
        }
    }

    /**
     * A slice longer than {@link #ZEROED_AT_RELEASE}: its zeroing would cost the one release thread
     * more than the rest of the release, and the allocating threads zero in parallel, as
     * {@code allocateDirect} does (B1, 2 threads left to the collector: 64 KiB 18.5 to 21.1 against
     * 30.7 to 33.6 us; 4 KiB was slower so, 4.2 to 4.6 against 3.6 to 3.8 us).
     */
    @Override
    boolean zeroesAtHandOut(Lease lease) {
        return Sizes.effective(lease.size) > ZEROED_AT_RELEASE;
    }

    /**
     * Zeroes a page from its {@code zeroedTo} mark to the end of a slice being handed out that ends
     * above it: memory never handed out before, as the JDK gave it. Everything above the mark is
     * free, so the slice starts at or below it (first fit takes a free slice's front); were there a
     * gap, it would be free memory, zeroed too. A page is zeroed front to back, as far as its
     * workload reaches, and never beyond.
     */
    private static void zeroFirstUse(Slice used) {
        Page page = used.page;
        int end = used.offset + used.length;
        if (end > page.zeroedTo) {
            NativeAccess.fill(page.block.address + page.zeroedTo, end - page.zeroedTo, (byte) 0);
            page.zeroedTo = end;
        }
    }

    /** Cuts {@code length} bytes from the front of a free slice and returns them as a used slice. */
    private Slice take(Slice slice, int length) {
        assert slice.free && slice.length >= length && length % Sizes.ALIGNMENT == 0;
        if (slice.length == length) {
            free.remove(slice);
            slice.free = false;
            return slice;
        }
        Slice used = new Slice(slice.page, slice.offset, length);
        used.dirty = slice.dirty;
        Slice before = slice.prev;
        used.prev = before;
        used.next = slice;
        slice.prev = used;
        if (before == null) {
            slice.page.head = used;
        } else {
            before.next = used;
        }
        slice.offset += length;
        slice.length -= length;
        free.changed(slice);
        return used;
    }

    private Page newPage() {
        NativeAccess.Block block = NativeAccess.allocatePage(pageSize);
        if (block == null) {
            return null;
        }
        int index = 0;
        while (index < pages.length && pages[index] != null) {
            index++;
        }
        if (index == pages.length) {
            pages = Arrays.copyOf(pages, pages.length * 2);
        }
        Page page = new Page(index, block);
        Slice whole = new Slice(page, 0, pageSize);
        whole.free = true;
        page.head = whole;
        pages[index] = page;
        pageCount++;
        notePages(pageCount);
        free.insert(whole);
        return page;
    }

    @Override
    boolean listsLeases() {
        return false;
    }

    @Override
    boolean takeCached(Lease lease) {
        int length = Sizes.effective(lease.size);
        if (length > cacheLimit) {
            return false;
        }
        ThreadCache mine = cache.get();
        Slice slice = mine == null ? null : mine.pop(length);
        if (slice == null) {
            return false;
        }
        try {
            // A slot's token holds the lease it serves, not its run's array: the threads that share a run
            // would otherwise write one cache line at every request and release.
            slice.cached = false;
            slice.lease = lease;
            lease.slot = slice;
            lease.address = slice.page.block.address + slice.offset;
            lease.published();
            mine.served(lease.size);
            if (closing || retired) {
                // An install is deciding whether the pool is empty: serve through the lock instead.
                mine.unserved(lease.size);
                slice.lease = null;
                lease.slot = null;
                backToPool(slice);
                return false;
            }
            return true;
        } catch (Throwable t) {
            // With no call in between (see PoolAllocator#stoppedBy).
            if (!(t instanceof OutOfMemoryError)) {
                owner.stoppedBy = t;
            }
            throw t;
        }
    }

    /**
     * The current thread's call-site counts when the cache that last held the lease's slice is the
     * current thread's: a request served from that cache, and the release of a slice it served.
     */
    @Override
    CallSites.ThreadCounts knownCounts(Lease lease) {
        Slice slice = lease.slot instanceof Run run ? run.tokens[run.slotAt(lease.address)] : (Slice) lease.slot;
        ThreadCache holder = slice == null ? null : slice.holder;
        return holder != null && holder.owner == Thread.currentThread() ? holder.counts : null;
    }

    @Override
    boolean cacheReleased(Lease lease) {
        // A slot handed out under the lock: its lease names the run, and the run's array holds it.
        // A slot served from a cache: its lease names the slot's token, which holds it (takeCached).
        Run run = lease.slot instanceof Run r ? r : null;
        int i = run == null ? 0 : run.slotAt(lease.address);
        Slice slice = run == null ? (Slice) lease.slot : run.tokens[i];
        if ((run == null ? slice.length : run.length) > cacheLimit) {
            return false;
        }
        ThreadCache mine = slice == null ? null : slice.holder;
        if (mine == null || mine.owner != Thread.currentThread()) {
            mine = cache.get();
            if (mine == null && (mine = register()) == null) {
                return false;
            }
        }
        int slot = mine.emptySlot();
        if (slot < 0) {
            return false;
        }
        try {
            if (run == null) {
                assert !slice.free && slice.lease == lease : "caching a slice that is not this lease's: " + slice;
                slice.lease = null;
            } else {
                // Rare: once the slot's token exists, its next leases come from the cache, and name it.
                assert run.leases[i] == lease : "caching a slot that is not this lease's: " + i + " of " + run;
                if (slice == null) {
                    // The slot's token, made once by the thread that releases the slot's lease: until the
                    // slot is cached, nothing else reads or writes this element.
                    slice = new Slice(run.slice.page, run.slice.offset + i * run.length, run.length);
                    slice.run = run;
                    run.tokens[i] = slice;
                }
                run.leases[i] = null;
            }
            slice.cached = true;
            slice.holder = mine;
            mine.returned(lease.size);
            mine.put(slot, slice);
            if ((closing || retired) && mine.takeBack(slot, slice)) {
                // An install is deciding whether the pool is empty: it may have looked at this slot already.
                slice.cached = false;
                backToPool(slice);
            }
            return true;
        } catch (Throwable t) {
            // With no call in between (see PoolAllocator#stoppedBy).
            if (!(t instanceof OutOfMemoryError)) {
                owner.stoppedBy = t;
            }
            throw t;
        }
    }

    /**
     * Makes a slice that an install may have missed free under the lock; a retired pool (the install
     * went through) also gives the page back if that emptied it, since nothing else will.
     */
    private void backToPool(Slice slice) {
        if (!lockUnlessAbandoned()) {
            return; // the pools stopped: nothing is given back to them
        }
        try {
            if (owner.stoppedBy != null) {
                return;
            }
            freeRoomLocked(slice);
            if (retired) {
                releaseEmptyPagesLocked();
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

    /** The current thread's new cache, registered; null for a thread that keeps none. */
    private ThreadCache register() {
        Thread t = Thread.currentThread();
        if (cacheLimit == 0 || !Threads.isPlatform(t) || t == Releaser.thread()) {
            return null;
        }
        ThreadCache mine = new ThreadCache(t, owner.sites().ofCurrentThread());
        if (!lockUnlessAbandoned()) {
            return null; // the pools stopped
        }
        try {
            if (owner.stoppedBy != null) {
                return null;
            }
            drainCachesCountLocked(); // also drops the caches of threads that ended
            ThreadCache[] grown = Arrays.copyOf(caches, caches.length + 1);
            grown[caches.length] = mine;
            caches = grown;
        } catch (Throwable e) {
            // With no call in between (see PoolAllocator#stoppedBy).
            if (!(e instanceof OutOfMemoryError)) {
                owner.stoppedBy = e;
            }
            throw e;
        } finally {
            lock.unlock();
        }
        cache.set(mine);
        return mine;
    }

    @Override
    void drainCachesLocked() {
        drainCachesCountLocked();
    }

    /**
     * Gives every cached slice back to the free slices, and drops (folding their counters in) the
     * caches of threads that ended. Returns the slices given back. Caller holds the lock.
     */
    private int drainCachesCountLocked() {
        ThreadCache[] all = caches;
        if (all.length == 0) {
            return 0;
        }
        Slice[] taken = new Slice[ThreadCache.SLOTS];
        int drained = 0;
        // Whether each owner ended is decided once, before its slots are taken: an owner seen ended
        // puts nothing after, so its cache is dropped empty. One seen alive is kept (and folded in at
        // a later drain), whatever it puts meanwhile: looked at after the slots, an owner that put a
        // slice and ended in between had its cache dropped with the slice in it, lost to its page.
        boolean[] ended = new boolean[all.length];
        int endedCount = 0;
        for (int j = 0; j < all.length; j++) {
            ThreadCache c = all[j];
            if (!c.owner.isAlive()) {
                ended[j] = true;
                endedCount++;
            }
            int n = c.takeAll(taken, 0);
            Runnable taking = afterSlotsTaken;
            if (taking != null) {
                taking.run();
            }
            for (int i = 0; i < n; i++) {
                taken[i].cached = false;
                freeRoomLocked(taken[i]);
                taken[i] = null;
            }
            drained += n;
        }
        Runnable hook = afterOwnersLooked;
        if (hook != null) {
            hook.run();
        }
        if (endedCount > 0) {
            ThreadCache[] kept = new ThreadCache[all.length - endedCount];
            int k = 0;
            for (int j = 0; j < all.length; j++) {
                if (ended[j]) {
                    all[j].addStats(endedCaches, owner);
                } else {
                    kept[k++] = all[j];
                }
            }
            caches = kept;
        }
        return drained;
    }

    @Override
    long[] cacheStatsLocked() {
        if (cacheLimit == 0) {
            return null;
        }
        long[] sum = endedCaches.clone();
        for (ThreadCache c : caches) {
            c.addStats(sum, owner);
        }
        return sum;
    }

    @Override
    int droppedLocked(Lease[] found, int n) {
        for (Page page : pages) {
            for (Slice s = page == null ? null : page.head; s != null && n < found.length; s = s.next) {
                if (s.run != null) {
                    for (int k = 0; k < RUN_SLOTS; k++) {
                        Lease l = s.run.leaseAt(k);
                        if (l != null) {
                            n = addIfDropped(l, found, n);
                        }
                    }
                } else if (!s.free && !s.cached && s.lease != null) {
                    n = addIfDropped(s.lease, found, n);
                }
            }
        }
        return n;
    }

    @Override
    long[] liveLeasesLocked() {
        long n = 0;
        long bytes = 0;
        for (Page page : pages) {
            for (Slice s = page == null ? null : page.head; s != null; s = s.next) {
                if (s.run != null) {
                    for (int k = 0; k < RUN_SLOTS; k++) {
                        Lease l = s.run.leaseAt(k);
                        if (l != null) {
                            if (!l.isLive() || l.pool != this) {
                                throw new AssertionError(
                                        "pool " + index + " has a slot without its live lease: " + s.run);
                            }
                            n++;
                            bytes += l.size;
                        }
                    }
                } else if (!s.free && !s.cached) {
                    if (s.lease == null || !s.lease.isLive() || s.lease.pool != this) {
                        throw new AssertionError("pool " + index + " has a used slice without its live lease: " + s);
                    }
                    n++;
                    bytes += s.lease.size;
                }
            }
        }
        return new long[] {n, bytes};
    }

    @Override
    void giveBackLocked(Lease lease) {
        if (lease.slot instanceof Run run) {
            int i = run.slotAt(lease.address);
            assert run.leases[i] == lease : "releasing a slot that is not this lease's: " + i + " of " + run;
            run.leases[i] = null;
            if (lease.leftDirty) {
                // A free slot is zero: its run hands it out without looking. Slots are at most
                // RUN_MAX_SLOT, which the collector's releases zero at once, so this is not reached.
                NativeAccess.fill(lease.address, run.length, (byte) 0);
            }
            freeSlotLocked(run, i);
            return;
        }
        Slice slice = (Slice) lease.slot;
        assert !slice.free && slice.lease == lease : "releasing a slice that is not this lease's: " + slice;
        slice.lease = null;
        if (slice.run != null) {
            // A slot's token, that served the lease from a thread's cache.
            if (lease.leftDirty) {
                NativeAccess.fill(lease.address, slice.length, (byte) 0); // as above: not reached
            }
            freeSlotLocked(slice.run, slice.run.slotOf(slice));
            return;
        }
        slice.dirty = lease.leftDirty;
        freeSliceLocked(slice);
    }

    /** Makes a used slice of a page free, merging it with free neighbours. Caller holds the lock. */
    private void freeSliceLocked(Slice slice) {
        assert slice.run == null : "freeing a slot or a run's container as a slice: " + slice;
        slice.free = true;
        slice.page.used--;
        Slice before = slice.prev;
        Slice after = slice.next;
        boolean mergeBefore = before != null && before.free;
        boolean mergeAfter = after != null && after.free;
        if (mergeBefore && mergeAfter) {
            free.remove(after);
            before.dirty |= slice.dirty | after.dirty;
            before.length += slice.length + after.length;
            unlink(slice);
            unlink(after);
            free.changed(before);
        } else if (mergeBefore) {
            before.dirty |= slice.dirty;
            before.length += slice.length;
            unlink(slice);
            free.changed(before);
        } else if (mergeAfter) {
            after.dirty |= slice.dirty;
            after.offset = slice.offset;
            after.length += slice.length;
            unlink(slice);
            free.changed(after);
        } else {
            free.insert(slice);
        }
    }

    private static void unlink(Slice s) {
        if (s.prev == null) {
            s.page.head = s.next;
        } else {
            s.prev.next = s.next;
        }
        if (s.next != null) {
            s.next.prev = s.prev;
        }
        s.prev = null;
        s.next = null;
    }

    @Override
    int releaseEmptyPagesLocked() {
        freeIdleRunsLocked();
        return releaseEmptyLocked(null);
    }

    /** Gives back the empty pages, of {@code only} when not null; returns how many. */
    private int releaseEmptyLocked(Set<Object> only) {
        int released = 0;
        for (int i = 0; i < pages.length; i++) {
            Page page = pages[i];
            if (page != null && page.used == 0 && (only == null || only.contains(page))) {
                assert page.head.free && page.head.length == pageSize && page.head.next == null;
                free.remove(page.head);
                NativeAccess.free(page.block);
                pages[i] = null;
                pageCount--;
                released++;
            }
        }
        return released;
    }

    @Override
    List<Object> emptyPagesLocked() {
        List<Object> empty = new ArrayList<>();
        for (Page page : pages) {
            if (page != null && page.used == 0) {
                empty.add(page);
            }
        }
        return empty;
    }

    @Override
    void freeIdleLocked() {
        freeIdleRunsLocked();
    }

    @Override
    int releaseStillEmptyLocked(Set<Object> earlier) {
        return releaseEmptyLocked(earlier);
    }

    @Override
    long pagesLocked() {
        return pageCount;
    }

    @Override
    long bytesReservedLocked() {
        return (long) pageCount * pageSize;
    }

    @Override
    long allocsPeakLocked() {
        return -1; // thread caches serve without the lock
    }

    @Override
    long runsLocked() {
        return runCount;
    }

    @Override
    long bytesInRunsLocked() {
        return runBytes;
    }

    /** The page index and offset of the used slice at {@code address}, for tests; null if none. */
    PoolAllocator.Location locate(long address) {
        Locks.acquire(lock);
        try {
            for (Page page : pages) {
                if (page != null && address >= page.block.address && address < page.block.address + pageSize) {
                    return new PoolAllocator.Location(index, page.index, address - page.block.address);
                }
            }
            return null;
        } finally {
            lock.unlock();
        }
    }

    @Override
    void checkInvariantsLocked() {
        int freeSlices = 0;
        int cachedSlices = 0;
        int held = 0;
        int runs = 0;
        long inRuns = 0;
        for (int i = 0; i < pages.length; i++) {
            Page page = pages[i];
            if (page == null) {
                continue;
            }
            held++;
            if (page.index != i) {
                throw new AssertionError("page " + i + " thinks it is " + page.index);
            }
            int expected = 0;
            int used = 0;
            Slice prev = null;
            for (Slice s = page.head; s != null; s = s.next) {
                if (s.prev != prev) {
                    throw new AssertionError("broken back link at " + s);
                }
                if (s.offset != expected || s.length <= 0 || s.length % Sizes.ALIGNMENT != 0) {
                    throw new AssertionError(
                            "slices do not tile page " + i + " at " + s + " (expected offset " + expected + ")");
                }
                if (s.free) {
                    freeSlices++;
                    if (prev != null && prev.free) {
                        throw new AssertionError("neighbouring free slices not merged: " + prev + ", " + s);
                    }
                    if (s.lease != null) {
                        throw new AssertionError("free slice holds a lease: " + s);
                    }
                } else if (s.offset + s.length > page.zeroedTo) {
                    throw new AssertionError("slice above its page's zeroed mark " + page.zeroedTo + ": " + s);
                } else if (s.dirty) {
                    throw new AssertionError("used or cached slice marked dirty: " + s);
                } else if (s.run != null) {
                    used++;
                    runs++;
                    inRuns += s.length;
                    cachedSlices += checkRunLocked(s);
                } else if (s.cached) {
                    used++;
                    cachedSlices++;
                    if (s.lease != null || s.length > cacheLimit) {
                        throw new AssertionError("cached slice holds a lease or is too long to cache: " + s);
                    }
                } else {
                    used++;
                    if (s.lease == null || !s.lease.isLive() || s.lease.slot != s) {
                        throw new AssertionError("used slice without its live lease: " + s);
                    }
                    if (Sizes.effective(s.lease.size) != s.length) {
                        throw new AssertionError("used slice longer than its effective size: " + s);
                    }
                }
                expected += s.length;
                prev = s;
            }
            if (expected != pageSize) {
                throw new AssertionError("slices of page " + i + " cover " + expected + " of " + pageSize + " bytes");
            }
            if (page.zeroedTo < 0 || page.zeroedTo > pageSize || page.zeroedTo % Sizes.ALIGNMENT != 0) {
                throw new AssertionError("page " + i + " has a zeroed mark of " + page.zeroedTo);
            }
            if (used != page.used) {
                throw new AssertionError("page " + i + " counts " + page.used + " used slices, has " + used);
            }
        }
        if (held != pageCount) {
            throw new AssertionError("pool counts " + pageCount + " pages, holds " + held);
        }
        if (runs != runCount || inRuns != runBytes) {
            throw new AssertionError(
                    "pool counts " + runCount + " runs of " + runBytes + " B, holds " + runs + " of " + inRuns + " B");
        }
        if (free.check() != freeSlices) {
            throw new AssertionError("free tree and pages disagree: " + free.size() + " vs " + freeSlices);
        }
        int inCaches = 0;
        for (ThreadCache c : caches) {
            inCaches += c.size();
        }
        if (inCaches != cachedSlices) {
            throw new AssertionError("pages hold " + cachedSlices + " cached slices, the caches " + inCaches);
        }
        checkRunListsLocked();
    }

    /** Checks a run against its container and its slots; returns how many of its slots are cached. */
    private int checkRunLocked(Slice container) {
        Run run = container.run;
        if (run.slice != container || container.lease != null || container.cached || container.dirty) {
            throw new AssertionError(
                    "a run's container is not its own, or holds a lease, is cached or dirty: " + container);
        }
        if (run.length > runMax
                || container.length != run.length * RUN_SLOTS
                || run.sizeClass != run.length / Sizes.ALIGNMENT - 1) {
            throw new AssertionError("run of the wrong shape: " + run);
        }
        if ((run.unzeroed & run.used) != 0) {
            throw new AssertionError("a used slot is still marked never handed out: " + run);
        }
        int cached = 0;
        for (int i = 0; i < RUN_SLOTS; i++) {
            Slice token = run.tokens[i];
            Lease lease = run.leases[i];
            boolean used = (run.used & (1L << i)) != 0;
            if (token != null
                    && (token.run != run
                            || token.page != container.page
                            || token.offset != container.offset + i * run.length
                            || token.length != run.length
                            || token.free
                            || token.dirty
                            || token.prev != null
                            || token.next != null)) {
                throw new AssertionError("the token of slot " + i + " does not match its run: " + token + " in " + run);
            }
            boolean isCached = token != null && token.cached;
            Lease viaToken = token == null ? null : token.lease;
            if (lease != null && viaToken != null) {
                throw new AssertionError("slot " + i + " held by its run and by its token: " + run);
            }
            Object named = lease != null ? run : token;
            if (lease == null) {
                lease = viaToken;
            }
            if (!used) {
                if (lease != null || isCached) {
                    throw new AssertionError("free slot " + i + " holds a lease or is cached: " + run);
                }
            } else if (isCached) {
                cached++;
                if (lease != null) {
                    throw new AssertionError("cached slot " + i + " holds a lease: " + run);
                }
            } else if (lease == null
                    || !lease.isLive()
                    || lease.slot != named
                    || lease.address != run.base + (long) i * run.length
                    || Sizes.effective(lease.size) != run.length) {
                throw new AssertionError("used slot " + i + " without its live lease: " + run);
            }
        }
        boolean isCurrent = current[run.sizeClass] == run;
        if (run.used == -1L ? isCurrent || run.listed : isCurrent == run.listed) {
            throw new AssertionError("run neither current, listed with a free slot, nor full: " + run);
        }
        if (run.listed && run.used == 0) {
            throw new AssertionError("an empty run stays listed instead of freed: " + run);
        }
        return cached;
    }

    /** Checks that each size's list holds runs of that size, linked both ways, each listed once. */
    private void checkRunListsLocked() {
        for (int c = 0; c < partial.length; c++) {
            Run prev = null;
            for (Run r = partial[c]; r != null; r = r.next) {
                if (!r.listed || r.prev != prev || r.sizeClass != c || r.slice.run != r || r.slice.free) {
                    throw new AssertionError("list of runs of size " + (c + 1) * Sizes.ALIGNMENT + " broken at " + r);
                }
                prev = r;
            }
            Run now = current[c];
            if (now != null && (now.listed || now.slice.run != now || now.sizeClass != c)) {
                throw new AssertionError("current run of size " + (c + 1) * Sizes.ALIGNMENT + " broken: " + now);
            }
        }
    }
}
