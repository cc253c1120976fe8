package dev.pools.memory;

import dev.pools.api.InstallMemoryPoolsException;
import dev.pools.log.Log;
import java.lang.ref.Reference;
import java.nio.Buffer;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;

/**
 * The JVM's pooled off-heap memory: serves allocations from the installed layout's pools, takes
 * them back, and swaps layouts.
 *
 * <p><b>Allocate</b> {@code s} bytes: (1) route through the installed {@link PoolSet}; (2) if no
 * pool has room (docs/POOLS.md §2.4), release what is already queued and retry; then collect garbage ({@link HeapKeepingCollection}: the heap keeps its size) (at
 * most once per {@link #COLLECT_INTERVAL_NANOS} while collections give nothing back, so that pools
 * full of live buffers do not turn every request into a collection), wait until the collector has queued every
 * unreachable buffer, release those and retry; then give empty pages back and retry once more; (3) if still
 * nothing: {@code fallback} hands the request to {@link ByteBuffer#allocateDirect} and counts it,
 * {@code fail} throws {@link OutOfMemoryError} naming the size and every pool's state. The buffer
 * handed out is a direct buffer of exactly {@code s} bytes at a 64-byte aligned address, position
 * 0, big-endian, zero-filled.
 *
 * <p><b>Release</b>: a lease is released once, either explicitly ({@link #release(Buffer)}) or
 * when its buffer and every view of it are unreachable (the reference queue, drained by the
 * {@code pools-release} daemon thread and by allocations that find no room). The releaser zeroes
 * the memory (or poisons it), so allocations never zero on the allocating thread unless poisoning
 * is on. A second release of the same buffer is counted and ignored.
 *
 * <p><b>Install</b> replaces the layout only when the pools hold nothing live (docs/POOLS.md §8).
 */
public final class PoolAllocator {

    /** Byte written over released memory when poisoning is on. */
    public static final byte POISON = (byte) 0xDB;

    /**
     * Under {@code on_exhausted: fallback}, garbage is collected for an exhausted request at most
     * this often while collections give nothing back, so that full pools of live buffers do not
     * turn every fallback into a collection. Under {@code fail} every refusal collects first.
     */
    static final long COLLECT_INTERVAL_NANOS = 100_000_000L;

    /**
     * How the allocator treats exhaustion and released memory.
     *
     * @param trace where every allocation and release is written, or null
     * @param threadCaches whether threads cache the slices they release (off only in tests of what
     *     the pools do without them)
     */
    public record Options(
            boolean poisonOnFree, boolean failWhenExhausted, AllocationTrace trace, boolean threadCaches) {
        public static final Options DEFAULT = new Options(false, false);

        public Options(boolean poisonOnFree, boolean failWhenExhausted) {
            this(poisonOnFree, failWhenExhausted, null);
        }

        public Options(boolean poisonOnFree, boolean failWhenExhausted, AllocationTrace trace) {
            this(poisonOnFree, failWhenExhausted, trace, true);
        }
    }

    private final Options options;
    private final AllocationListener listener;
    private final CallSites sites;
    private volatile PoolSet current;
    private volatile boolean shutdown;

    /**
     * The error that came out of the pools in the middle of a change, or null while none has: a
     * {@code StackOverflowError} of a request made at the end of its thread's stack (a host that
     * recurses deep and catches the error), or a defect. The change may be half made (a free slice
     * split with no lease to own it, a tree with a node missing), so from then on nothing is taken
     * from the pools or given back to them, whatever the JVM does next: the memory they hold stays
     * reserved until it ends, and the JDK serves every later request, counted as a fallback (said
     * once on stderr, and as the reason of each). Written with no call in between, in the handler
     * of the frame that holds the pool's lock, before the lock is let go (a call there could
     * overflow the stack again), so that no other thread takes the lock and finds the half-made
     * change. A full Java heap is not such an error: the pools allocate before they change. Or a lock
     * of the pools that its holder left without letting go of it, which the JVM may do at a full heap
     * (see {@link OwnedLock}): written by the waiter that finds it so.
     */
    volatile Throwable stoppedBy;

    private volatile long lastCollect = System.nanoTime() - COLLECT_INTERVAL_NANOS;
    /** {@link NativeAccess#pageRefusals()} when the exhausted path last gave empty pages back. */
    private volatile long emptiedAtRefusals;
    /** Pages and blocks given back to the JDK since start, however. */
    private final AtomicLong pagesGivenBack = new AtomicLong();

    /** Whether the last collection for an exhausted request gave memory back: if so, the next may come at once. */
    private volatile boolean lastCollectHelped;

    private final LongAdder fallbackAllocs = new LongAdder();
    private final LongAdder fallbackBytes = new LongAdder();
    /**
     * The most direct memory outside the pools' pages, by the JDK's count, right after a fallback: the
     * peaks the fallbacks make, which the recording's samples miss between two batches; -1 before any.
     */
    private final AtomicLong outsideAtFallbacks = new AtomicLong(-1);
    /** Requests refused to the host (an {@code OutOfMemoryError}), since start: {@link #failedAllocs}. */
    private final LongAdder failedAllocs = new LongAdder();

