package dev.pools.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.Buffer;
import java.nio.ByteBuffer;
import java.nio.FloatBuffer;
import java.util.List;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * A slice goes back to its pool only when no buffer that points into it is reachable: the buffer
 * handed out and every view made from it (HOSTS.md §3, "reachability is the hazard").
 */
class ReachabilityTest {

    private final PoolAllocator pools =
            new PoolAllocator(List.of(new PoolSpec.Sliced(1 << 20, 1 << 20, PoolSpec.UNCAPPED)));

    /** Allocates, keeps only {@code view}'s result, and lets the original buffer go out of reach. */
    private <V extends Buffer> V onlyAView(Function<ByteBuffer, V> view, long[] address) {
        ByteBuffer original = pools.allocate(4096, 0);
        address[0] = PoolAllocator.addressOf(original);
        return view.apply(original);
    }

    private static void collect() throws InterruptedException {
        for (int i = 0; i < 5; i++) {
            System.gc();
            Thread.sleep(20);
        }
    }

    private boolean releasedWithin(long millis) throws InterruptedException {
        return releasedWithin(millis, 0);
    }

    /** Whether, within {@code millis}, the pools get back everything but {@code stillLive} allocations. */
    private boolean releasedWithin(long millis, long stillLive) throws InterruptedException {
        long deadline = System.nanoTime() + millis * 1_000_000;
        while (System.nanoTime() < deadline) {
            System.gc();
            Releaser.drainNow();
            if (pools.usage().numberAllocs() == stillLive) {
                return true;
            }
            Thread.sleep(10);
        }
        return false;
    }

    @Test
    void a_float_view_keeps_its_slice_reserved_after_the_original_is_dropped() throws InterruptedException {
        checkView(b -> b.asFloatBuffer());
    }

    @Test
    void a_duplicate_keeps_its_slice_reserved() throws InterruptedException {
        checkView(ByteBuffer::duplicate);
    }

    @Test
    void a_slice_of_the_buffer_keeps_its_slice_reserved() throws InterruptedException {
        checkView(b -> b.position(1024).slice());
    }

    @Test
    void a_view_of_a_view_keeps_its_slice_reserved() throws InterruptedException {
        checkView(b -> b.asReadOnlyBuffer().asLongBuffer().duplicate());
    }

    private void checkView(Function<ByteBuffer, Buffer> makeView) throws InterruptedException {
        long[] address = new long[1];
        Buffer view = onlyAView(makeView, address);
        collect();
        Releaser.drainNow();
        assertEquals(1, pools.usage().numberAllocs(), "the view still points into the slice: it stays reserved");
        ByteBuffer other = pools.allocate(4096, 0);
        assertNotEquals(address[0], PoolAllocator.addressOf(other), "a reserved slice is not handed out again");
        assertTrue(view.capacity() > 0);

        view = null;
        assertTrue(releasedWithin(10_000, 1), "once the view is unreachable too, the slice is released");
        assertEquals(1, pools.collectorReleases());
        pools.checkInvariants();
        ByteBuffer again = pools.allocate(4096, 0);
        assertEquals(address[0], PoolAllocator.addressOf(again), "the released slice is the first fit again");
        // Released only now: released earlier, it would be in this thread's cache and serve the request above.
        assertTrue(pools.release(other));
    }

    @Test
    void views_write_into_the_slice_and_read_back_after_collections() throws InterruptedException {
        long[] address = new long[1];
        FloatBuffer floats = onlyAView(b -> b.asFloatBuffer(), address);
        for (int i = 0; i < floats.capacity(); i++) {
            floats.put(i, i * 0.5f);
        }
        collect();
        Releaser.drainNow();
        for (int i = 0; i < 16; i++) {
            pools.allocate(4096, 0).putLong(0, -1L);
        }
        for (int i = 0; i < floats.capacity(); i++) {
            assertEquals(i * 0.5f, floats.get(i), "float " + i + " kept its value");
        }
    }
}
