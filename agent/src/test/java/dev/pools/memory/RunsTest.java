package dev.pools.memory;

import static dev.pools.memory.SlicingPoolTest.KIB;
import static dev.pools.memory.SlicingPoolTest.MIB;
import static dev.pools.memory.SlicingPoolTest.at;
import static dev.pools.memory.SlicingPoolTest.failing;
import static dev.pools.memory.SlicingPoolTest.sliced;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A sliced pool's runs: requests of at most {@link SlicingPool#RUN_MAX_SLOT} bytes (effective) are
 * served from runs of {@link SlicingPool#RUN_SLOTS} equal slots, in the deterministic order the
 * class comment of {@link SlicingPool} gives, and a run never keeps a capped pool from serving what
 * the same pool without runs would serve from its pages.
 */
@ExtendWith(DirtyFreshPages.class) // fresh pages hold a pattern: a fresh buffer that missed its zeroing shows
class RunsTest {

    /** Pools whose threads cache nothing: releases go straight back to the runs. */
    private static PoolAllocator uncached(PoolSpec spec) {
        return new PoolAllocator(
                List.of(spec),
                new PoolAllocator.Options(false, true, null, false),
                AllocationListener.NONE,
                new CallSites());
    }

    private static List<ByteBuffer> allocate(PoolAllocator a, int count, int size) {
        List<ByteBuffer> out = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            ByteBuffer b = a.allocate(size, 0);
            for (int j = 0; j < size; j++) {
                assertEquals(0, b.get(j), "a fresh slot is zero");
            }
            out.add(b);
        }
        return out;
    }

    @Test
    void small_requests_of_one_size_share_a_run_and_each_size_has_its_own() {
        PoolAllocator a = failing(sliced(MIB, MIB, PoolSpec.UNCAPPED));
        List<ByteBuffer> first = allocate(a, SlicingPool.RUN_SLOTS, 64);
        for (int i = 0; i < first.size(); i++) {
            assertArrayEquals(new long[] {0, 0, 64L * i}, at(a, first.get(i)), "slot " + i + " of the first run");
        }
        ByteBuffer next = a.allocate(1, 0);
        assertArrayEquals(new long[] {0, 0, 4096}, at(a, next), "the first run is full: a second run after it");
        ByteBuffer hundred = a.allocate(100, 0);
        assertArrayEquals(new long[] {0, 0, 8192}, at(a, hundred), "128 B slots: a run of 8 KiB of their own");
        ByteBuffer large = a.allocate(257, 0);
        assertArrayEquals(new long[] {0, 0, 16384}, at(a, large), "above the largest slot: a plain slice");
        assertEquals(SlicingPool.RUN_SLOTS + 3, a.usage().numberAllocs());
        assertEquals(SlicingPool.RUN_SLOTS * 64L + 1 + 100 + 257, a.usage().bytesInUse());
        PoolReport report = a.reports().get(0);
        assertEquals(3, report.runs(), "two runs of 64 B slots, one of 128 B");
        assertEquals(4096 + 4096 + 8192, report.bytesInRuns());
        a.checkInvariants();
        first.forEach(a::release);
        a.cleanup(); // the slots this thread's cache kept go back too
        a.checkInvariants();
        assertEquals(2, a.reports().get(0).runs(), "a run whose last slot came back is freed, the current one kept");
        assertEquals(4096 + 8192, a.reports().get(0).bytesInRuns());
    }

    @Test
    void a_full_run_that_gets_a_slot_back_serves_once_the_current_run_is_full() {
        PoolAllocator a = uncached(sliced(MIB, MIB, PoolSpec.UNCAPPED));
        List<ByteBuffer> runA = allocate(a, SlicingPool.RUN_SLOTS, 64);
        ByteBuffer firstOfB = a.allocate(64, 0);
        assertTrue(a.release(runA.get(10)));
        a.checkInvariants();
        List<ByteBuffer> restOfB = allocate(a, SlicingPool.RUN_SLOTS - 1, 64);
        assertArrayEquals(new long[] {0, 0, 4096 + 64 * 63}, at(a, restOfB.get(62)), "the current run first");
        assertArrayEquals(new long[] {0, 0, 4096 + 64}, at(a, restOfB.get(0)));
        ByteBuffer back = a.allocate(64, 0);
        assertArrayEquals(new long[] {0, 0, 640}, at(a, back), "then the slot the full run got back");
        ByteBuffer third = a.allocate(64, 0);
        assertArrayEquals(new long[] {0, 0, 8192}, at(a, third), "then a new run");
        a.checkInvariants();
        assertEquals(firstOfB.capacity(), 64);
    }

    @Test
    void a_run_whose_last_slot_comes_back_is_freed_and_an_idle_one_at_a_cleanup() {
        PoolAllocator a = uncached(sliced(MIB, MIB, PoolSpec.UNCAPPED));
        List<ByteBuffer> runA = allocate(a, SlicingPool.RUN_SLOTS, 64);
        ByteBuffer inB = a.allocate(64, 0);
        for (ByteBuffer b : runA) {
            assertTrue(a.release(b));
        }
        a.checkInvariants();
        ByteBuffer plain = a.allocate(1024, 0);
        assertArrayEquals(new long[] {0, 0, 0}, at(a, plain), "the emptied run is a free slice again");
        assertTrue(a.release(plain));
        assertTrue(a.release(inB));
        assertEquals(1, a.reports().get(0).pages(), "the current run stays while idle");
        assertEquals(1, a.cleanup(), "a cleanup frees the idle run, then its page");
        assertEquals(0, a.reports().get(0).pages());
        a.checkInvariants();
    }

    @Test
    void where_no_run_fits_a_plain_slice_serves_and_a_capped_pool_does_not_refuse() {
        // A page of 64 KiB has runs of slots up to 128 B (64 slots in at most an eighth of the page).
        PoolAllocator a = failing(sliced(64 * KIB, 64 * KIB, 1));
        ByteBuffer big = a.allocate(58 * KIB, 0);
        ByteBuffer hundred = a.allocate(100, 0);
        assertArrayEquals(new long[] {0, 0, 58 * KIB}, at(a, hundred), "no 8 KiB run fits: a plain slice of 128 B");
        ByteBuffer small = a.allocate(64, 0);
        assertArrayEquals(new long[] {0, 0, 58 * KIB + 128}, at(a, small), "a run of 4 KiB still fits after it");
        ByteBuffer more = a.allocate(100, 0);
        assertArrayEquals(new long[] {0, 0, 58 * KIB + 128 + 4096}, at(a, more), "the next 128 B too, in what is left");
        assertEquals(1, a.reports().get(0).pages());
        a.checkInvariants();
        assertTrue(a.release(big) && a.release(hundred) && a.release(small) && a.release(more));
        a.checkInvariants();
    }

    @Test
    void a_capped_pool_frees_an_idle_run_and_drains_cached_slots_before_it_would_refuse() {
        PoolAllocator a = failing(sliced(64 * KIB, 64 * KIB, 1));
        // Released explicitly on this thread: both slots wait in its cache, and their run looks used.
        List<ByteBuffer> cached = allocate(a, 2, 64);
        for (ByteBuffer b : cached) {
            assertTrue(a.release(b));
        }
        a.checkInvariants();
        ByteBuffer whole = a.allocate(64 * KIB, 0);
        assertArrayEquals(new long[] {0, 0, 0}, at(a, whole), "drained, the run idle and freed: the whole page");
        assertTrue(a.release(whole));

        ByteBuffer once = a.allocate(64, 0);
        assertTrue(a.release(once));
        ByteBuffer again = a.allocate(64 * KIB, 0);
        assertArrayEquals(new long[] {0, 0, 0}, at(a, again), "an idle current run is freed too");
        a.checkInvariants();
    }

    @Test
    void a_slot_served_from_a_cache_and_dropped_goes_back_to_its_run_through_the_collector() throws Exception {
        PoolAllocator a = new PoolAllocator(List.of(sliced(MIB, MIB, PoolSpec.UNCAPPED)));
        ByteBuffer kept = a.allocate(64, 0);
        long keptAt = PoolAllocator.addressOf(kept);
        ByteBuffer first = a.allocate(64, 0);
        long at = PoolAllocator.addressOf(first);
        assertTrue(a.release(first)); // into this thread's cache
        a.checkInvariants();
        ByteBuffer again = a.allocate(64, 0);
        assertEquals(at, PoolAllocator.addressOf(again), "served from the cache");
        again.put(0, (byte) 7);
        again = null; // dropped: only the collector can release it
        ZeroAtHandOutTest.releasedByTheCollector(a, 1, 1);
        ByteBuffer next = a.allocate(64, 0);
        assertEquals(at, PoolAllocator.addressOf(next), "the slot is free in its run again, and first");
        assertEquals(0, next.get(0), "zeroed by the collector's release");
        assertEquals(keptAt, PoolAllocator.addressOf(kept));
        assertTrue(a.release(next) && a.release(kept));
        a.checkInvariants();
    }

    @Test
    void a_pool_whose_page_is_too_small_for_a_run_serves_plain_slices() {
        // 4 KiB pages: 64 slots of 64 B would take the whole page, more than an eighth.
        PoolAllocator a = failing(sliced(4 * KIB, 4 * KIB, PoolSpec.UNCAPPED));
        List<ByteBuffer> small = allocate(a, 3, 64);
        ByteBuffer big = a.allocate(3 * KIB, 0);
        assertArrayEquals(new long[] {0, 0, 192}, at(a, big), "three plain slices of 64 B before it");
        assertEquals(1, a.reports().get(0).pages());
        a.checkInvariants();
        assertEquals(3, small.size());
    }

    /** A refusal names the runs of the full pool: room that only requests of their slot size take. */
    @Test
    void a_refusal_names_the_runs_that_hold_room_of_the_full_pool() {
        PoolAllocator a = failing(sliced(64 * KIB, 64 * KIB, 1));
        ByteBuffer small = a.allocate(64, 0);
        ByteBuffer large = a.allocate(60 * 1024, 0);
        OutOfMemoryError refused = assertThrows(OutOfMemoryError.class, () -> a.allocate(128, 0));
        assertTrue(
                refused.getMessage()
                        .endsWith("1/1 pages, 60.1 KiB in use of 64 KiB reserved (1 run of equal slots, 4 KiB, take"
                                + " only requests of their slot size)"),
                refused.getMessage());
        assertTrue(a.release(small) && a.release(large));
        a.checkInvariants();
    }
}