    private final LongAdder doubleReleases = new LongAdder();
    private final LongAdder collectorReleases = new LongAdder();
    private final LongAdder collections = new LongAdder();
    private final LongAdder collectionNanos = new LongAdder();
    /** Held while the exhausted path collects: requests that run out together share one collection. */
    private final OwnedLock collecting = new OwnedLock(this::stopBy, PoolAllocator.class, Locks.class, OwnedLock.class);
    /** Collections the exhausted path has begun; written under {@link #collecting}. */
    private volatile long collectionsBegun;
    /** Runs where a request that found no room is about to collect; for tests, null otherwise. */
    Runnable beforeCollecting;

    /**
     * The JDK internals are resolved at the first allocation, not here, to keep the agent's start-up
     * short: check {@link #unavailableBecause()} first where a clear refusal matters.
     */
    public PoolAllocator(List<PoolSpec> layout, Options options, AllocationListener listener, CallSites sites) {
        this.options = options;
        this.listener = listener;
        this.sites = sites;
        this.current = new PoolSet(this, layout);
        Releaser.start();
        Releaser.watch(this);
    }

    public PoolAllocator(List<PoolSpec> layout) {
        this(layout, Options.DEFAULT, AllocationListener.NONE, new CallSites());
    }

    /** How many collections the pools' release thread has seen since the agent started (young ones too). */
    public static long collectionsSeen() {
        return Releaser.collectionsSeen();
    }

    /** Whether the JDK internals the pools need are in reach; null if so, otherwise why not. */
    public static Throwable unavailableBecause() {
        try {
            return NativeAccess.failure();
        } catch (LinkageError e) {
            // A full heap (the host's, at the agent's start) interrupted the class's initialisation,
            // which the JVM does not try again: out of reach for the run.
            return e;
        }
    }

    public CallSites sites() {
        return sites;
    }

    public Options options() {
        return options;
    }

    /**
     * A direct buffer of exactly {@code size} bytes, as {@link ByteBuffer#allocateDirect} makes one.
     * A size no pool page can hold ({@code size > Sizes.MAX_PAGE}), or that no pool of the layout
     * takes, goes to the exhausted path at once: no release or collection can make a pool take it.
     */
    public ByteBuffer allocate(int size, int site) {
        if (size <= 0) {
            if (size == 0) {
                // A request all the same: its site counts it (with no bytes, never live), as the JDK's
                // allocateDirect(0) is one of the host's calls.
                sites.served(site, 0);
                return NativeAccess.emptyBuffer();
            }
            return ByteBuffer.allocateDirect(size);
        }
        if (stoppedBy != null) {
            return afterStop(size, site);
        }
        NativeAccess.requireAvailable();
        boolean fits = size <= Sizes.MAX_PAGE && current.takes(size);
        Anchor anchor = fits ? reserve(size, site, false, false) : null;
        if (anchor != null) {
            return handOut(anchor, size, site);
        }
        Outrun outrun = new Outrun();
        if (fits) {
            anchor = reserveAfterReleasing(size, site, false, outrun);
        }
        if (anchor == null) {
            return stoppedBy != null ? afterStop(size, site) : exhausted(size, site, fits, outrun);
        }
        return handOut(anchor, size, site);
    }

    /** The error that stopped the pools ({@link #stoppedBy}), or null while they run. */
    public Throwable stoppedBy() {
        return stoppedBy;
    }

    /** What a refusal says of every request the JDK served since the pools stopped, before the error. */
    public static final String STOPPED = "the pools stopped after an error inside them: ";

    /** {@link #STOPPED} and the error that stopped the pools, or null while they run. */
    public String stopReason() {
        Throwable cause = stoppedBy;
        return cause == null ? null : STOPPED + cause;
    }

    /** A request once the pools stopped ({@link #stoppedBy}): the JDK's, counted as a fallback. */
    private ByteBuffer afterStop(int size, int site) {
        String reason = stopReason();
        Log.once(
                "stopped",
                reason
                        + " (a request at the end of its thread's stack, or a lock left held at a full heap?) came out"
                        + " of them in the middle of a change;"
                        + " what they hold stays reserved until the JVM ends, and the JDK serves every request from"
                        + " now on, counted as a fallback");
        ByteBuffer fallback = ByteBuffer.allocateDirect(size);
        fellBack(fallback, size, site, reason);
        return fallback;
    }

    /** Counts a request the JDK served instead of the pools with {@code fallback}, and records why. */
    private void fellBack(ByteBuffer fallback, int size, int site, String reason) {
        refused(size, site, reason, true);
        fallbackAllocs.increment();
        fallbackBytes.add(size);
        sites.fellBack(site, size);
        long outside = NativeAccess.directOutsidePagesNow();
        long peak;
        while (outside > (peak = outsideAtFallbacks.get()) && !outsideAtFallbacks.compareAndSet(peak, outside)) {
            Thread.onSpinWait();
        }
        Reference.reachabilityFence(fallback);
        if (options.trace != null) {
            options.trace.fellBack(size, site);
        }
    }

