package dev.pools.hosts.djl;

import dev.pools.memory.DirectMemory;
import dev.pools.memory.Holds;
import java.lang.ref.WeakReference;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;

/**
 * Holds the buffers of arrays closed during a gradient collection until the collection ends, so that
 * backward never reads memory handed to other arrays (see {@link Djl}). Called by {@code
 * PtGradientCollector} after its constructor and after {@code close()}, and by {@code PtNDArray} at
 * the start of {@code close()} and {@code set(Buffer)}, while the array still holds its buffer.
 *
 * <p>DJL lets one collector collect at a time, across all threads; an array closed on any thread while
 * it is open is held. Not only until a backward pass: a collector may hold several graphs built before
 * their backward passes (a loss per graph, each with its own backward), and a graph that went
 * through backward does not say which of the held buffers were its own. What is held goes:
 * <ul>
 *   <li>when the collector closes;</li>
 *   <li>when it is found dropped without {@code close()} (an exception on a path without
 *       try-with-resources): held only weakly here, it is then gone at the next array's close after a
 *       collection, and no backward can come through it any more;</li>
 *   <li>past {@link #mostBytes()} (a quarter of the JDK's direct memory limit), the oldest first: a
 *       collection that runs very many steps (one collector for a whole training) then holds that
 *       much at most, and what is let go is left to the collector, as without the agent;</li>
 *   <li>all of it, when a request would otherwise fail, before the pools collect once more
 *       ({@link Holds}): a hold never makes an {@code OutOfMemoryError} the host would not have had.</li>
 * </ul>
 *
 * <p>Only ever holds: any failure here (a full heap) leaves the array as DJL made it, with its memory
 * left to the collector as without this. Never throws into DJL.
 */
public final class PtKeep {

    private static final Object LOCK = new Object();

    /** Whether a collector is open: read first by every close, without the lock. */
    private static volatile boolean collecting;

    /** The open collector, weakly. Guarded by {@link #LOCK}. */
    private static WeakReference<Object> collector;

    /** The buffers held, oldest first, and their bytes. Guarded by {@link #LOCK}. */
    private static ArrayDeque<ByteBuffer> held = new ArrayDeque<>();

    private static long heldBytes;

    private static long mostBytes;

    /** Times the pools had this let go of what it held ({@link Holds}); for tests. */
    private static long letGoForPools;

    static {
        try {
            Holds.add(new ForPools());
        } catch (Throwable t) {
            // Not added (a full heap): the holds then wait for the collector's close, as before.
        }
    }

    private PtKeep() {}

    /**
     * A request would otherwise fail: what is held goes now, before the pools collect once more. A host
     * at its direct memory limit then gets its memory, as it does from the JDK without the agent,
     * and a backward may read what the next arrays wrote, as it may without the agent; the
     * collection stays open, and arrays closed after this are held again.
     */
    static final class ForPools implements Holds.Holder {
        @Override
        public boolean letGo() {
            synchronized (LOCK) {
                if (held.isEmpty()) {
                    return false;
                }
                held.clear();
                heldBytes = 0;
                letGoForPools++;
                return true;
            }
        }
    }

    /** An array lets go of {@code buffer} (its {@code dataRef}, null for memory libtorch made). */
    public static void letGo(ByteBuffer buffer) {
        if (buffer == null || !collecting) {
            return;
        }
        try {
            synchronized (LOCK) {
                if (!collecting) {
                    return;
                }
                if (collector == null || collector.get() == null) {
                    end(); // dropped without close(): nothing can read through it any more
                    return;
                }
                held.addLast(buffer);
                heldBytes += buffer.capacity();
                while (heldBytes > mostBytes && held.size() > 1) {
                    heldBytes -= held.removeFirst().capacity();
                }
            }
        } catch (Throwable t) {
            // Not held: left to the collector, as without the agent.
        }
    }

    /** A collector opened. */
    public static void collecting(Object opened) {
        try {
            collecting(opened, mostBytes());
        } catch (Throwable t) {
            // Not collecting here: arrays closed in it are left to the collector, as without the agent.
        }
    }

    /** {@link #collecting(Object)} holding at most {@code most} bytes. */
    static void collecting(Object opened, long most) {
        try {
            WeakReference<Object> ref = new WeakReference<>(opened);
            synchronized (LOCK) {
                end();
                mostBytes = most;
                collector = ref;
                collecting = true;
            }
        } catch (Throwable t) {
            // Not collecting here: arrays closed in it are left to the collector, as without the agent.
        }
    }

    /** A collector closed; another's close (a second close of an old one) ends nothing. */
    public static void collected(Object closed) {
        synchronized (LOCK) {
            if (collector != null && collector.get() == closed) {
                end();
            }
        }
    }

    /** The most this holds: a quarter of the JDK's direct memory limit, at least 64 MiB. */
    static long mostBytes() {
        long limit;
        try {
            limit = DirectMemory.limit();
        } catch (RuntimeException | LinkageError e) {
            limit = Long.MAX_VALUE;
        }
        return Math.max(64L << 20, limit / 4);
    }

    /** How many times the pools had the holds let go; for tests. */
    static long letGoForPools() {
        synchronized (LOCK) {
            return letGoForPools;
        }
    }

    /** How many buffers are held now; for tests. */
    static int held() {
        synchronized (LOCK) {
            return held.size();
        }
    }

    private static void end() {
        collecting = false;
        collector = null;
        int n = held.size();
        held.clear();
        heldBytes = 0;
        if (n > 1024) {
            try {
                held = new ArrayDeque<>(); // not the long array of a large collection
            } catch (Throwable t) {
                // A full heap: the cleared one stays.
            }
        }
    }
}
