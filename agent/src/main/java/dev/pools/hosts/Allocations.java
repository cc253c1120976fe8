package dev.pools.hosts;

import dev.pools.log.Log;
import dev.pools.memory.PoolAllocator;
import java.nio.ByteBuffer;

/**
 * What an instrumented call site calls instead of {@code ByteBuffer.allocateDirect(int)} (see
 * {@link CallSiteRewriter}). It never throws anything the host would not get from the JDK itself.
 */
public final class Allocations {

    private static volatile PoolAllocator allocator;

    private Allocations() {}

    /** Routes instrumented call sites to {@code pools} from now on. */
    public static void routeTo(PoolAllocator pools) {
        allocator = pools;
    }

    /**
     * Stands in for {@code ByteBuffer.allocateDirect(capacity)} at call site {@code site}. Serves
     * from the pools; on any internal failure says so once and serves from the JDK.
     */
    public static ByteBuffer allocateDirect(int capacity, int site) {
        PoolAllocator pools = allocator;
        if (pools == null || capacity < 0) {
            return ByteBuffer.allocateDirect(capacity);
        }
        try {
            return pools.allocate(capacity, site);
        } catch (OutOfMemoryError e) {
            throw e; // on_exhausted: fail, or the JDK itself refusing the fallback: what the host asked for
        } catch (Throwable t) {
            Log.once("allocate", "an allocation failed inside the pools; serving from the JDK instead: " + t);
            return ByteBuffer.allocateDirect(capacity);
        }
    }

    /**
     * The same for a method reference ({@code ByteBuffer::allocateDirect}): the lambda captures the
     * site, its first argument, and is called with the capacity.
     */
    public static ByteBuffer allocateDirectAt(int site, int capacity) {
        return allocateDirect(capacity, site);
    }
}
