package dev.pools.memory;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * The code locations that ask for memory ({@code class#method}), each with an id handed out when
 * its class is instrumented, and what each one asked for.
 *
 * <p>Threading: registration is synchronized and copies the table (it happens once per call site
 * at class load). Each platform thread counts its own requests and bytes per site
 * ({@link ThreadCounts}: written by that thread only, added up by {@link #snapshot}), so threads
 * asking at one site never write the same memory.
 *
 * <p><b>Live bytes and their peak.</b> A site's live bytes are one atomic, minus what each thread
 * released there and has not yet published: a thread keeps up to {@link #DEBT_LIMIT} released
 * bytes per site as its own debt, and its next requests at that site take from the debt before
 * they touch the atomic. A thread that releases and asks again at a site, as a request loop does,
 * so leaves the atomic alone. Live bytes are the atomic minus every thread's debt: exact whenever
 * no request is in flight. The peak is taken from the atomic when it rises. A release is counted
 * once its room is back in the pool, so the peak is exact when one thread asks and releases at the
 * site; otherwise it may be above the true peak by the other threads' debts (each at most
 * {@link #DEBT_LIMIT}) and by the releases in flight, and below it only if a request is stopped
 * between taking its room and being counted while a release at the site completes. The pools'
 * release thread never asks, so it keeps no debt: what the collector releases is published once
 * its batch's room is back.
 */
public final class CallSites {

    /** The most released bytes a thread keeps unpublished per site. */
    static final long DEBT_LIMIT = ThreadCache.MAX_LENGTH;

    /** The id of allocations that name no call site (the API, benchmarks). */
    public static final int UNATTRIBUTED = 0;

    /**
     * What one call site asked for since the JVM started.
     *
     * @param peakLiveBytes the most bytes of this site's pool allocations live at once (see the class comment; its
     *     fallbacks are the JDK's buffers, counted in {@code fallbacks} and in the direct memory outside the pools)
     */
    public record Stats(String site, long count, long bytes, long liveBytes, long peakLiveBytes, long fallbacks) {}

    private static final class Site {
        final String name;
        /** Requests and bytes of threads that keep no counts of their own, or that ended. */
        final LongAdder count = new LongAdder();

        final LongAdder bytes = new LongAdder();
        final AtomicLong live = new AtomicLong();
        final AtomicLong peak = new AtomicLong();
        final LongAdder fallbacks = new LongAdder();

        Site(String name) {
            this.name = name;
        }
    }

    /**
     * One thread's requests, bytes and unpublished released bytes per site id, at
     * {@code [PAD + 3 id]}, {@code [PAD + 3 id + 1]}, {@code [PAD + 3 id + 2]}. Only the owner
     * writes (opaque), and it grows the array by publishing a copy; {@link #snapshot} reads. The
     * unused {@code PAD} elements at both ends keep two threads' counts off one cache line.
     */
    static final class ThreadCounts {
        static final VarHandle AT = MethodHandles.arrayElementVarHandle(long[].class);
        static final int COUNT = 0;
        static final int BYTES = 1;
        static final int DEBT = 2;
        static final int PAD = 8;

        final Thread owner;
        /**
         * Whether the thread keeps what it releases for its own next requests: not the pools'
         * release thread, which never asks for memory (its debts would stay for good).
         */
        final boolean keepsDebts;

        volatile long[] counts;

        ThreadCounts(Thread owner, boolean keepsDebts, int sites) {
            this.owner = owner;
            this.keepsDebts = keepsDebts;
            this.counts = new long[3 * sites + 2 * PAD];
        }

        /** The owner's array, grown to hold site {@code id}. */
        long[] forSite(int id) {
            long[] c = counts;
            if (PAD + 3 * id + 2 >= c.length - PAD) {
                c = Arrays.copyOf(c, 3 * (id + 8) + 2 * PAD);
                counts = c;
            }
            return c;
        }

        static long get(long[] c, int i) {
            return (long) AT.getOpaque(c, i);
        }

        static void set(long[] c, int i, long value) {
            AT.setOpaque(c, i, value);
        }
    }

    private volatile Site[] sites = {new Site("(unattributed)")};
    private final Map<String, Integer> ids = new HashMap<>();
    private final ThreadLocal<ThreadCounts> local = new ThreadLocal<>();
    /** Every thread's counts; replaced (copy on write) under this object's lock. */
    private volatile ThreadCounts[] threads = new ThreadCounts[0];

    /** The id of a call site, registering it on first sight. */
    public synchronized int register(String name) {
        Integer id = ids.get(name);
        if (id != null) {
            return id;
        }
        Site[] grown = Arrays.copyOf(sites, sites.length + 1);
        grown[sites.length] = new Site(name);
        ids.put(name, sites.length);
        sites = grown;
        return grown.length - 1;
    }

    private int idOf(int id) {
        return id >= 0 && id < sites.length ? id : UNATTRIBUTED;
    }

    /** The name of a call site: {@code class#method}. */
    public String name(int id) {
        return sites[idOf(id)].name;
    }

    void served(int id, int size) {
        served(id, size, null);
    }

    /**
     * Counts a request served by the pools; {@code known} is the calling thread's counts when the
     * caller has them at hand ({@link #ofCurrentThread}), null to look them up.
     */
    void served(int id, int size, ThreadCounts known) {
        id = idOf(id);
        Site s = sites[id];
        ThreadCounts mine = known != null ? known : mine();
        long rest = size;
        if (mine == null) {
            s.count.increment();
            s.bytes.add(size);
        } else {
            long[] c = mine.forSite(id);
            int at = ThreadCounts.PAD + 3 * id;
            ThreadCounts.set(c, at + ThreadCounts.COUNT, ThreadCounts.get(c, at + ThreadCounts.COUNT) + 1);
            ThreadCounts.set(c, at + ThreadCounts.BYTES, ThreadCounts.get(c, at + ThreadCounts.BYTES) + size);
            long debt = ThreadCounts.get(c, at + ThreadCounts.DEBT);
            if (debt > 0) {
                long taken = Math.min(debt, rest);
                ThreadCounts.set(c, at + ThreadCounts.DEBT, debt - taken);
                rest -= taken;
            }
        }
        if (rest > 0) {
            rise(s, rest);
        }
    }

    private static void rise(Site s, long bytes) {
        long live = s.live.addAndGet(bytes);
        long peak;
        while (live > (peak = s.peak.get()) && !s.peak.compareAndSet(peak, live)) {
            Thread.onSpinWait();
        }
    }

    void fellBack(int id, int size) {
        failed(id, size);
        sites[idOf(id)].fallbacks.increment();
    }

    /** Counts a request no pool served ({@code on_exhausted: fail}): asked for, never live. */
    void failed(int id, int size) {
        Site s = sites[idOf(id)];
        s.count.increment();
        s.bytes.add(size);
    }

    void released(int id, int size) {
        released(id, size, null);
    }

    /**
     * Counts released bytes ({@code size}: one release, or the sum of several at one site);
     * {@code known} as for {@link #served(int, int, ThreadCounts)}.
     */
    void released(int id, long size, ThreadCounts known) {
        id = idOf(id);
        ThreadCounts mine = size > DEBT_LIMIT ? null : known != null ? known : mine();
        if (mine != null && mine.keepsDebts) {
            long[] c = mine.forSite(id);
            int at = ThreadCounts.PAD + 3 * id + ThreadCounts.DEBT;
            long debt = ThreadCounts.get(c, at);
            if (debt + size <= DEBT_LIMIT) {
                ThreadCounts.set(c, at, debt + size);
                return;
            }
        }
        sites[id].live.addAndGet(-size);
    }

    /** What a virtual thread finds in {@link #local}: it counts in the shared counters. */
    private static final ThreadCounts SHARED = new ThreadCounts(null, false, 0);

    /** The current thread's counts, registered on first use; null for a virtual thread. */
    private ThreadCounts mine() {
        ThreadCounts mine = local.get();
        if (mine == null) {
            mine = register();
        }
        return mine == SHARED ? null : mine;
    }

    /**
     * The current thread's counts, registered on first use, for a caller to keep and hand back to
     * {@link #served(int, int, ThreadCounts)} and {@link #released(int, int, ThreadCounts)} on the
     * same thread, saving their lookup; null for a virtual thread.
     */
    ThreadCounts ofCurrentThread() {
        return mine();
    }

    /** Registers the current thread's counts, first folding in (and dropping) those of threads that ended. */
    private synchronized ThreadCounts register() {
        Thread t = Thread.currentThread();
        if (!Threads.isPlatform(t)) {
            local.set(SHARED);
            return SHARED;
        }
        List<ThreadCounts> kept = new ArrayList<>(threads.length + 1);
        for (ThreadCounts tc : threads) {
            if (tc.owner.isAlive()) {
                kept.add(tc);
                continue;
            }
            long[] c = tc.counts;
            for (int id = 0; ThreadCounts.PAD + 3 * id + 2 < c.length - ThreadCounts.PAD && id < sites.length; id++) {
                Site s = sites[id];
                int at = ThreadCounts.PAD + 3 * id;
                s.count.add(c[at + ThreadCounts.COUNT]);
                s.bytes.add(c[at + ThreadCounts.BYTES]);
                s.live.addAndGet(-c[at + ThreadCounts.DEBT]);
            }
        }
        ThreadCounts mine = new ThreadCounts(t, t != Releaser.thread(), sites.length);
        kept.add(mine);
        threads = kept.toArray(new ThreadCounts[0]);
        local.set(mine);
        return mine;
    }

    /** Sites that asked for anything, in registration order. */
    public synchronized List<Stats> snapshot() {
        Site[] all = sites;
        long[] sum = new long[3 * all.length];
        for (ThreadCounts tc : threads) {
            long[] c = tc.counts;
            for (int i = 0; i < Math.min(c.length - 2 * ThreadCounts.PAD, sum.length); i++) {
                sum[i] += ThreadCounts.get(c, ThreadCounts.PAD + i);
            }
        }
        List<Stats> out = new ArrayList<>();
        for (int id = 0; id < all.length; id++) {
            Site s = all[id];
            long count = s.count.sum() + sum[3 * id + ThreadCounts.COUNT];
            if (count > 0) {
                long live = Math.max(0, s.live.get() - sum[3 * id + ThreadCounts.DEBT]);
                long bytes = s.bytes.sum() + sum[3 * id + ThreadCounts.BYTES];
                out.add(new Stats(s.name, count, bytes, live, s.peak.get(), s.fallbacks.sum()));
            }
        }
        return out;
    }
}
