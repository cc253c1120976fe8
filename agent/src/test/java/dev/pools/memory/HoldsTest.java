package dev.pools.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What a host folder holds past the host's release ({@link Holds}) is let go before a request would
 * be refused, and the pools collect once more: a hold never becomes a refusal (or an {@code
 * OutOfMemoryError}) the host would not have had without it.
 */
class HoldsTest {

    private static final int KIB = 1024;

    /** Holds buffers as DJL's folder does while a gradient collection is open; lets go if asked, and may. */
    private static final class Holder implements Holds.Holder {
        final List<ByteBuffer> held = new ArrayList<>();
        final boolean lets;
        int asked;

        Holder(boolean lets) {
            this.lets = lets;
        }

        @Override
        public boolean letGo() {
            asked++;
            if (!lets || held.isEmpty()) {
                return false;
            }
            held.clear();
            return true;
        }
    }

    /** One capped sliced pool of one 64 KiB page, under {@code on_exhausted: fail}. */
    private static PoolAllocator onePage() {
        return new PoolAllocator(
                List.of(new PoolSpec.Sliced(64 * KIB, 64 * KIB, 1)),
                new PoolAllocator.Options(false, true),
                AllocationListener.NONE,
                new CallSites());
    }

    private static void holdOnePage(PoolAllocator pools, Holder holder) {
        holder.held.add(pools.allocate(64 * KIB, 0)); // the whole page, held by the holder alone
    }

    @Test
    void a_capped_pool_full_of_held_buffers_serves_after_the_holder_lets_go() {
        PoolAllocator pools = onePage();
        Holder holder = new Holder(true);
        Holds.add(holder);
        try {
            holdOnePage(pools, holder);
            ByteBuffer next = pools.allocate(64 * KIB, 0);
            assertTrue(PoolAllocator.isPoolMemory(next), "served from the pool");
            assertEquals(1, holder.asked, "asked once, after the collections found no room");
            assertEquals(0, pools.failedAllocs());
        } finally {
            Holds.remove(holder);
        }
    }

    /** The control: a holder that keeps what it holds leaves the request refused, as its hold is live. */
    @Test
    void a_holder_that_keeps_its_buffers_leaves_the_request_refused() {
        PoolAllocator pools = onePage();
        Holder holder = new Holder(false);
        Holds.add(holder);
        try {
            holdOnePage(pools, holder);
            assertThrows(OutOfMemoryError.class, () -> pools.allocate(64 * KIB, 0));
            assertEquals(1, holder.asked);
            assertEquals(1, pools.failedAllocs());
        } finally {
            Holds.remove(holder);
        }
    }
}
