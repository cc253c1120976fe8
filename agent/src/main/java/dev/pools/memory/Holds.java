package dev.pools.memory;

import java.util.Arrays;

/**
 * Memory a host folder holds past the host's own release, for its readers' sake (DJL's arrays closed
 * during a gradient collection, which autograd may still read): let go when a request would
 * otherwise fail (the JDK refused its fallback at the direct memory limit; under {@code
 * on_exhausted: fail}, the pools' collections found no room), and the pools collect once more. A hold is a safety the host does not have without
 * the agent; it must never become an {@code OutOfMemoryError} the host would not have had without
 * it (a review: a collector kept open at a direct memory limit of 64 MiB, where DJL alone frees the
 * closed arrays at the limit).
 */
public final class Holds {

    /** What a host folder holds. */
    public interface Holder {

        /** Lets go of everything held now; whether anything was. Never throws. */
        boolean letGo();
    }

    private static volatile Holder[] holders = new Holder[0];

    private Holds() {}

    /** Adds {@code holder}, once. */
    public static synchronized void add(Holder holder) {
        Holder[] now = holders;
        for (Holder h : now) {
            if (h == holder) {
                return;
            }
        }
        Holder[] more = new Holder[now.length + 1];
        System.arraycopy(now, 0, more, 0, now.length);
        more[now.length] = holder;
        holders = more;
    }

    /** Takes {@code holder} out; for tests. */
    static synchronized void remove(Holder holder) {
        Holder[] now = holders;
        Holder[] fewer = new Holder[now.length];
        int n = 0;
        for (Holder h : now) {
            if (h != holder) {
                fewer[n++] = h;
            }
        }
        holders = Arrays.copyOf(fewer, n);
    }

    /** Every holder lets go; whether any held something. */
    static boolean letGo() {
        boolean any = false;
        for (Holder h : holders) {
            try {
                any |= h.letGo();
            } catch (RuntimeException | Error e) {
                // A holder that cannot let go keeps what it holds; the request goes on without it.
            }
        }
        return any;
    }
}
