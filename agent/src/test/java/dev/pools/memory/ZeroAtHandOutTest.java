package dev.pools.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A sliced pool's slice longer than {@link SlicingPool#ZEROED_AT_RELEASE} that the collector
 * released is left as the host wrote it, marked dirty, and zeroed whole by the allocation that takes
 * any of it, also merged with zeroed and fresh memory; a shorter one is zeroed by the release, and
 * under poisoning every release poisons at once.
 */
@ExtendWith(DirtyFreshPages.class) // fresh pages hold a pattern: a fresh buffer that missed its zeroing shows
class ZeroAtHandOutTest {

    private static final int KIB = 1024;
    private static final byte WRITTEN = 0x5A;

    /** Allocates a buffer of each size in turn, fills it with {@link #WRITTEN}, drops it; returns the addresses. */
    private static long[] writtenAndDropped(PoolAllocator pools, int... sizes) {
        long[] at = new long[sizes.length];
        for (int i = 0; i < sizes.length; i++) {
            ByteBuffer b = pools.allocate(sizes[i], 0);
            for (int j = 0; j < b.capacity(); j++) {
                b.put(j, WRITTEN);
            }
            at[i] = PoolAllocator.addressOf(b);
        }
        return at;
    }

    private static void releasedByTheCollector(PoolAllocator pools, long count) throws InterruptedException {
        releasedByTheCollector(pools, 0, count);
    }

    /** Collects until the pools hold {@code live} allocations and the collector released {@code count} in all. */
    static void releasedByTheCollector(PoolAllocator pools, long live, long count) throws InterruptedException {
        long deadline = System.nanoTime() + 20_000_000_000L;
        while (pools.usage().numberAllocs() > live && System.nanoTime() < deadline) {
            System.gc();
            Releaser.drainNow();
            Thread.sleep(10);
        }
        assertEquals(live, pools.usage().numberAllocs(), "the collector found the dropped buffers");
        assertEquals(count, pools.collectorReleases());
        pools.checkInvariants();
    }

    /** Bytes of pool memory at {@code address}, read through a buffer of no lease (the page is the pool's). */
    private static byte[] memoryAt(long address, int length) {
        ByteBuffer raw = NativeAccess.newBuffer(address, length, null);
        byte[] bytes = new byte[length];
        raw.get(0, bytes);
        return bytes;
    }

    private static void assertAll(byte expected, byte[] bytes, String what) {
        for (int i = 0; i < bytes.length; i++) {
            if (bytes[i] != expected) {
                throw new AssertionError(what + ": byte " + i + " is " + bytes[i] + ", expected " + expected);
            }
        }
    }

    @Test
    void a_long_slice_the_collector_released_is_zeroed_by_the_allocation_that_takes_it() throws Exception {
        PoolAllocator pools = new PoolAllocator(List.of(new PoolSpec.Sliced(1 << 20, 1 << 20, PoolSpec.UNCAPPED)));
        long[] at = writtenAndDropped(pools, 64 * KIB, 4 * KIB);
        assertEquals(at[0] + 64 * KIB, at[1], "first fit: the short slice right after the long one");
        releasedByTheCollector(pools, 2);

        assertAll((byte) 0, memoryAt(at[1], 4 * KIB), "the short slice, zeroed by its release");
        assertAll(WRITTEN, memoryAt(at[0], 64 * KIB), "the long slice, left for the allocation to zero");

        // One free slice now: 64 KiB dirty, 4 KiB zeroed, then fresh memory above the page's zeroed mark.
        ByteBuffer first = pools.allocate(4 * KIB, 0);
        assertEquals(at[0], PoolAllocator.addressOf(first), "first fit takes the front of the dirty slice");
        StressTest.checkZero(first);
        ByteBuffer across = pools.allocate(128 * KIB, 0);
        assertEquals(at[0] + 4 * KIB, PoolAllocator.addressOf(across));
        StressTest.checkZero(across); // dirty, then zeroed, then fresh: zero throughout
        pools.checkInvariants();

        // Released explicitly, a slice is zeroed at once again, dirty or not before.
        across.put(0, WRITTEN);
        long acrossAt = PoolAllocator.addressOf(across);
        assertTrue(pools.release(across));
        assertAll((byte) 0, memoryAt(acrossAt, 128 * KIB), "an explicit release zeroes");
        assertTrue(pools.release(first));
        pools.checkInvariants();
    }

