package dev.pools.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.pools.api.InstallMemoryPoolsException;
import java.nio.ByteBuffer;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * An error that comes out of the pools in the middle of a change (a {@code StackOverflowError} of a
 * request made at the end of its thread's stack) stops them: nothing is taken from them or given
 * back to them after it, and every request is the JDK's. Before, the half-made change stayed: a
 * free slice split with no lease, a tree with stale lengths or a node missing. Later requests failed
 * inside the pools, the release thread lost the leases it had claimed, and a review's deep recursion
 * ended in a crash (a zeroing written to memory the pools no longer held).
 */
@ExtendWith(DirtyFreshPages.class) // fresh pages hold a pattern: a fresh buffer that missed its zeroing shows
class StoppedPoolsTest {

    private static final int KIB = 1024;

    /** One uncapped sliced pool of 64 KiB pages, slices up to 4 KiB, under {@code on_exhausted: fail}. */
    static PoolAllocator pools() {
        return new PoolAllocator(
                List.of(new PoolSpec.Sliced(64 * KIB, 4 * KIB, PoolSpec.UNCAPPED)),
                new PoolAllocator.Options(false, true),
                AllocationListener.NONE,
                new CallSites());
    }

    @Test
    void an_error_in_the_middle_of_a_change_stops_the_pools_and_nothing_is_taken_or_given_back_after()
            throws Exception {
        PoolAllocator pools = pools();
        ByteBuffer held = pools.allocate(KIB, 0);
        held.putLong(0, 0x1234_5678_9ABC_DEF0L);
        long reserved = pools.usage().bytesReserved();
        Stops.stop(pools); // the drain has taken the cache's slot, and not yet given the slice back

        ByteBuffer after = pools.allocate(KIB, 0); // under on_exhausted: fail, not refused either
        assertFalse(PoolAllocator.isPoolMemory(after), "served by the JDK");
        assertEquals(KIB, after.capacity());
        assertEquals(1, pools.usage().fallbackAllocs());
        assertEquals(KIB, pools.usage().fallbackBytes());

        assertFalse(pools.release(held), "nothing is given back to stopped pools");
        assertEquals(0x1234_5678_9ABC_DEF0L, held.getLong(0));
        assertEquals(0, pools.cleanup(), "no page is given back");
        assertEquals(reserved, pools.usage().bytesReserved());
        InstallMemoryPoolsException refused = assertThrows(
                InstallMemoryPoolsException.class,
                () -> pools.install(List.of(new PoolSpec.Sliced(64 * KIB, 4 * KIB, PoolSpec.UNCAPPED))));
        assertEquals(InstallMemoryPoolsException.Kind.UNAVAILABLE, refused.kind());
        assertTrue(
                refused.getMessage().startsWith(PoolAllocator.STOPPED + "java.lang.StackOverflowError"),
                refused.getMessage());
    }

    @Test
    void a_full_heap_in_a_change_does_not_stop_the_pools() {
        PoolAllocator pools = pools();
        assertTrue(pools.release(pools.allocate(KIB, 0)));
        SlicingPool.afterSlotsTaken = () -> {
            SlicingPool.afterSlotsTaken = null;
            throw new OutOfMemoryError("Java heap space");
        };
        try {
            assertThrows(OutOfMemoryError.class, pools::cleanup);
        } finally {
            SlicingPool.afterSlotsTaken = null;
        }
        assertNull(pools.stoppedBy());
        assertTrue(PoolAllocator.isPoolMemory(pools.allocate(KIB, 0)));
    }
}