    /** The buffer of a reserved lease, counted at its call site. */
    private ByteBuffer handOut(Anchor anchor, int size, int site) {
        Lease lease = anchor.lease;
        // Counted before the buffer is made: should that fail, the collector's release counts it back.
        sites.served(site, size, lease.pool.knownCounts(lease));
        if (options.poisonOnFree) {
            NativeAccess.fill(lease.address, size, (byte) 0);
        }
        // No buffer made (a full heap, the end of the stack): the anchor is unreachable once this
        // throws, so the collector queues the lease and the release thread gives the room back, on a
        // stack of its own. Given back here, at the depth of a call that may just have overflowed,
        // the release could stop between its claim and the pool's lock, and the room was lost for good
        // (a review: 4 slices of a capped pool lost, which then refused a host that held nothing).
        ByteBuffer buffer = NativeAccess.newBuffer(lease.address, size, anchor);
        MallocThresholds.served(size);
        return buffer;
    }

    private Anchor reserve(int size, int site, boolean retry, boolean spill) {
        while (stoppedBy == null) {
            PoolSet set = current;
            Anchor anchor = set.reserve(size, site, retry, spill);
            if (anchor != null || !set.retired) {
                return anchor;
            }
        }
        return null;
    }

    /**
     * The exhausted path, before any spill, fallback or refusal: (1) release what a collection
     * already found, queued ({@link Releaser#releaseQueued}), then in flight
     * ({@link NativeAccess#processPendingReferences()}, {@link Releaser#drainUntil}), a batch at a
     * time, retrying in the first
     * pool after each batch, until the request fits or all of it is back; (2) let the request spill
     * to later pools; (3) collect garbage and release what it found as it reaches the queue
     * ({@link Releaser#drainAfterCollection}), retrying in every pool after each batch, until the
     * request fits or the collector has queued every unreachable buffer and all of them are back
     * (requests that run out while a collection is under way wait for it and share it, instead of
     * each making one more); (4) give empty pages back,
     * retry; (5) under {@code fail}, while the collection gave the pools that take the size back at
     * least as many bytes as asked for, go again from (3), up
     * to {@link #COLLECTION_ROUNDS} collections ({@link #anotherRound}). Nothing spills, falls back or is refused while a lease a collection found is still
     * queued, and a request that fits after the first batch does not wait for the rest (one
     * collection can find millions of dropped buffers; the release thread takes them).
     */
    private Anchor reserveAfterReleasing(int size, int site, boolean mustCollect, Outrun outrun) {
        long begunBefore = collectionsBegun;
        long releasedBefore = current.collectorFreedBytesTaking(size);
        Anchor anchor = Releaser.releaseQueued(() -> reserve(size, site, true, false));
        if (anchor == null) {
            // What the last collection found unreachable may still be on its way to the queue.
            NativeAccess.processPendingReferences();
            anchor = Releaser.drainUntil(() -> reserve(size, site, true, false));
        }
        if (anchor == null) {
            anchor = reserve(size, site, true, true);
        }
        if (anchor != null) {
            return anchor;
        }
        long now = System.nanoTime();
        // The interval holds only while a fallback would fit under the direct memory limit: one that
        // would not, the JDK collects for anyway, and its collection frees the buffers into the
        // pools' pages, not into the JDK's direct memory: the fallback would fail where the pools
        // could serve (the pools' pages holding the limit, with buffers the collector has not found).
        if (!options.failWhenExhausted
                && !mustCollect
                && !lastCollectHelped
                && now - lastCollect < COLLECT_INTERVAL_NANOS
                && NativeAccess.fitsUnderLimit(size)) {
            // No collection so soon after one that gave nothing back. Room the pools hold empty is
            // another matter: once the JDK has refused a page since it was last given back (the
            // direct memory limit), give it back, or a request would fall back while it sits there.
            long refused = NativeAccess.pageRefusals();
            if (refused == emptiedAtRefusals) {
                return null;
            }
            emptiedAtRefusals = refused;
            releaseEmptyPages();
            return reserve(size, site, true, true);
        }
        lastCollect = now;
        // The JDK refused the fallback: what host folders hold past the host's release goes before
        // the collection, which then finds it; the host would get an OutOfMemoryError otherwise.
        if (mustCollect && Holds.letGo()) {
            outrun.letGo = true;
        }
        for (int round = 1; stoppedBy == null; round++) {
            long before = collectorReleases.sum();
            boolean collected = false;
            Runnable hook = beforeCollecting;
            if (hook != null) {
                hook.run();
            }
            if (!Locks.acquireUnlessAbandoned(collecting)) {
                return null; // the pools stopped (see OwnedLock)
            }
            try {
                // A collection that began after this request found no room, and is over (its request
                // held the lock), found every buffer this one would: threads that run out together,
                // as all of them do when a pool is full, wait for one collection, not one each.
                if (collectionsBegun == begunBefore) {
                    collectionsBegun = begunBefore + 1;
                    HeapKeepingCollection.collect();
                    collections.increment();
                    collected = true;
                }
            } finally {
                collecting.unlock();
            }
            anchor = Releaser.drainAfterCollection(() -> reserve(size, site, true, true));
            if (collected) {
                // Decided only now: served, some lease the collection found is back; not, all of them are.
                lastCollectHelped = collectorReleases.sum() > before;
            }
            if (anchor == null) {
                // Only now give empty pages back, so that a pool that needs a page of another size can
                // get one: freeing them first would make the pools allocate (and zero) them all over again.
                emptiedAtRefusals = NativeAccess.pageRefusals();
                releaseEmptyPages();
                anchor = reserve(size, site, true, true);
            }
            // What the collections that began since this request last found no room gave back to the
            // pools that take its size, whoever made them (a shared one may have given it back before
            // this request got here).
            long released = current.collectorFreedBytesTaking(size);
            // As much as the request asks: a few small buffers freed beside live ones are no room for it.
            boolean gaveBack = released - releasedBefore >= size;
            if (anchor == null
                    && !anotherRound(round, gaveBack)
                    && options.failWhenExhausted
                    && !outrun.letGo
                    && Holds.letGo()) {
                // To be refused: what host folders hold goes first, and one more collection finds it.
                outrun.letGo = true;
                begunBefore = collectionsBegun;
                releasedBefore = released;
                continue;
            }
            if (anchor == null && !anotherRound(round, gaveBack) && recoverDroppedSinceCollection() > 0) {
                // Room whose release was lost on its way (see recoverDropped): back now, tried once more.
                anchor = reserve(size, site, true, true);
            }
            if (anchor != null || !anotherRound(round, gaveBack)) {
                outrun.collections = anchor == null && gaveBack ? round : 0;
                collectionNanos.add(System.nanoTime() - now);
                return anchor;
            }
            begunBefore = collectionsBegun;
            releasedBefore = released;
            anchor = reserve(size, site, true, true);
            if (anchor != null) {
                collectionNanos.add(System.nanoTime() - now);
                return anchor;
            }
        }
        return null;
    }

