package dev.pools.memory;

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
 * at class load). Counts and bytes are striped ({@link LongAdder}): many threads add to them at
 * once without contending. Live bytes are one atomic, so that their peak is exact; the peak itself
 * is written only when it rises.
 */
public final class CallSites {

    /** The id of allocations that name no call site (the API, benchmarks). */
    public static final int UNATTRIBUTED = 0;

    /**
     * What one call site asked for since the JVM started.
     *
     * @param peakLiveBytes the most bytes of this site's pool allocations live at once
     */
    public record Stats(String site, long count, long bytes, long liveBytes, long peakLiveBytes, long fallbacks) {}

    private static final class Site {
        final String name;
        final LongAdder count = new LongAdder();
        final LongAdder bytes = new LongAdder();
        final AtomicLong live = new AtomicLong();
        final AtomicLong peak = new AtomicLong();
        final LongAdder fallbacks = new LongAdder();

        Site(String name) {
            this.name = name;
        }
    }

    private volatile Site[] sites = {new Site("(unattributed)")};
    private final Map<String, Integer> ids = new HashMap<>();

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

    private Site site(int id) {
        Site[] s = sites;
        return id >= 0 && id < s.length ? s[id] : s[UNATTRIBUTED];
    }

    /** The name of a call site: {@code class#method}. */
    public String name(int id) {
        return site(id).name;
    }

    void served(int id, int size) {
        Site s = site(id);
        s.count.increment();
        s.bytes.add(size);
        long live = s.live.addAndGet(size);
        long peak;
        while (live > (peak = s.peak.get()) && !s.peak.compareAndSet(peak, live)) {
            Thread.onSpinWait();
        }
    }

    void fellBack(int id, int size) {
        Site s = site(id);
        s.count.increment();
        s.bytes.add(size);
        s.fallbacks.increment();
    }

    void released(int id, int size) {
        site(id).live.addAndGet(-size);
    }

    /** Sites that asked for anything, in registration order. */
    public List<Stats> snapshot() {
        List<Stats> out = new ArrayList<>();
        for (Site s : sites) {
            long count = s.count.sum();
            if (count > 0) {
                out.add(new Stats(s.name, count, s.bytes.sum(), s.live.get(), s.peak.get(), s.fallbacks.sum()));
            }
        }
        return out;
    }
}
