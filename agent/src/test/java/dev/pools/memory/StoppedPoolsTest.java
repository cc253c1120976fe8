package dev.pools.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.pools.api.InstallMemoryPoolsException;
import dev.pools.it.apps.AtTheStackEnd;
import java.nio.ByteBuffer;
import java.util.ArrayList;
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

    private static PoolAllocator pools() {
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
        assertTrue(pools.release(pools.allocate(KIB, 0))); // in this thread's cache
        long reserved = pools.usage().bytesReserved();
        // The drain has taken the cache's slot, and not yet given the slice back to the free slices.
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

    /**
     * Requests at every depth near the end of a thread's stack, as a host that recurses deep and
     * catches the error makes them: wherever the error strikes, the pools either go on whole (their
     * invariants hold) or stop, and no buffer handed out before or after shares memory with another
     * or comes out dirty.
     */
    @Test
    void requests_at_the_end_of_a_threads_stack_never_leave_the_pools_half_changed() throws Exception {
        PoolAllocator pools = new PoolAllocator(
                List.of(
                        new PoolSpec.Sliced(64 * KIB, 4 * KIB, PoolSpec.UNCAPPED),
                        new PoolSpec.Sliced(1024 * KIB, 256 * KIB, PoolSpec.UNCAPPED)),
                PoolAllocator.Options.DEFAULT,
                AllocationListener.NONE,
                new CallSites());
        Deep deep = new Deep(pools);
        Thread t = new Thread(null, deep, "deep", 256 * KIB);
        t.start();
        t.join();
        assertNull(deep.failure, () -> String.valueOf(deep.failure));
        assertTrue(deep.overflows > 0, "the recursion reached the end of the stack");

        if (pools.stoppedBy() == null) {
            pools.checkInvariants();
        } else {
            assertInstanceOf(StackOverflowError.class, pools.stoppedBy());
        }
        List<ByteBuffer> later = new ArrayList<>();
        for (int i = 0; i < 500; i++) {
            ByteBuffer b = pools.allocate(AtTheStackEnd.SIZES[i % AtTheStackEnd.SIZES.length], 0);
            for (int at = 0; at + 8 <= b.capacity(); at += 8) {
                assertEquals(0, b.getLong(at), "handed out dirty");
            }
            AtTheStackEnd.fill(b, 1_000_000 + i);
            later.add(b);
        }
        int kept = 0;
        for (AtTheStackEnd.Kept k : deep.ring) {
            if (k != null) {
                kept++;
                assertTrue(AtTheStackEnd.holds(k.buffer(), k.id()), "a buffer kept from the recursion changed");
            }
        }
        assertTrue(kept > 0);
        for (int i = 0; i < later.size(); i++) {
            assertTrue(AtTheStackEnd.holds(later.get(i), 1_000_000 + i), "a later buffer changed");
        }
        if (pools.stoppedBy() == null) {
            pools.checkInvariants();
        }
    }

    /** Recurses to the end of its stack, and asks the pools for memory at every depth on the way back. */
    private static final class Deep implements Runnable {
        final PoolAllocator pools;
        /** The buffers kept, each filled whole before it is stored: one store, which no overflow splits. */
        final AtTheStackEnd.Kept[] ring = new AtTheStackEnd.Kept[200];

        int overflows;
        int next;
        Throwable failure;

        Deep(PoolAllocator pools) {
            this.pools = pools;
        }

        @Override
        public void run() {
            try {
                for (int round = 0; round < 20; round++) {
                    down(0);
                }
            } catch (Throwable e) {
                failure = e;
            }
        }

        private void down(int depth) {
            try {
                down(depth + 1);
            } catch (StackOverflowError e) {
                overflows++;
            }
            try {
                int id = next++;
                ByteBuffer b = pools.allocate(AtTheStackEnd.SIZES[id % AtTheStackEnd.SIZES.length], 0);
                if (id % 8 == 0) {
                    AtTheStackEnd.fill(b, id);
                    AtTheStackEnd.Kept k = new AtTheStackEnd.Kept(b, id);
                    ring[(id / 8) % ring.length] = k;
                }
            } catch (StackOverflowError e) {
                overflows++;
            }
        }
    }
}