    /**
     * How many collections a request refused under {@code on_exhausted: fail} may go through: each
     * after the one before gave back at least the bytes asked for, and still no room was found.
     */
    static final int COLLECTION_ROUNDS = 8;

    /**
     * Whether a request the pools still cannot serve after its {@code round}-th collection goes
     * through one more. Under {@code fail} a refusal is an {@code OutOfMemoryError} in the host, and
     * must mean the memory is really held: while a collection gives the pools that take its size back
     * at least the bytes it asks for (buffers threads dropped, whose room threads that kept asking
     * took before this request), the buffers dropped since may hold the room it needs, and a
     * collection that begins now finds them. One that gives back less (a few small buffers beside
     * live ones) shows the room is held by live buffers. Under {@code fallback} the request is
     * served by the JDK instead, and is not made to wait for more collections.
     */
    private boolean anotherRound(int round, boolean gaveBack) {
        return options.failWhenExhausted && gaveBack && round < COLLECTION_ROUNDS;
    }

    /**
     * Of a request the pools did not serve: how many collections each gave back at least the bytes it
     * asked for while it still found no room, the last of them included (0: the last gave back less,
     * the room is held). Its refusal says so: room came back, and other threads may have taken it.
     */
    private static final class Outrun {
        int collections;

        /** Host folders let go of what they held for this request ({@link Holds}). */
        boolean letGo;

        String why() {
            return collections == 0
                    ? ""
                    : "; " + collections + " collection" + (collections == 1 ? " " : "s each ")
                            + "gave these pools back at least the bytes asked for, and the request still found"
                            + " no room (other threads may have taken it first: buffers dropped, not released,"
                            + " faster than collections find them)";
        }
    }

    /**
     * A request the pools did not serve: refused under {@code on_exhausted: fail}, otherwise served by
     * {@code ByteBuffer.allocateDirect}. When that fails too (the direct memory limit, which the pools'
     * pages may hold, with buffers the collector has not found yet: the JDK's own collection frees
     * them into the pools, not into its direct memory), the pools collect, whatever the interval, and
     * serve it if that made room; the host gets the JDK's {@code OutOfMemoryError} only if not.
     */
    private ByteBuffer exhausted(int size, int site, boolean fits, Outrun outrun) {
        String reason = size > Sizes.MAX_PAGE
                ? Sizes.human(size) + " (" + size + " B) is larger than a pool page can be (" + Sizes.MAX_PAGE + " B)"
                : current.whyRefused(size) + outrun.why();
        if (options.failWhenExhausted) {
            refused(size, site, reason, false);
            throw new OutOfMemoryError("pools: cannot serve " + size + " B: " + reason);
        }
        ByteBuffer fallback;
        try {
            fallback = ByteBuffer.allocateDirect(size);
        } catch (OutOfMemoryError e) {
            long givenBack = pagesGivenBack.get();
            Anchor anchor = fits ? reserveAfterReleasing(size, site, true, outrun) : null;
            if (anchor != null) {
                return handOut(anchor, size, site);
            }
            fallback = fallbackAfterGivingBack(size, fits, givenBack, outrun.letGo);
            if (fallback == null) {
                refused(size, site, reason + "; the JDK refused it too: " + e.getMessage(), false);
                throw e;
            }
        }
        fellBack(fallback, size, site, reason);
        return fallback;
    }

