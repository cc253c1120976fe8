package dev.pools.memory;

import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Stops pools as a {@code StackOverflowError} in the middle of a change does: for tests of what follows a stop. */
public final class Stops {

    private Stops() {}

    /**
     * Stops {@code pools} (whose first pool slices, and whose thread caches are on) with an error
     * thrown after a drain of this thread's cache has taken its slot and before the slice is back.
     */
    public static void stop(PoolAllocator pools) {
        assertTrue(pools.release(pools.allocate(1024, 0)), "into this thread's cache");
        SlicingPool.afterSlotsTaken = () -> {
            SlicingPool.afterSlotsTaken = null;
            throw new StackOverflowError();
        };
        try {
            assertThrows(StackOverflowError.class, pools::cleanup);
        } finally {
            SlicingPool.afterSlotsTaken = null;
        }
        assertInstanceOf(StackOverflowError.class, pools.stoppedBy());
    }

    /**
     * Leaves pool 0's lock of {@code pools} held by a thread that ended, as a frame the JVM unwound at
     * a full heap leaves it (see {@code OwnedLock}): the next request that waits for it stops the pools.
     */
    public static void abandonLock(PoolAllocator pools) throws InterruptedException {
        OwnedLock lock = pools.lockOf(0);
        Thread leaver = new Thread(lock::lock, "leaver");
        leaver.start();
        leaver.join();
        assertTrue(lock.isLocked());
    }
}
