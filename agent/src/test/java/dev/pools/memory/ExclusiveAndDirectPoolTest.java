package dev.pools.memory;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import dev.pools.layout.Layouts;
import java.nio.ByteBuffer;
import java.util.List;
import org.junit.jupiter.api.Test;

class ExclusiveAndDirectPoolTest {

    static final int MIB = 1024 * 1024;

    private static PoolAllocator exclusive(long maxAlloc, long period) {
        return new PoolAllocator(List.of(new PoolSpec.Exclusive(maxAlloc, period)));
    }

    private static ExclusivePool pool(PoolAllocator a) {
        // The allocator's only pool; reached through a buffer it served.
        ByteBuffer probe = a.allocate(1, 0);
        ExclusivePool p = (ExclusivePool) ((Anchor) NativeAccess.attachment(probe)).lease.pool;
        a.release(probe);
        return p;
    }

    @Test
    void a_new_page_is_sized_from_the_running_average_and_counts_one_page_per_allocation() {
        PoolAllocator a = exclusive(MIB, 5000);
        ByteBuffer small = a.allocate(1000, 0);
        // avg = 0.99 * 512 KiB + 0.01 * 1000 = 519,050.88 -> page of roundUp(519,051) = 519,104 bytes
        assertEquals(519_104, a.usage().bytesReserved());
        ByteBuffer big = a.allocate(MIB, 0);
        assertEquals(
                519_104 + MIB, a.usage().bytesReserved(), "a request above the average gets a page of its own size");
        assertEquals(2, a.reports().get(0).pages());
        assertEquals(2, a.usage().numberAllocs());
        a.release(small);
        a.release(big);
        a.checkInvariants();
    }

    @Test
    void reuse_takes_the_fitting_free_page_with_the_lowest_free_count() {
        PoolAllocator a = exclusive(MIB, 10); // ages free pages every 2 reservations
        ExclusivePool pool = pool(a); // reservation 1: page S (small, free_count 4 -> 3 on reuse below)
        ByteBuffer p = a.allocate(MIB, 0); // 2: page P, tick (S is free: 4 -> 5, released)
        assertArrayEquals(new int[] {}, pool.freeCounts(), "S reached 5 at the tick and was released");
        ByteBuffer q = a.allocate(MIB, 0); // 3: page Q
        long qAddress = PoolAllocator.addressOf(q);
        a.release(q); // free [Q:4]
        q = a.allocate(MIB, 0); // 4: reuse Q -> 3, tick: nothing free
        a.release(q); // free [Q:3]
        q = a.allocate(MIB, 0); // 5: reuse Q -> 2
        a.release(q); // free [Q:2]
        a.release(p); // free [P:4, Q:2]
        assertArrayEquals(new int[] {4, 2}, pool.freeCounts());
        ByteBuffer r = a.allocate(MIB, 0); // 6: both fit; Q has the lower count -> Q (2 -> 1); tick: P 4 -> 5, released
        assertEquals(qAddress, PoolAllocator.addressOf(r));
        assertArrayEquals(new int[] {}, pool.freeCounts());
        assertEquals(1, a.reports().get(0).pages());
        assertEquals(2, a.reports().get(0).pagesPeak(), "S went at reservation 2, before Q came");
        a.checkInvariants();
    }

    @Test
    void free_pages_age_every_fifth_of_the_period_and_go_at_five() {
        PoolAllocator a = exclusive(MIB, 50); // ages every 10 reservations
        ExclusivePool pool = pool(a); // reservation 1: page S, released again: free [S:4]
        ByteBuffer[] held = new ByteBuffer[8];
        for (int i = 0; i < held.length; i++) {
            held[i] = a.allocate(MIB, 0); // reservations 2..9: too big for S, new pages
        }
        assertArrayEquals(new int[] {4}, pool.freeCounts());
        assertEquals(9, a.reports().get(0).pages());
        ByteBuffer tenth = a.allocate(MIB, 0); // reservation 10: tick, S 4 -> 5: released
        assertArrayEquals(new int[] {}, pool.freeCounts());
        assertEquals(9, a.reports().get(0).pages());
        for (ByteBuffer b : held) {
            a.release(b);
        }
        a.release(tenth);
        assertEquals(9, a.reports().get(0).pages(), "free pages wait for their period");
        assertEquals(9, a.cleanup(), "an explicit cleanup releases every free page");
        a.checkInvariants();
    }