    /**
     * The JDK once more, after the pools gave back their empty pages: its refusal came after its own
     * collection, which freed the dropped buffers into the pools' pages, not into its direct memory.
     * A request no pool takes releases those first ({@link #reserveAfterReleasing} has for one that
     * fits). Asked only if some page went back since the first refusal ({@code givenBack} pages had
     * then), or the request fits under the limit now: the JDK's refusal takes a collection and half a
     * second of retries, which a host that is refused anyway should not wait twice. Null if the JDK
     * refuses again, or is not asked.
     */
    private ByteBuffer fallbackAfterGivingBack(int size, boolean fits, long givenBack, boolean letGo) {
        if (!fits && !letGo && Holds.letGo()) {
            // Not asked before (no pool takes the size): a collection finds what they held, whose pool
            // buffers then go back to the pools, and their pages to the JDK below.
            letGo = true;
            HeapKeepingCollection.collect();
        }
        if (!fits) {
            NativeAccess.awaitReferenceProcessing();
            Releaser.drainNow();
        }
        emptiedAtRefusals = NativeAccess.pageRefusals();
        releaseEmptyPages();
        // Buffers of the JDK's that a host folder held are freed by the JDK's own collection: ask it.
        if (!letGo && pagesGivenBack.get() == givenBack && !NativeAccess.fitsUnderLimit(size)) {
            return null;
        }
        try {
            return ByteBuffer.allocateDirect(size);
        } catch (OutOfMemoryError again) {
            return null;
        }
    }

    /** Records a refusal; one not served at all ({@code fellBack} false) counts at its site, as a fallback does. */
    private void refused(int size, int site, String reason, boolean fellBack) {
        try {
            listener.refused(size, site, reason, fellBack);
        } catch (RuntimeException | Error e) {
            // The recording must never turn a served request into a failed one.
        }
        if (!fellBack) {
            failedAllocs.increment();
            // Asked for, though not served: the site's requests and bytes count it, as a fallback's.
            sites.failed(site, size);
        }
    }

    /**
     * Releases the memory behind {@code buffer} (or behind the buffer a view was made from) now.
     * Returns false for a buffer the pools did not serve, and for one already released (counted in
     * {@link #doubleReleases()}).
     */
    public boolean release(Buffer buffer) {
        return release(buffer, true);
    }

    /**
     * As {@link #release(Buffer)}; without {@code mayCache}, the room goes to its pool, not to the
     * calling thread's cache, as the collector's releases do (a replay of a trace's {@code c} lines).
     */
    public boolean release(Buffer buffer, boolean mayCache) {
        Lease lease = leaseOf(buffer);
        if (lease == null) {
            return false;
        }
        PoolAllocator owner = lease.pool.owner;
        if (owner.stoppedBy != null || !owner.claim(lease, true)) {
            return false;
        }
        CallSites.ThreadCounts known = lease.pool.knownCounts(lease);
        lease.pool.free(lease, mayCache);
        // Counted once the room is back, never before: a request at the site meanwhile (another
        // thread's) finds the room still taken, and the site's peak is never below the bytes it held.
        owner.sites.released(lease.site, lease.size, known);
        return true;
    }

    /** Whether {@code buffer} is a buffer the pools handed out, or a view of one. */
    public static boolean isPoolMemory(Buffer buffer) {
        return leaseOf(buffer) != null;
    }

    /** Whether {@code a} and {@code b} are views of the same pool memory (one lease). */
    public static boolean sameMemory(Buffer a, Buffer b) {
        Lease lease = leaseOf(a);
        return lease != null && lease == leaseOf(b);
    }

    private static Lease leaseOf(Buffer buffer) {
        return NativeAccess.attachment(buffer) instanceof Anchor anchor ? anchor.lease : null;
    }

    /**
     * Decides that this caller releases {@code lease} (false if it was released before: counted as a
     * double release when explicit) and cleans it; the caller frees it, then counts the call site.
     */
    boolean claim(Lease lease, boolean explicit) {
        if (!lease.claimRelease()) {
            if (explicit) {
                doubleReleases.increment();
            }
            return false;
        }
        clean(lease);
        return true;
    }

