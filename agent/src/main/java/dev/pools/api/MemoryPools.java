package dev.pools.api;

import dev.pools.agent.PoolsRuntime;
import dev.pools.memory.PoolReport;
import dev.pools.memory.Usage;
import java.util.List;

/**
 * The pools of this JVM, as the agent ({@code -javaagent:pools.jar}) runs them. Compile against
 * {@code pools.jar} with {@code provided} scope; without the agent, {@link #install} refuses with
 * {@link InstallMemoryPoolsException.Kind#UNSUPPORTED}, {@link #reports()} is empty and
 * {@link #usage()} is all zero.
 */
public final class MemoryPools {

    private MemoryPools() {
    }

    /** Whether a pools agent serves this JVM's tensor memory. */
    public static boolean isAvailable() {
        return PoolsRuntime.current() != null;
    }

    /**
     * Replaces the layout. Refused, keeping the previous one, while the pools hold live allocations
     * ({@code POOLS_IN_USE}, transient), or for a layout that cannot be honoured ({@code INVALID_LAYOUT}).
     * The new pools start with fresh marks ({@code pagesPeak}, {@code largestAlloc}).
     */
    public static void install(MemoryPoolLayout layout) throws InstallMemoryPoolsException {
        PoolsRuntime r = PoolsRuntime.current();
        if (r == null) {
            throw InstallMemoryPoolsException.unsupported();
        }
        r.install(layout, PoolsRuntime.Source.API);
    }

    /** One report per pool, in layout order. */
    public static List<SlicedPoolReport> reports() {
        PoolsRuntime r = PoolsRuntime.current();
        if (r == null) {
            return List.of();
        }
        return r.allocator().reports().stream().map(MemoryPools::report).toList();
    }

    /** The pools' state as a whole. */
    public static MemoryPoolUsage usage() {
        PoolsRuntime r = PoolsRuntime.current();
        if (r == null) {
            return new MemoryPoolUsage(0, 0, 0, 0);
        }
        Usage u = r.allocator().usage();
        return new MemoryPoolUsage(u.numberAllocs(), u.bytesInUse(), u.bytesPadding(), u.bytesReserved());
    }

    /** Releases buffers already found unreachable and gives every empty page back to the JDK. */
    public static void cleanup() {
        PoolsRuntime r = PoolsRuntime.current();
        if (r != null) {
            r.allocator().cleanup();
        }
    }

    static SlicedPoolReport report(PoolReport p) {
        return new SlicedPoolReport(p.pageSize(), p.pages(), p.pagesPeak(), p.largestAlloc());
    }
}
