package dev.pools.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A capped pool that is full only of unreachable buffers must serve, never refuse or fall back:
 * the exhausted path collects and waits until every buffer the collection found is back in its
 * pool (the release thread's batch included). One page that holds one buffer; each buffer is
 * dropped before the next is asked for, so every request after the first needs the collector.
 */
class ExhaustionTest {

    private static final int MIB = 1 << 20;
    private static final int RUNS = 10;
    private static final int BUFFERS = 20;

    @ParameterizedTest(name = "on_exhausted fail = {0}")
    @ValueSource(booleans = {true, false})
    void a_full_pool_of_unreachable_buffers_serves_every_request(boolean fail) {
        for (int run = 0; run < RUNS; run++) {
            PoolAllocator pools = new PoolAllocator(
                    List.of(new PoolSpec.Sliced(32 * MIB, 32 * MIB, 1)),
                    new PoolAllocator.Options(false, fail),
                    AllocationListener.NONE,
                    new CallSites());
            for (int i = 0; i < BUFFERS; i++) {
                ByteBuffer b = pools.allocate(30 * MIB, 0);
                b.put(0, (byte) 1); // used, then dropped
            }
            Usage usage = pools.usage();
            assertEquals(0, usage.fallbackAllocs(), "run " + run + ": fallbacks");
            // Every request after the first found the page full of the buffer just dropped and had the
            // pools collect, unless the collector happened to run in between.
            assertTrue(pools.collections() >= 1 && pools.collections() <= BUFFERS - 1, "run " + run + ": collections");
            assertTrue(pools.collectionNanos() > 0, "run " + run + ": time in collections");
            pools.cleanup();
        }
    }
}