    /**
     * Like {@link #claim} for a release by the collector (the release thread, or a request that
     * releases queued leases): the caller counts a batch's released bytes per site at once
     * ({@link #collected}) once their room is back in a pool, so that a burst of releases does not
     * write one shared counter per buffer. A pool that zeroes at
     * hand-out gets the room back as the host left it, so that the one release thread does not zero
     * for every allocating thread; the allocation that next takes it zeroes it.
     */
    boolean claimCollected(Lease lease) {
        if (stoppedBy != null || !lease.claimRelease()) {
            return false;
        }
        if (options.poisonOnFree || !lease.pool.zeroesAtHandOut(lease)) {
            NativeAccess.fill(lease.address, lease.size, options.poisonOnFree ? POISON : 0);
        } else {
            lease.leftDirty = true;
        }
        return true;
    }

    /**
     * Counts {@code leases} releases by the collector of {@code bytes} in all at call site
     * {@code site}: claimed by {@link #claimCollected}, their room back in a pool. Counted before,
     * a request at the site in between (the room not yet free) was counted against too few live
     * bytes, and the site's peak came out below what it held, by up to a batch.
     */
    void collected(int site, long bytes, int leases) {
        sites.released(site, bytes, null);
        collectorReleases.add(leases);
    }

    /**
     * After a claim: zeroes (or poisons) the memory. The call site is counted by the caller once the
     * room is back: a slice reused at once by another thread at the same site is then counted twice
     * for that moment (the site's peak may be above what it held by the releases in flight, never
     * below).
     *
     * <p>The lease is not {@link Lease#clear() cleared}: on JDK 17 that is a call into the VM that
     * cost a fifth of an allocate and release. Nothing holds a released lease but its anchor, so it
     * dies with it and is seldom queued; one the collector queues anyway is refused by its claim
     * ({@link Lease#claimRelease()}), like a second explicit release but not counted as one.
     */
    private void clean(Lease lease) {
        NativeAccess.fill(lease.address, lease.size, options.poisonOnFree ? POISON : 0);
    }

    /**
     * Installs a new layout if the pools hold nothing live; otherwise refuses and keeps the old one.
     * The new pools start with fresh marks.
     */
    public synchronized void install(List<PoolSpec> layout) throws InstallMemoryPoolsException {
        if (shutdown) {
            throw InstallMemoryPoolsException.unavailable();
        }
        Throwable stop = stoppedBy;
        if (stop != null) {
            throw InstallMemoryPoolsException.stopped(STOPPED + stop);
        }
        Releaser.drainNow();
        PoolSet old = current;
        int locked = 0;
        // Closing first: a thread that serves or caches a slice without the lock from now on sees it
        // and goes through the lock; one that did so before is counted below (see ThreadCache).
        for (Pool pool : old.pools) {
            pool.closing = true;
        }
        boolean installed = false;
        try {
            long live = 0;
            List<PoolReport> last = new ArrayList<>();
            for (Pool pool : old.pools) {
                Locks.acquire(pool.lock);
                locked++;
                pool.drainCachesLocked();
                pool.releaseEmptyPagesLocked();
                PoolReport report = pool.reportLocked();
                last.add(report);
                live += report.usage().bytesInUse();
            }
            if (live > 0) {
                throw InstallMemoryPoolsException.poolsInUse(live);
            }
            // Everything the install needs is made before the pools change: a full heap now leaves
            // them as they were (with the set retired first, every later request looked for a set
            // that was not retired, for ever: a review).
            PoolSet fresh = new PoolSet(this, layout);
            retiredReports = List.copyOf(last);
            installed = true;
            for (Pool pool : old.pools) {
                pool.retired = true;
            }
            old.retired = true;
            current = fresh;
        } catch (InstallMemoryPoolsException | OutOfMemoryError e) {
            throw e;
        } catch (AbandonedLockException e) {
            // A pool's lock found left held: the pools stopped (see OwnedLock), as an install after it is told.
            throw InstallMemoryPoolsException.stopped(STOPPED + e);
        } catch (Throwable t) {
            stoppedBy = t; // with the locks still held (see stoppedBy)
            throw t;
        } finally {
            for (int i = locked - 1; i >= 0; i--) {
                old.pools[i].lock.unlock();
            }
            if (!installed) {
                for (Pool pool : old.pools) {
                    pool.closing = false;
                }
            }
        }
    }

    private volatile List<PoolReport> retiredReports;

    /**
     * The last reports of the pools the latest install replaced, taken as it replaced them (null before
     * any install): their peaks since the last batch a recording took, which it records with the install.
     */
    public List<PoolReport> retiredReports() {
        return retiredReports;
    }

    /** From now on installs are refused as {@code UNAVAILABLE}; allocations go on. */
    public void shutdown() {
        shutdown = true;
    }

    /**
     * Releases the buffers the collector has found unreachable (waiting for its pending references
     * to be queued and for the release thread), then gives every empty page back to the JDK.
     * Returns pages released.
     */
    public int cleanup() {
        if (stoppedBy != null) {
            return 0; // nothing is given back by stopped pools
        }
        try {
            NativeAccess.awaitReferenceProcessing();
            Releaser.drainNow();
            recoverDropped();
            return releaseEmptyPages();
        } catch (AbandonedLockException e) {
            stopBy(e);
            return 0;
        }
    }

