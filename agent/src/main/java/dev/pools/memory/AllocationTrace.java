package dev.pools.memory;

/**
 * Every allocation and release, in order, for replaying a workload offline under other layouts.
 * Called on the allocating and releasing threads; implementations are thread-safe and never throw.
 */
public interface AllocationTrace {

    /**
     * A pool served {@code size} bytes for {@code site}, on the requesting thread (maybe from its
     * cache); returns the id its release will name.
     */
    long allocated(int size, int site);

    /**
     * The allocation {@code id} was released: by the collector (its buffer found unreachable), or
     * explicitly, on the releasing thread (whose cache may keep the room).
     */
    void released(long id, boolean byCollector);

    /** No pool could serve {@code size} bytes; the JDK did. */
    void fellBack(int size, int site);
}
