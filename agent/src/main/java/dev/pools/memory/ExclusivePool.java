package dev.pools.memory;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Set;

/**
 * An exclusive pool (docs/POOLS.md §4): every allocation gets a page of its own.
 *
 * <pre>
 *   pages, in page order:  [A 3 MiB used] [B 2 MiB free, freeCount 1] [C 4 MiB free, freeCount 4]
 *   reserve 1.5 MiB:       B and C fit; B has the lower freeCount -&gt; B (freeCount 1 -&gt; 0)
 * </pre>
 *
 * <b>Terms.</b> {@code avg} is a running average of requested sizes, starting at
 * {@code maxAlloc / 2} (the spec's {@code startAverage}; 0 in the host preset), updated on every request as {@code avg = 0.99 avg + 0.01 size}.
 * {@code freeCount} measures how long a free page has gone unused.
 *
 * <p><b>Reserve</b> {@code s}: (1) update {@code avg}; (2) among free pages of at least
 * {@code roundUp(s)} bytes take the one with the lowest {@code freeCount}, the first in page
 * order on ties, and lower its {@code freeCount} by one (not below 0); (3) otherwise make a new
 * page of {@code roundUp(max(avg, s))} bytes with {@code freeCount} 4; (4) every
 * {@code deallocPeriod / 5} reservations, raise the {@code freeCount} of every free page by one
 * and release the pages that reach 5.
 *
 * <p><b>Invariants</b>: {@link #freePages} holds exactly the free pages, in page order; a used
 * page backs exactly one live lease; free memory is zero (except under poisoning).
 */
final class ExclusivePool extends Pool {

    static final int NEW_PAGE_FREE_COUNT = 4;
    static final int RELEASE_AT_FREE_COUNT = 5;

    /** One page: its memory and how long it has gone unused. */
    static final class Page {
        final long order;
        final NativeAccess.Block block;
        int freeCount = NEW_PAGE_FREE_COUNT;
        Lease lease;

        Page(long order, NativeAccess.Block block) {
            this.order = order;
            this.block = block;
        }
    }

    private final PoolSpec.Exclusive spec;
    private final int maxAlloc;
    private final long agingPeriod;
    private final List<Page> freePages = new ArrayList<>();
    private double average;
    private long reservations;
    private long nextOrder;
    private long pageCount;
    private long bytesHeld;

    ExclusivePool(PoolAllocator owner, int index, PoolSpec.Exclusive spec) {
        super(owner, index);
        this.spec = spec;
        this.maxAlloc = Math.toIntExact(spec.maxAlloc());
        this.agingPeriod = Math.max(1, spec.deallocPeriod() / 5);
        this.average = spec.startAverage();
    }

    @Override
    PoolSpec spec() {
        return spec;
    }

    @Override
    boolean accepts(int size) {
        return size <= maxAlloc;
    }

    @Override
    boolean takeLocked(Lease lease, boolean retry) {
        int size = lease.size;
        int length = Sizes.effective(size);
        if (!retry) {
            // Once per request: a request retried after releases or a collection is the same request.
            average = 0.99 * average + 0.01 * size;
        }
        Page page = reuse(length);
        if (page == null) {
            long want = Sizes.roundUp((long) Math.ceil(Math.max(average, size)));
            NativeAccess.Block block = NativeAccess.allocateBlock((int) Math.min(want, Sizes.MAX_PAGE));
            if (block == null) {
                return false;
            }
            page = new Page(nextOrder++, block);
            pageCount++;
            bytesHeld += block.size;
            notePages(pageCount);
        }
        page.lease = lease;
        lease.slot = page;
        lease.address = page.block.address;
        if (++reservations % agingPeriod == 0) {
            age();
        }
        return true;
    }

    private Page reuse(int length) {
        int best = -1;
        for (int i = 0; i < freePages.size(); i++) {
            Page p = freePages.get(i);
            if (p.block.size >= length && (best < 0 || p.freeCount < freePages.get(best).freeCount)) {
                best = i;
            }
        }
        if (best < 0) {
            return null;
        }
        Page page = freePages.remove(best);
        page.freeCount = Math.max(0, page.freeCount - 1);
        return page;
    }

    private void age() {
        for (int i = freePages.size() - 1; i >= 0; i--) {
            Page p = freePages.get(i);
            if (++p.freeCount >= RELEASE_AT_FREE_COUNT) {
                freePages.remove(i);
                releasePage(p);
            }
        }
    }

    private void releasePage(Page p) {
        NativeAccess.free(p.block);
        pageCount--;
        bytesHeld -= p.block.size;
    }

    @Override
    void giveBackLocked(Lease lease) {
        Page page = (Page) lease.slot;
        assert page.lease == lease : "releasing a page that is not this lease's";
        page.lease = null;
        int at = freePages.size();
        while (at > 0 && freePages.get(at - 1).order > page.order) {
            at--;
        }
        freePages.add(at, page);
    }

    @Override
    int releaseEmptyPagesLocked() {
        int released = freePages.size();
        for (Page p : freePages) {
            releasePage(p);
        }
        freePages.clear();
        return released;
    }

    @Override
    List<Object> emptyPagesLocked() {
        return new ArrayList<>(freePages);
    }

    @Override
    int releaseStillEmptyLocked(Set<Object> earlier) {
        int released = 0;
        for (Iterator<Page> i = freePages.iterator(); i.hasNext(); ) {
            Page p = i.next();
            if (earlier.contains(p)) {
                i.remove();
                releasePage(p);
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
        return bytesHeld;
    }

    @Override
    void checkInvariantsLocked() {
        long previous = -1;
        for (Page p : freePages) {
            if (p.lease != null) {
                throw new AssertionError("free page holds a lease");
            }
            if (p.order <= previous) {
                throw new AssertionError("free pages out of page order");
            }
            if (p.freeCount < 0 || p.freeCount >= RELEASE_AT_FREE_COUNT) {
                throw new AssertionError("free page with freeCount " + p.freeCount);
            }
            previous = p.order;
        }
        if (pageCount - freePages.size() != numberAllocs) {
            throw new AssertionError(
                    pageCount + " pages, " + freePages.size() + " free, but " + numberAllocs + " allocations");
        }
    }

    /** The running average of requested sizes, for tests. */
    double average() {
        Locks.acquire(lock);
        try {
            return average;
        } finally {
            lock.unlock();
        }
    }

    /** The free-count of each free page in page order, for tests. */
    int[] freeCounts() {
        Locks.acquire(lock);
        try {
            return freePages.stream().mapToInt(p -> p.freeCount).toArray();
        } finally {
            lock.unlock();
        }
    }
}