    @Test
    void direct_pool_reuses_a_block_only_for_the_same_effective_size() {
        PoolAllocator a = new PoolAllocator(List.of(new PoolSpec.Direct()));
        ByteBuffer hundred = a.allocate(100, 0);
        long address = PoolAllocator.addressOf(hundred);
        a.release(hundred);
        ByteBuffer hundredTwenty = a.allocate(120, 0);
        assertEquals(address, PoolAllocator.addressOf(hundredTwenty), "100 B and 120 B both take 128 B");
        ByteBuffer other = a.allocate(129, 0);
        assertNotEquals(address, PoolAllocator.addressOf(other), "129 B takes 192 B: a new block");
        assertEquals(2, a.reports().get(0).pages(), "a direct pool reports live allocations as pages");
        assertEquals(0, a.reports().get(0).pageSize());
        assertEquals(128 + 192, a.usage().bytesReserved());
        a.release(other);
        assertEquals(128 + 192, a.usage().bytesReserved(), "freed blocks are kept for reuse");
        assertEquals(1, a.cleanup());
        assertEquals(128, a.usage().bytesReserved());
        assertEquals(2, a.reports().get(0).pagesPeak());
        assertEquals(129, a.reports().get(0).largestAlloc());
        a.checkInvariants();
    }

    private static void collectAndWait(PoolAllocator a) {
        // A full collection, then the allocator's own wait for the references and the release thread.
        System.gc();
        a.cleanup();
    }

    @Test
    void exclusive_and_direct_pools_take_back_buffers_the_collector_found_unreachable() {
        for (PoolAllocator a : List.of(exclusive(MIB, 5000), new PoolAllocator(List.of(new PoolSpec.Direct())))) {
            for (int i = 0; i < 10; i++) {
                a.allocate(100_000, 0).put(0, (byte) 1); // dropped at once
            }
            collectAndWait(a);
            assertEquals(0, a.usage().numberAllocs(), "every dropped buffer is released");
            assertEquals(0, a.usage().bytesInUse());
            assertEquals(10, a.collectorReleases());
            a.checkInvariants();
        }
    }

    @Test
    void a_request_retried_after_releases_or_a_collection_moves_the_running_average_once() {
        PoolAllocator a = exclusive(MIB, 5000);
        ExclusivePool p = pool(a);
        double before = p.average();
        Anchor first = p.reserve(1000, 0, false);
        assertEquals(0.99 * before + 0.01 * 1000, p.average(), 1e-6, "a new request updates the average");
        double after = p.average();
        Anchor retried = p.reserve(1000, 0, true);
        assertEquals(after, p.average(), "the same request, retried, does not");
        assertNotEquals(null, first);
        assertNotEquals(null, retried);
    }

    @Test
    void requests_larger_than_any_page_take_the_exhausted_path_in_every_layout() {
        int size = (int) Sizes.MAX_PAGE + 1;
        for (List<PoolSpec> layout : List.of(
                List.<PoolSpec>of(new PoolSpec.Direct()),
                List.<PoolSpec>of(new PoolSpec.Exclusive(MIB, 100)),
                Layouts.subSlices(1L << 30),
                List.<PoolSpec>of(new PoolSpec.Sliced(MIB, MIB, PoolSpec.UNCAPPED)))) {
            int[] refused = {0};
            PoolAllocator a = new PoolAllocator(
                    layout,
                    new PoolAllocator.Options(false, true),
                    (s, site, reason, fellBack) -> refused[0]++,
                    new CallSites());
            OutOfMemoryError e =
                    org.junit.jupiter.api.Assertions.assertThrows(OutOfMemoryError.class, () -> a.allocate(size, 0));
            assertEquals(
                    "pools: cannot serve 2147483585 B: 2.0 GiB (2147483585 B) is larger than a pool page can be (2147483584 B)",
                    e.getMessage());
            assertEquals(1, refused[0], "the refusal is recorded");
            assertEquals(0, a.usage().numberAllocs());
        }
    }

    @Test
    void zero_byte_buffers_point_at_memory_that_stays_allocated() {
        PoolAllocator a = exclusive(MIB, 5000);
        long address = PoolAllocator.addressOf(a.allocate(0, 0));
        System.gc();
        a.cleanup();
        ByteBuffer again = a.allocate(0, 0);
        assertEquals(0, again.capacity());
        assertEquals(address, PoolAllocator.addressOf(again), "one held block behind every empty buffer");
        assertEquals(0, a.usage().numberAllocs(), "takes no room in any pool");
    }
}