    /** Leases {@link #recoverDropped} gave back since start. */
    private final AtomicLong recoveredLeases = new AtomicLong();

    /** How many leases {@link #recoverDropped} gave back since start: each a release lost, then found. */
    public long recoveredLeases() {
        return recoveredLeases.get();
    }

    /** The count of collections seen ({@link Releaser#collectionsSeen}) at the last {@link #recoverDroppedSinceCollection}. */
    private volatile long recoveredAtCollections = -1;

    /**
     * {@link #recoverDropped}, once per collection: a release is lost only after a collection found its
     * buffer, and the scan reads every live lease of the pools under their locks, which requests that
     * are refused together need not do each.
     */
    private int recoverDroppedSinceCollection() {
        long seen = Releaser.collectionsSeen();
        if (seen == recoveredAtCollections) {
            return 0;
        }
        recoveredAtCollections = seen;
        return recoverDropped();
    }

    /** Candidates looked at by one {@link #recoverDropped} per pool, at most, in rounds of {@code FOUND}. */
    private static final int FOUND = 256;

    private static final int FOUND_ROUNDS = 64;

    /**
     * Gives back the room of leases whose buffer the collector found unreachable, but whose release
     * never came: taken from the release queue, then lost (a frame the JVM unwinds without its handlers
     * at a full heap, or a defect). The candidates are the live leases whose anchor the collector has
     * cleared; once the reference handler has queued what it had and every lease queued so far is back
     * ({@link Releaser#drainNow}), a candidate still live was taken and lost, and is released here as
     * the collector's releases are (the same claim decides, so nothing is released twice). Nothing is
     * given back if the drain did not end in time. Said once on stderr; returns how many.
     */
    int recoverDropped() {
        Lease[] found = new Lease[FOUND];
        int total = 0;
        for (Pool pool : current.pools) {
            for (int round = 0; round < FOUND_ROUNDS; round++) {
                if (!pool.lockUnlessAbandoned()) {
                    return total; // the pools stopped
                }
                int n;
                try {
                    n = pool.droppedLocked(found, 0);
                } finally {
                    pool.lock.unlock();
                }
                if (n == 0) {
                    break;
                }
                NativeAccess.awaitReferenceProcessing();
                if (!Releaser.drainNow()) {
                    return total;
                }
                int lost = 0;
                for (int i = 0; i < n; i++) {
                    if (found[i].isLive()) {
                        found[lost++] = found[i];
                    }
                }
                Arrays.fill(found, lost, n, null);
                if (lost > 0) {
                    Releaser.releaseFound(found, lost);
                    total += lost;
                }
                if (n < found.length) {
                    break;
                }
            }
        }
        if (total > 0) {
            recoveredLeases.addAndGet(total);
            Log.once(
                    "recovered",
                    total + " buffers the collector had found unreachable were still in use in the pools: their"
                            + " release was lost on its way (a full Java heap?); given back now (said once)");
        }
        return total;
    }

    /** Stops the pools for {@code e}, a lock found abandoned, if they run (see {@link #stoppedBy}). */
    private void stopBy(AbandonedLockException e) {
        if (stoppedBy == null) {
            stoppedBy = e;
        }
    }

    /** The empty pages of each pool now, for {@link #giveBackStillEmpty} a while later (the release thread). */
    Map<Pool, Set<Object>> emptyPages() {
        Map<Pool, Set<Object>> empty = new IdentityHashMap<>();
        for (Pool pool : current.pools) {
            List<Object> pages = pool.emptyPages();
            if (!pages.isEmpty()) {
                Set<Object> set = Collections.newSetFromMap(new IdentityHashMap<>());
                set.addAll(pages);
                empty.put(pool, set);
            }
        }
        return empty;
    }

    /**
     * After collections that found the direct memory near its limit (the release thread): the pages
     * empty at the first look ({@link #emptyPages()}) and empty again now go back to the JDK, so that what the JDK refuses anyone else while it retries finds
     * room. Pages in use again at the second look stay: giving back every empty page at each
     * collection near the limit freed, and made the pools allocate again, hundreds of MiB a second
     * under a steady load (a review's reproducer). Thread caches stay as they are.
     */
    void giveBackStillEmpty(Map<Pool, Set<Object>> earlier) {
        int released = 0;
        for (Pool pool : current.pools) {
            Set<Object> pages = earlier.get(pool);
            if (pages != null) {
                released += pool.releaseStillEmpty(pages);
            }
        }
        if (released > 0) {
            emptiedAtRefusals = NativeAccess.pageRefusals();
            pagesGivenBack.addAndGet(released);
        }
    }

