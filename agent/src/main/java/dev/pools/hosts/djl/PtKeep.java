package dev.pools.hosts.djl;

import java.nio.ByteBuffer;
import java.util.ArrayList;

/**
 * Holds the buffers of arrays closed during a gradient collection until backward has read what
 * autograd saved (see {@link Djl}). Called by {@code PtGradientCollector} after its constructor, after
 * {@code backward(NDArray)} and after {@code close()}, and by {@code PtNDArray} at the start of
 * {@code close()} and {@code set(Buffer)}, while the array still holds its buffer.
 *
 * <p>DJL lets one collector collect at a time, across all threads; an array closed on any thread
 * while it is open is held. What is held goes when a backward pass returns (the graph it went
 * through is freed then: DJL's backward keeps no graph) or when the collector closes, so a program
 * that runs many steps in one collector holds one step's arrays at most. A backward that throws
 * leaves them held until the next one returns or the collector closes.
 *
 * <p>Only ever holds: any failure here (a full heap) leaves the array as DJL made it, with its
 * memory left to the collector as without this. Never throws into DJL.
 */
public final class PtKeep {

    private static final Object LOCK = new Object();

    /** Whether a collector is open: read first by every close, without the lock. */
    private static volatile boolean collecting;

    /** The buffers held since the collector opened or the last backward returned. Guarded by {@link #LOCK}. */
    private static ArrayList<ByteBuffer> held = new ArrayList<>();

    private PtKeep() {}

    /** An array lets go of {@code buffer} (its {@code dataRef}, null for memory libtorch made). */
    public static void letGo(ByteBuffer buffer) {
        if (buffer == null || !collecting) {
            return;
        }
        try {
            synchronized (LOCK) {
                if (collecting) {
                    held.add(buffer);
                }
            }
        } catch (Throwable t) {
            // Not held: left to the collector, as without the agent.
        }
    }

    /** A collector opened. */
    public static void collecting() {
        collecting = true;
    }

    /** A backward pass returned: what it read may go. */
    public static void backwardDone() {
        drop();
    }

    /** The collector closed. */
    public static void collected() {
        collecting = false;
        drop();
    }

    /** How many buffers are held now; for tests. */
    static int held() {
        synchronized (LOCK) {
            return held.size();
        }
    }

    private static void drop() {
        synchronized (LOCK) {
            int n = held.size();
            held.clear();
            if (n > 1024) {
                try {
                    held = new ArrayList<>(); // not the long array of a large step
                } catch (Throwable t) {
                    // A full heap: the cleared one stays.
                }
            }
        }
    }
}
