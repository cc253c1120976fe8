package dev.pools.memory;

import java.util.Arrays;

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
 * <p><b>Free</b>: the slice merges with a free neighbour on either side, or becomes a free slice
 * of its own. Empty pages stay until {@link #releaseEmptyPagesLocked()} (an explicit cleanup).
 *
 * <p><b>Thread caches</b> ({@link ThreadCache}): a slice of at most {@link #cacheLimit} bytes that a
 * platform thread releases explicitly stays in that thread's cache, counted free, and serves its
 * next request of the same effective size without the lock. Before the pool grows, and so before
 * a capped pool refuses, it takes every cached slice back (step 1 is retried after it), so caches
 * never make a pool hold more pages, spill, fall back or refuse. A single thread's placement stays
 * deterministic. No cache runs while an allocation trace is written.
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

    private final PoolSpec.Sliced spec;
    private final int pageSize;
    private final int maxSlice;
    private final boolean capped;
    private final FreeSliceTree free = new FreeSliceTree();
    private Page[] pages = new Page[4];
    private int pageCount;

    /** The longest slice that a release by the collector zeroes at once; longer ones are zeroed at hand-out. */
    static final int ZEROED_AT_RELEASE = 4096;

    /** The longest slice a thread's cache keeps; 0 when this pool caches nothing. */
    private final int cacheLimit;

    private final ThreadLocal<ThreadCache> cache = new ThreadLocal<>();
    /** Every thread's cache of this pool; replaced (copy on write) under the lock. */
    private volatile ThreadCache[] caches = new ThreadCache[0];
    /** For tests: run by a drain after it looked at which caches' owners ended, before it drops them; null otherwise. */
    static volatile Runnable afterOwnersLooked;

    /** The counters of caches whose threads ended, folded in when they were dropped; guarded by the lock. */
    private final long[] endedCaches = new long[ThreadCache.STATS];

    SlicingPool(PoolAllocator owner, int index, PoolSpec.Sliced spec) {
        super(owner, index);
        this.spec = spec;
        this.pageSize = Math.toIntExact(spec.pageSize());
        this.maxSlice = Math.toIntExact(spec.maxSlice());
        this.capped = spec.capped();
        this.cacheLimit =
                owner != null && owner.options().trace() == null ? Math.min(ThreadCache.MAX_LENGTH, pageSize / 8) : 0;
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
        Slice slice = free.firstFit(length);
        if (slice == null && drainCachesCountLocked() > 0) {
            slice = free.firstFit(length);
        }
        if (slice == null) {
            if (capped && pageCount >= spec.pagesCap()) {
                return false;
            }
            Page page = newPage();
            if (page == null) {
                return false;
            }
            slice = page.head;
        }
        Slice used = take(slice, length);
        zeroFirstUse(used);
        lease.zeroAtHandOut = used.dirty ? used.length : 0;
        used.dirty = false;
        used.page.used++;
        used.lease = lease;
        lease.slot = used;
        lease.address = used.page.block.address + used.offset;
        return true;
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
    }

    /**
     * The current thread's call-site counts when the cache that last held the lease's slice is the
     * current thread's: a request served from that cache, and the release of a slice it served.
     */
    @Override
    CallSites.ThreadCounts knownCounts(Lease lease) {
        ThreadCache holder = ((Slice) lease.slot).holder;
        return holder != null && holder.owner == Thread.currentThread() ? holder.counts : null;
    }

    @Override
    boolean cacheReleased(Lease lease) {
        Slice slice = (Slice) lease.slot;
        if (slice.length > cacheLimit) {
            return false;
        }
        ThreadCache mine = slice.holder;
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
        assert !slice.free && slice.lease == lease : "caching a slice that is not this lease's: " + slice;
        slice.lease = null;
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
    }

    /**
     * Makes a slice that an install may have missed free under the lock; a retired pool (the install
     * went through) also gives the page back if that emptied it, since nothing else will.
     */
    private void backToPool(Slice slice) {
        lock.lock();
        try {
            freeSliceLocked(slice);
            if (retired) {
                releaseEmptyPagesLocked();
            }
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
        lock.lock();
        try {
            drainCachesCountLocked(); // also drops the caches of threads that ended
            ThreadCache[] grown = Arrays.copyOf(caches, caches.length + 1);
            grown[caches.length] = mine;
            caches = grown;
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
        // Whether each owner ended is decided once: a thread may end while this runs, and one seen
        // alive here is kept (and folded in at a later drain), never dropped without its counters.
        boolean[] ended = new boolean[all.length];
        int endedCount = 0;
        for (int j = 0; j < all.length; j++) {
            ThreadCache c = all[j];
            int n = c.takeAll(taken, 0);
            for (int i = 0; i < n; i++) {
                taken[i].cached = false;
                freeSliceLocked(taken[i]);
                taken[i] = null;
            }
            drained += n;
            if (!c.owner.isAlive()) {
                ended[j] = true;
                endedCount++;
            }
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
                    all[j].addStats(endedCaches);
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
            c.addStats(sum);
        }
        return sum;
    }

    @Override
    long[] liveLeasesLocked() {
        long n = 0;
        long bytes = 0;
        for (Page page : pages) {
            for (Slice s = page == null ? null : page.head; s != null; s = s.next) {
                if (!s.free && !s.cached) {
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
        Slice slice = (Slice) lease.slot;
        assert !slice.free && slice.lease == lease : "releasing a slice that is not this lease's: " + slice;
        slice.lease = null;
        slice.dirty = lease.leftDirty;
        freeSliceLocked(slice);
    }

    /** Makes a used slice free, merging it with free neighbours. Caller holds the lock. */
    private void freeSliceLocked(Slice slice) {
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
        int released = 0;
        for (int i = 0; i < pages.length; i++) {
            Page page = pages[i];
            if (page != null && page.used == 0) {
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
    long pagesLocked() {
        return pageCount;
    }

    @Override
    long bytesReservedLocked() {
        return (long) pageCount * pageSize;
    }

    /** The page index and offset of the used slice at {@code address}, for tests; null if none. */
    PoolAllocator.Location locate(long address) {
        lock.lock();
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
    }
}
