package dev.pools.memory;

import dev.pools.api.InstallMemoryPoolsException;
import java.lang.ref.Reference;
import java.lang.ref.ReferenceQueue;
import java.nio.Buffer;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * The JVM's pooled off-heap memory: serves allocations from the installed layout's pools, takes
 * them back, and swaps layouts.
 *
 * <p><b>Allocate</b> {@code s} bytes: (1) route through the installed {@link PoolSet}; (2) if no
 * pool has room (POOLS.md §2.4), release what is already queued and retry; then collect garbage (at
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
 * <p><b>Install</b> replaces the layout only when the pools hold nothing live (POOLS.md §8).
 */
public final class PoolAllocator {

    /** Byte written over released memory when poisoning is on. */
    public static final byte POISON = (byte) 0xDB;

    /** Garbage is collected for an exhausted request at most this often. */
    static final long COLLECT_INTERVAL_NANOS = 100_000_000L;

    private static final ReferenceQueue<Anchor> QUEUE = new ReferenceQueue<>();
    /** Most leases released under one lock acquisition per pool. */
    private static final int RELEASE_BATCH = 256;
    private static final AtomicInteger RELEASES_IN_FLIGHT = new AtomicInteger();
    static {
        startReleaser();
    }

    /**
     * How the allocator treats exhaustion and released memory.
     *
     * @param trace where every allocation and release is written, or null
     */
    public record Options(boolean poisonOnFree, boolean failWhenExhausted, AllocationTrace trace) {
        public static final Options DEFAULT = new Options(false, false);

        public Options(boolean poisonOnFree, boolean failWhenExhausted) {
            this(poisonOnFree, failWhenExhausted, null);
        }
    }

    private final Options options;
    private final AllocationListener listener;
    private final CallSites sites;
    private volatile PoolSet current;
    private volatile boolean shutdown;
    private volatile long lastCollect = System.nanoTime() - COLLECT_INTERVAL_NANOS;
    /** Whether the last collection for an exhausted request gave memory back: if so, the next may come at once. */
    private volatile boolean lastCollectHelped;
    private final LongAdder fallbackAllocs = new LongAdder();
    private final LongAdder fallbackBytes = new LongAdder();
    private final LongAdder doubleReleases = new LongAdder();
    private final LongAdder collectorReleases = new LongAdder();

    /**
     * The JDK internals are resolved at the first allocation, not here, to keep the agent's start-up
     * short: check {@link #unavailableBecause()} first where a clear refusal matters.
     */
    public PoolAllocator(List<PoolSpec> layout, Options options, AllocationListener listener, CallSites sites) {
        this.options = options;
        this.listener = listener;
        this.sites = sites;
        this.current = new PoolSet(this, layout);
    }

    public PoolAllocator(List<PoolSpec> layout) {
        this(layout, Options.DEFAULT, AllocationListener.NONE, new CallSites());
    }

    /** Whether the JDK internals the pools need are in reach; null if so, otherwise why not. */
    public static Throwable unavailableBecause() {
        return NativeAccess.failure();
    }

    public CallSites sites() {
        return sites;
    }

    public Options options() {
        return options;
    }

    /** A direct buffer of exactly {@code size} bytes, as {@link ByteBuffer#allocateDirect} makes one. */
    public ByteBuffer allocate(int size, int site) {
        if (size <= 0) {
            return size == 0 ? NativeAccess.emptyBuffer() : ByteBuffer.allocateDirect(size);
        }
        NativeAccess.requireAvailable();
        Anchor anchor = reserve(size, site);
        if (anchor == null) {
            anchor = reserveAfterCollecting(size, site);
            if (anchor == null) {
                return exhausted(size, site);
            }
        }
        Lease lease = anchor.lease;
        if (options.poisonOnFree) {
            NativeAccess.fill(lease.address, size, (byte) 0);
        }
        sites.served(site, size);
        if (options.trace != null) {
            lease.traceId = options.trace.allocated(size, site);
        }
        return NativeAccess.newBuffer(lease.address, size, anchor);
    }

    private Anchor reserve(int size, int site) {
        while (true) {
            PoolSet set = current;
            Anchor anchor = set.reserve(size, site, QUEUE);
            if (anchor != null || !set.retired) {
                return anchor;
            }
        }
    }

    private Anchor reserveAfterCollecting(int size, int site) {
        drainQueue();
        Anchor anchor = reserve(size, site);
        if (anchor != null) {
            return anchor;
        }
        long now = System.nanoTime();
        if (!lastCollectHelped && now - lastCollect < COLLECT_INTERVAL_NANOS) {
            return null;
        }
        lastCollect = now;
        long before = collectorReleases.sum();
        System.gc();
        NativeAccess.awaitReferenceProcessing();
        drainQueue();
        awaitReleasesInFlight();
        lastCollectHelped = collectorReleases.sum() > before;
        anchor = reserve(size, site);
        if (anchor != null) {
            return anchor;
        }
        // Only now give empty pages back, so that a pool that needs a page of another size can get
        // one: freeing them first would make the pools allocate (and zero) them all over again.
        cleanup();
        return reserve(size, site);
    }

    private ByteBuffer exhausted(int size, int site) {
        String reason = current.whyRefused(size);
        boolean fallBack = !options.failWhenExhausted;
        try {
            listener.refused(size, site, reason, fallBack);
        } catch (RuntimeException e) {
            // The recording must never turn a served request into a failed one.
        }
        if (!fallBack) {
            throw new OutOfMemoryError("pools: cannot serve " + size + " B: " + reason);
        }
        fallbackAllocs.increment();
        fallbackBytes.add(size);
        sites.fellBack(site, size);
        if (options.trace != null) {
            options.trace.fellBack(size, site);
        }
        return ByteBuffer.allocateDirect(size);
    }

    /**
     * Releases the slice behind {@code buffer} (or behind the buffer a view was made from) now.
     * Returns false for a buffer the pools did not serve, and for one already released (counted in
     * {@link #doubleReleases()}).
     */
    public boolean release(Buffer buffer) {
        Object attachment = NativeAccess.attachment(buffer);
        if (!(attachment instanceof Anchor anchor)) {
            return false;
        }
        Lease lease = anchor.lease;
        PoolAllocator owner = lease.pool.owner;
        if (!owner.claim(lease, true)) {
            return false;
        }
        lease.pool.free(lease);
        owner.released(lease, true);
        return true;
    }

    /**
     * Decides that this caller releases {@code lease} (false if it was released before: counted as a
     * double release when explicit), stops the collector from queueing it, and cleans its memory.
     */
    private boolean claim(Lease lease, boolean explicit) {
        if (!lease.claimRelease()) {
            if (explicit) {
                doubleReleases.increment();
            }
            return false;
        }
        lease.clear();
        NativeAccess.fill(lease.address, lease.size, options.poisonOnFree ? POISON : 0);
        return true;
    }

    private void released(Lease lease, boolean explicit) {
        sites.released(lease.site, lease.size);
        if (options.trace != null) {
            options.trace.released(lease.traceId);
        }
        if (!explicit) {
            collectorReleases.increment();
        }
    }

    /**
     * Releases leases the collector queued: claims and cleans each outside any lock, then frees them
     * pool by pool, one lock acquisition per pool, so that a burst of releases after a collection does
     * not take the lock from allocating threads once per buffer.
     */
    private static void releaseQueued(Lease[] batch, int n) {
        int kept = 0;
        for (int i = 0; i < n; i++) {
            if (batch[i].pool.owner.claim(batch[i], false)) {
                batch[kept++] = batch[i];
            }
        }
        for (int start = 0; start < kept; ) {
            Pool pool = batch[start].pool;
            int end = start + 1;
            for (int i = end; i < kept; i++) {
                if (batch[i].pool == pool) {
                    Lease t = batch[end];
                    batch[end++] = batch[i];
                    batch[i] = t;
                }
            }
            pool.free(batch, start, end);
            start = end;
        }
        for (int i = 0; i < kept; i++) {
            batch[i].pool.owner.released(batch[i], false);
        }
        java.util.Arrays.fill(batch, 0, n, null);
    }

    /** Fills {@code batch} from the queue without waiting, after {@code n} leases already in it; returns the count. */
    private static int pollInto(Lease[] batch, int n) {
        Reference<? extends Anchor> ref;
        while (n < batch.length && (ref = QUEUE.poll()) != null) {
            batch[n++] = (Lease) ref;
        }
        return n;
    }

    /** Releases every lease the collector has queued, on this thread. */
    static void drainQueue() {
        Lease[] batch = new Lease[RELEASE_BATCH];
        int n;
        while ((n = pollInto(batch, 0)) > 0) {
            releaseQueued(batch, n);
        }
    }

    private static void awaitReleasesInFlight() {
        for (int i = 0; i < 10_000 && RELEASES_IN_FLIGHT.get() > 0; i++) {
            Thread.yield();
        }
    }

    private static void startReleaser() {
        Thread t = new Thread("pools-release") {
            @Override
            public void run() {
                releaseLoop();
            }
        };
        t.setDaemon(true);
        t.start();
    }

    private static void releaseLoop() {
        Lease[] batch = new Lease[RELEASE_BATCH];
        while (true) {
            try {
                batch[0] = (Lease) QUEUE.remove();
                RELEASES_IN_FLIGHT.incrementAndGet();
                try {
                    releaseQueued(batch, pollInto(batch, 1));
                } finally {
                    RELEASES_IN_FLIGHT.decrementAndGet();
                }
            } catch (InterruptedException e) {
                // Daemon thread: keep serving until the JVM exits.
            } catch (Throwable t) {
                ReleaseFailure.report(t);
            }
        }
    }

    /** Logs the first failure of the release thread; the thread goes on. */
    private static final class ReleaseFailure {
        private static volatile boolean reported;

        static void report(Throwable t) {
            if (!reported) {
                reported = true;
                System.err.println("pools: releasing a buffer failed, the release thread goes on: " + t);
            }
        }
    }

    /**
     * Installs a new layout if the pools hold nothing live; otherwise refuses and keeps the old one.
     * The new pools start with fresh marks.
     */
    public synchronized void install(List<PoolSpec> layout) throws InstallMemoryPoolsException {
        if (shutdown) {
            throw InstallMemoryPoolsException.unavailable();
        }
        drainQueue();
        PoolSet old = current;
        int locked = 0;
        try {
            long live = 0;
            for (Pool pool : old.pools) {
                pool.lock.lock();
                locked++;
                pool.releaseEmptyPages();
                live += pool.bytesInUse;
            }
            if (live > 0) {
                throw InstallMemoryPoolsException.poolsInUse(live);
            }
            for (Pool pool : old.pools) {
                pool.retired = true;
            }
            old.retired = true;
            current = new PoolSet(this, layout);
        } finally {
            for (int i = locked - 1; i >= 0; i--) {
                old.pools[i].lock.unlock();
            }
        }
    }

    /** From now on installs are refused as {@code UNAVAILABLE}; allocations go on. */
    public void shutdown() {
        shutdown = true;
    }

    /**
     * Releases the buffers the collector has found unreachable (waiting for its pending references
     * to be queued), then gives every empty page back to the JDK. Returns pages released.
     */
    public int cleanup() {
        NativeAccess.awaitReferenceProcessing();
        drainQueue();
        awaitReleasesInFlight();
        int released = 0;
        for (Pool pool : current.pools) {
            released += pool.cleanup();
        }
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

    /** The usage that goes with {@code reports}, taken a moment before. */
    public Usage usage(List<PoolReport> reports) {
        Usage sum = new Usage(0, 0, 0, 0, fallbackAllocs.sum(), fallbackBytes.sum());
        for (PoolReport r : reports) {
            sum = sum.plus(r.usage());
        }
        return sum;
    }

    /** Request sizes each pool served since install, in {@link Sizes#log2Bucket} buckets. */
    public long[] requestSizes(int pool) {
        return current.pools[pool].requestSizes();
    }

    public long doubleReleases() {
        return doubleReleases.sum();
    }

    /** Leases released because their buffer became unreachable. */
    public long collectorReleases() {
        return collectorReleases.sum();
    }

    /** Where a pool buffer lives: pool index, then (sliced pools) page index and offset; null if not a live pool buffer. */
    public long[] locate(Buffer buffer) {
        Object attachment = NativeAccess.attachment(buffer);
        if (!(attachment instanceof Anchor anchor) || anchor.lease.pool.owner != this || !anchor.lease.isLive()) {
            return null;
        }
        Pool pool = anchor.lease.pool;
        if (pool instanceof SlicingPool sliced) {
            long[] at = sliced.locate(anchor.lease.address);
            return at == null ? null : new long[] {pool.index, at[0], at[1]};
        }
        return new long[] {pool.index};
    }

    /** Checks every pool's invariants; throws {@link AssertionError}. For tests. */
    public void checkInvariants() {
        for (Pool pool : current.pools) {
            pool.lock.lock();
            try {
                pool.checkInvariants();
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
