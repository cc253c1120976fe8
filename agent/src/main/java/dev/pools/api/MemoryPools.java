package dev.pools.api;

import java.util.List;

/**
 * The pools of this JVM, as the agent ({@code -javaagent:pools.jar}) runs them. Compile against
 * {@code pools.jar} with {@code provided} scope; without the agent, {@link #install} refuses with
 * {@link InstallMemoryPoolsException.Kind#UNSUPPORTED}, {@link #reports()} is empty and
 * {@link #usage()} is all zero.
 *
 * <p>This package depends on no other package of pools: the agent connects its {@link Backend}
 * when it starts, so that the public face stays the one thing every other part may use.
 */
public final class MemoryPools {

    /** What the agent provides behind this class. Not for applications: the agent connects it at start. */
    public interface Backend {
        void install(MemoryPoolLayout layout) throws InstallMemoryPoolsException;

        List<SlicedPoolReport> reports();

        MemoryPoolUsage usage();

        void cleanup();
    }

    private static volatile Backend backend;

    private MemoryPools() {}

    /**
     * Connects the agent's backend; called once by the agent when it starts. A second call is
     * refused, so that nothing can take the pools' place once they run.
     */
    public static synchronized void connect(Backend agent) {
        if (backend != null) {
            throw new IllegalStateException("the pools' backend is connected already");
        }
        backend = agent;
    }

    /** Whether a pools agent serves this JVM's tensor memory. */
    public static boolean isAvailable() {
        return backend != null;
    }

    /**
     * Replaces the layout. Refused, keeping the previous one, while the pools hold live allocations
     * ({@code POOLS_IN_USE}, transient), or for a layout that cannot be honoured ({@code INVALID_LAYOUT}).
     * The new pools start with fresh marks ({@code pagesPeak}, {@code largestAlloc}).
     */
    public static void install(MemoryPoolLayout layout) throws InstallMemoryPoolsException {
        Backend b = backend;
        if (b == null) {
            throw InstallMemoryPoolsException.unsupported();
        }
        b.install(layout);
    }

    /** One report per pool, in layout order. */
    public static List<SlicedPoolReport> reports() {
        Backend b = backend;
        return b == null ? List.of() : b.reports();
    }

    /** The pools' state as a whole. */
    public static MemoryPoolUsage usage() {
        Backend b = backend;
        return b == null ? new MemoryPoolUsage(0, 0, 0, 0) : b.usage();
    }

    /** Releases buffers already found unreachable and gives every empty page back to the JDK. */
    public static void cleanup() {
        Backend b = backend;
        if (b != null) {
            b.cleanup();
        }
    }
}
