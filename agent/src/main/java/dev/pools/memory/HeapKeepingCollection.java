package dev.pools.memory;

import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;

/**
 * The collection the pools make for a full pool: {@code System.gc()}, without the side effect of
 * shrinking the Java heap.
 *
 * <p>Under G1 (and Serial), {@code System.gc()} is a full collection after which the heap gives back
 * every committed region beyond {@code MaxHeapFreeRatio} (70 %) of free space. The host never asked
 * for that collection; with the heap shrunk, it then collected more often for the rest of its run
 * (a Spark executor: 380 MiB committed before, 90 MiB after, 21 to 25 pauses a run instead of 16 to
 * 18; BENCHMARKS.md, B8). So while the pools' collection runs, {@code MaxHeapFreeRatio}, a manageable
 * flag, is 100 (shrink never), and it is set back to its value when the last concurrent collection
 * of the pools is done. Where the flag cannot be set (no {@code jdk.management}, another VM), it is a
 * plain {@code System.gc()}.
 */
final class HeapKeepingCollection {

    static final String FLAG = "MaxHeapFreeRatio";

    private static final Object LOCK = new Object();
    /** How many of the pools' collections are under way; the flag is restored when the last ends. */
    private static int running;
    /** The flag's value before the first of them, or null when it was left alone. */
    private static String saved;

    private static boolean unavailable;

    private HeapKeepingCollection() {}

    static void collect() {
        synchronized (LOCK) {
            if (running++ == 0) {
                saved = keep();
            }
        }
        try {
            System.gc();
        } finally {
            synchronized (LOCK) {
                if (--running == 0 && saved != null) {
                    set(saved);
                    saved = null;
                }
            }
        }
    }

    /** Sets the flag to 100; returns its value before, or null if it was left alone. */
    private static String keep() {
        if (unavailable) {
            return null;
        }
        try {
            String before = bean().getVMOption(FLAG).getValue();
            if ("100".equals(before)) {
                return null;
            }
            bean().setVMOption(FLAG, "100");
            return before;
        } catch (Throwable t) {
            unavailable = true;
            return null;
        }
    }

    private static void set(String value) {
        try {
            bean().setVMOption(FLAG, value);
        } catch (Throwable t) {
            unavailable = true;
        }
    }

    private static HotSpotDiagnosticMXBean bean() {
        return ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
    }
}