    /**
     * A dirty slice merged into a zeroed free neighbour after it, and one merged into a zeroed free
     * neighbour before it: each merged slice is dirty, and the allocation taking it zeroes it. Slices
     * of 128 KiB, above what a thread's cache keeps, so that an explicit release frees at once.
     */
    @Test
    void merging_a_dirty_slice_with_a_zeroed_neighbour_keeps_the_merged_slice_dirty() throws Exception {
        PoolAllocator pools = new PoolAllocator(List.of(new PoolSpec.Sliced(1 << 20, 1 << 20, PoolSpec.UNCAPPED)));
        ByteBuffer kept = pools.allocate(4 * KIB, 0);
        long[] dirty = writtenAndDropped(pools, 128 * KIB);
        ByteBuffer zeroedAfter = pools.allocate(128 * KIB, 0);
        assertTrue(pools.release(zeroedAfter)); // free, zeroed, merged with the fresh rest of the page
        releasedByTheCollector(pools, 1, 1); // its only free neighbour is after it
        ByteBuffer again = pools.allocate(128 * KIB, 0);
        assertEquals(dirty[0], PoolAllocator.addressOf(again));
        StressTest.checkZero(again);

        ByteBuffer zeroedBefore = pools.allocate(128 * KIB, 0);
        long before = PoolAllocator.addressOf(zeroedBefore);
        long[] dirtyAfterIt = writtenAndDropped(pools, 128 * KIB);
        ByteBuffer fence = pools.allocate(4 * KIB, 0);
        assertEquals(before + 128 * KIB, dirtyAfterIt[0]);
        assertTrue(pools.release(zeroedBefore));
        releasedByTheCollector(pools, 3, 2); // its only free neighbour is before it
        ByteBuffer both = pools.allocate(256 * KIB, 0);
        assertEquals(before, PoolAllocator.addressOf(both));
        StressTest.checkZero(both);
        assertTrue(pools.release(both));
        assertTrue(pools.release(again));
        assertTrue(pools.release(fence));
        assertTrue(pools.release(kept));
        pools.checkInvariants();
    }

    @Test
    void a_run_made_in_a_dirty_slice_zeroes_each_slot_when_it_first_hands_it_out() throws Exception {
        PoolAllocator pools = new PoolAllocator(List.of(new PoolSpec.Sliced(1 << 20, 1 << 20, PoolSpec.UNCAPPED)));
        long[] at = writtenAndDropped(pools, 64 * KIB);
        ByteBuffer kept = pools.allocate(4 * KIB, 0); // keeps the page through the cleanup below
        assertEquals(at[0] + 64 * KIB, PoolAllocator.addressOf(kept));
        releasedByTheCollector(pools, 1, 1);
        assertAll(WRITTEN, memoryAt(at[0], 64 * KIB), "the long slice, left for the allocation to zero");

        // A run of 64 B slots takes the front 4 KiB of that dirty slice.
        List<ByteBuffer> slots = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            ByteBuffer b = pools.allocate(64, 0);
            assertEquals(at[0] + 64L * i, PoolAllocator.addressOf(b), "slot " + i + " of a run at the slice's front");
            StressTest.checkZero(b);
            slots.add(b);
        }
        assertAll(WRITTEN, memoryAt(at[0] + 3 * 64, 4 * KIB - 3 * 64), "slots not handed out yet, not zeroed yet");
        pools.checkInvariants();

        // Back by explicit release (this thread's cache), then drained by a cleanup: the run is freed
        // with slots never zeroed, so its room is dirty again and the next allocation zeroes it all.
        for (ByteBuffer b : slots) {
            assertTrue(pools.release(b));
        }
        pools.cleanup();
        pools.checkInvariants();
        ByteBuffer whole = pools.allocate(64 * KIB, 0);
        assertEquals(at[0], PoolAllocator.addressOf(whole));
        StressTest.checkZero(whole);
        assertTrue(pools.release(whole));
        assertTrue(pools.release(kept));
        pools.checkInvariants();
    }

    @Test
    void under_poisoning_the_collector_poisons_at_once_and_the_allocation_zeroes() throws Exception {
        PoolAllocator pools = new PoolAllocator(
                List.of(new PoolSpec.Sliced(1 << 20, 1 << 20, PoolSpec.UNCAPPED)),
                new PoolAllocator.Options(true, false),
                AllocationListener.NONE,
                new CallSites());
        long[] at = writtenAndDropped(pools, 64 * KIB);
        releasedByTheCollector(pools, 1);
        assertAll(PoolAllocator.POISON, memoryAt(at[0], 64 * KIB), "poisoned by the release");
        ByteBuffer again = pools.allocate(64 * KIB, 0);
        assertEquals(at[0], PoolAllocator.addressOf(again));
        StressTest.checkZero(again);
        assertTrue(pools.release(again));
    }
}