    /**
     * At a second look that still finds the limit near: the room thread caches and idle runs hold,
     * which neither look counts as empty, goes back to the pages; returns whether a page became empty
     * (the release thread then looks twice more).
     */
    boolean drainForGiveBack() {
        boolean emptied = false;
        for (Pool pool : current.pools) {
            emptied |= pool.drainForGiveBack();
        }
        return emptied;
    }

    private int releaseEmptyPages() {
        int released = 0;
        for (Pool pool : current.pools) {
            released += pool.cleanup();
        }
        pagesGivenBack.addAndGet(released);
        return released;
    }

    public List<PoolSpec> layout() {
        return current.specs;
    }

    public List<PoolReport> reports() {
        Pool[] pools = current.pools;
        List<PoolReport> out = new ArrayList<>(pools.length);
        for (Pool pool : pools) {
            out.add(pool.report());
        }
        return out;
    }

    /** The whole: the field-wise sum over pools, plus the fallbacks. */
    public Usage usage() {
        return usage(reports());
    }

    /**
     * Collections the pools made for requests a full pool could not serve ({@code System.gc()}, then
     * waiting until every buffer it found unreachable was back), since start: the price of a cap
     * under {@code release: gc}.
     */
    public long collections() {
        return collections.sum();
    }

    /**
     * Requests refused to the host since start, as an {@code OutOfMemoryError}: under {@code
     * on_exhausted: fail}, or when the JDK refused a fallback too. With {@link Usage#fallbackAllocs}, every
     * request the pools did not serve, whether or not the recording kept it one by one.
     */
    public long failedAllocs() {
        return failedAllocs.sum();
    }

    /** Nanoseconds the requesting threads spent in those collections, waiting included. */
    public long collectionNanos() {
        return collectionNanos.sum();
    }

    /**
     * The most direct memory outside the pools' pages right after a fallback since start, by the JDK's
     * count at that moment (the fallback included, and every buffer the collector had not freed); -1
     * before any fallback, or where the JDK's count is out of reach. A sample of the recording misses
     * fallbacks held and dropped between two batches (8 MB of them gave suggest a limit of 2 MiB); this
     * does not, and costs the fallback a few reads.
     */
    public long outsideAtFallbacksPeak() {
        return outsideAtFallbacks.get();
    }

    /**
     * The JDK's direct memory outside every pool's pages now, from {@code jdkDirect} (its count, -1 if
     * unknown), so read that no page came or went in between; -1 if unknown.
     */
    public static long directOutsidePages(LongSupplier jdkDirect) {
        return NativeAccess.directOutsidePages(jdkDirect);
    }

    /** The usage that goes with {@code reports}, taken a moment before. */
    public Usage usage(List<PoolReport> reports) {
        Usage sum = new Usage(0, 0, 0, 0, fallbackAllocs.sum(), fallbackBytes.sum());
        for (PoolReport r : reports) {
            sum = sum.plus(r.usage());
        }
        return sum;
    }

    /**
     * Request sizes each pool of the installed layout served since install, in
     * {@link Sizes#log2Bucket} buckets, with the reports of the same pools: both read from one
     * layout, so an install in between cannot mismatch them.
     */
    public record SizesSnapshot(List<PoolReport> reports, List<long[]> requestSizes) {}

    public SizesSnapshot requestSizes() {
        Pool[] pools = current.pools;
        List<PoolReport> reports = new ArrayList<>(pools.length);
        List<long[]> sizes = new ArrayList<>(pools.length);
        for (Pool pool : pools) {
            reports.add(pool.report());
            sizes.add(pool.requestSizes());
        }
        return new SizesSnapshot(reports, sizes);
    }

    public long doubleReleases() {
        return doubleReleases.sum();
    }

    /** Leases released because their buffer became unreachable. */
    public long collectorReleases() {
        return collectorReleases.sum();
    }

    /**
     * Where a live pool buffer lives.
     *
     * @param page   the page index in a sliced pool; -1 in other pools
     * @param offset the offset in that page; -1 in other pools
     */
    public record Location(int pool, int page, long offset) {}

    /** Where a pool buffer of this allocator lives; null if it is not a live one. */
    public Location locate(Buffer buffer) {
        Lease lease = leaseOf(buffer);
        if (lease == null || lease.pool.owner != this || !lease.isLive()) {
            return null;
        }
        Pool pool = lease.pool;
        if (pool instanceof SlicingPool sliced) {
            return sliced.locate(lease.address);
        }
        return new Location(pool.index, -1, -1);
    }

    /** The lock of pool {@code index} of the layout in place. For tests. */
    OwnedLock lockOf(int index) {
        return current.pools[index].lock;
    }

    /** Checks every pool's invariants; throws {@link AssertionError}. For tests. */
    public void checkInvariants() {
        for (Pool pool : current.pools) {
            Locks.acquire(pool.lock);
            try {
                pool.checkAllInvariantsLocked();
            } finally {
                pool.lock.unlock();
            }
        }
    }

    /** The address of a direct buffer, for tests and diagnostics. */
    public static long addressOf(Buffer buffer) {
        return NativeAccess.address(buffer);
    }
}
