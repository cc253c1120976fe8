package dev.pools.memory;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
import org.junit.jupiter.api.Test;

class SlicingPoolTest {

    static final int KIB = 1024;
    static final int MIB = 1024 * KIB;

    static PoolSpec.Sliced sliced(long pageSize, long maxSlice, long cap) {
        return new PoolSpec.Sliced(pageSize, maxSlice, cap);
    }

    static PoolAllocator failing(PoolSpec... specs) {
        return new PoolAllocator(
                List.of(specs), new PoolAllocator.Options(false, true), AllocationListener.NONE, new CallSites());
    }

    /** Pool index, page index and offset of a buffer. */
    static long[] at(PoolAllocator a, ByteBuffer b) {
        PoolAllocator.Location where = a.locate(b);
        assertNotNull(where, "buffer is not a live pool buffer");
        return new long[] {where.pool(), where.page(), where.offset()};
    }

    @Test
    void worked_first_fit_example_places_each_request_in_the_first_free_slice_that_fits() {
        PoolAllocator a = failing(sliced(32 * MIB, 32 * MIB, PoolSpec.UNCAPPED));
        ByteBuffer first = a.allocate(4 * MIB, 0);
        ByteBuffer second = a.allocate(15 * MIB, 0);
        ByteBuffer third = a.allocate(8 * MIB, 0);
        ByteBuffer fourth = a.allocate(4 * MIB, 0);
        assertArrayEquals(new long[] {0, 0, 0}, at(a, first));
        assertArrayEquals(new long[] {0, 0, 4 * MIB}, at(a, second));
        assertArrayEquals(new long[] {0, 0, 19 * MIB}, at(a, third));
        assertArrayEquals(new long[] {0, 0, 27 * MIB}, at(a, fourth));

        assertTrue(a.release(second));
        ByteBuffer nine = a.allocate(9 * MIB, 0);
        assertArrayEquals(new long[] {0, 0, 4 * MIB}, at(a, nine), "9 MiB lands in the freed 15 MiB hole");
        ByteBuffer six = a.allocate(6 * MIB, 0);
        assertArrayEquals(new long[] {0, 0, 13 * MIB}, at(a, six), "6 MiB fills the rest of the hole exactly");
        ByteBuffer one = a.allocate(MIB, 0);
        assertArrayEquals(new long[] {0, 0, 31 * MIB}, at(a, one), "1 MiB takes the tail of page 0");
        ByteBuffer another = a.allocate(MIB, 0);
        assertArrayEquals(new long[] {0, 1, 0}, at(a, another), "page 0 is full: a new page");
        assertEquals(2, a.reports().get(0).pages());
        a.checkInvariants();

        assertTrue(a.release(first));
        assertTrue(a.release(nine));
        ByteBuffer thirteen = a.allocate(13 * MIB, 0);
        assertArrayEquals(new long[] {0, 0, 0}, at(a, thirteen), "freed neighbours merged into one 13 MiB slice");
        a.checkInvariants();
    }

    @Test
    void a_full_capped_pool_spills_to_the_next_accepting_pool() {
        PoolAllocator a = failing(sliced(MIB, 512 * KIB, 1), sliced(4 * MIB, 4 * MIB, PoolSpec.UNCAPPED));
        ByteBuffer x = a.allocate(512 * KIB, 0);
        ByteBuffer y = a.allocate(512 * KIB, 0);
        ByteBuffer spilled = a.allocate(512 * KIB, 0);
        assertEquals(0, at(a, x)[0]);
        assertEquals(0, at(a, y)[0]);
        assertEquals(1, at(a, spilled)[0], "the capped pool is full: the request spills");
        assertEquals(1, a.reports().get(0).pagesPeak());
    }

    @Test
    void an_uncapped_pool_grows_instead_of_spilling() {
        PoolAllocator a =
                failing(sliced(MIB, 512 * KIB, PoolSpec.UNCAPPED), sliced(4 * MIB, 4 * MIB, PoolSpec.UNCAPPED));
        a.allocate(512 * KIB, 0);
        a.allocate(512 * KIB, 0);
        ByteBuffer third = a.allocate(512 * KIB, 0);
        assertArrayEquals(new long[] {0, 1, 0}, at(a, third));
        assertEquals(0, a.reports().get(1).pages(), "the second pool never saw a request");
    }

    @Test
    void near_page_rule_lets_only_uncapped_pools_take_sizes_that_leave_under_a_fifth_of_a_page() {
        SlicingPool uncapped = new SlicingPool(null, 0, sliced(MIB, 64 * KIB, PoolSpec.UNCAPPED));
        SlicingPool capped = new SlicingPool(null, 0, sliced(MIB, 64 * KIB, 4));
        assertTrue(uncapped.accepts(64 * KIB));
        assertFalse(uncapped.accepts(64 * KIB + 1) || uncapped.acceptsAsLastResort(64 * KIB + 1));
        assertTrue(uncapped.acceptsAsLastResort(900 * KIB), "leaves 124 KiB, under a fifth of 1 MiB");
        assertFalse(uncapped.acceptsAsLastResort(800 * KIB), "leaves 224 KiB, over a fifth");
        assertTrue(uncapped.acceptsAsLastResort(820 * KIB), "leaves 204 KiB: (1024-820)*5 = 1020 < 1024");
        assertFalse(uncapped.acceptsAsLastResort(819 * KIB), "leaves 205 KiB: (1024-819)*5 = 1025 >= 1024");
        assertTrue(uncapped.acceptsAsLastResort(MIB));
        assertFalse(uncapped.acceptsAsLastResort(MIB + 1));
        assertFalse(
                capped.accepts(900 * KIB) || capped.acceptsAsLastResort(900 * KIB),
                "a capped pool keeps page-sized strays out of its budget");
        assertTrue(capped.accepts(64 * KIB));
    }

    @Test
    void a_near_page_size_goes_to_a_later_pool_that_takes_it_and_to_the_near_page_pool_only_as_a_last_resort() {
        PoolAllocator both =
                failing(sliced(MIB, 64 * KIB, PoolSpec.UNCAPPED), sliced(4 * MIB, 2 * MIB, PoolSpec.UNCAPPED));
        assertEquals(1, at(both, both.allocate(900 * KIB, 0))[0], "the second pool takes 900 KiB by its size class");
        PoolAllocator alone =
                failing(sliced(MIB, 64 * KIB, PoolSpec.UNCAPPED), sliced(4 * MIB, 512 * KIB, PoolSpec.UNCAPPED));
        assertEquals(
                0,
                at(alone, alone.allocate(900 * KIB, 0))[0],
                "no pool takes 900 KiB by size: the near-page rule does");
        assertEquals(1, alone.reports().get(0).pages());
    }

    @Test
    void padding_rounds_each_request_up_to_64_bytes() {
        PoolAllocator a = failing(sliced(MIB, MIB, PoolSpec.UNCAPPED));
        ByteBuffer hundred = a.allocate(100, 0);
        ByteBuffer exact = a.allocate(64, 0);
        ByteBuffer one = a.allocate(1, 0);
        assertEquals(100, hundred.capacity());
        // Each size has its run (RunsTest): 100 B a slot of 128 B in a run of 8 KiB, 64 B and 1 B the
        // first two slots of 64 B in the run after it.
        assertArrayEquals(new long[] {0, 0, 0}, at(a, hundred));
        assertArrayEquals(new long[] {0, 0, 8192}, at(a, exact));
        assertArrayEquals(new long[] {0, 0, 8192 + 64}, at(a, one));
        Usage u = a.usage();
        assertEquals(3, u.numberAllocs());
        assertEquals(165, u.bytesInUse());
        assertEquals(28 + 0 + 63, u.bytesPadding());
        assertEquals(MIB, u.bytesReserved());
        for (ByteBuffer b : List.of(hundred, exact, one)) {
            assertEquals(0, PoolAllocator.addressOf(b) % 64, "64-byte aligned");
        }
    }

    @Test
    void handed_out_buffers_keep_the_allocate_direct_contract() {
        PoolAllocator a = failing(sliced(MIB, MIB, PoolSpec.UNCAPPED));
        ByteBuffer b = a.allocate(1000, 0);
        assertTrue(b.isDirect());
        assertEquals(1000, b.capacity());
        assertEquals(0, b.position());
        assertEquals(1000, b.limit());
        assertEquals(ByteOrder.BIG_ENDIAN, b.order());
        assertFalse(b.isReadOnly());
        for (int i = 0; i < 1000; i++) {
            b.put(i, (byte) 0x7F);
        }
        assertTrue(a.release(b));
        ByteBuffer again = a.allocate(1000, 0);
        assertEquals(PoolAllocator.addressOf(b), PoolAllocator.addressOf(again), "the freed slice is reused");
        for (int i = 0; i < 1000; i++) {
            assertEquals(0, again.get(i), "reused memory is zero at " + i);
        }
    }

    @Test
    void zero_byte_requests_take_no_room() {
        PoolAllocator a = failing(sliced(MIB, MIB, PoolSpec.UNCAPPED));
        ByteBuffer empty = a.allocate(0, 0);
        assertEquals(0, empty.capacity());
        assertTrue(empty.isDirect());
        assertEquals(0, a.usage().numberAllocs());
        assertEquals(0, a.reports().get(0).pages());
        assertFalse(a.release(empty));
    }

    @Test
    void empty_pages_stay_until_an_explicit_cleanup() {
        PoolAllocator a = failing(sliced(MIB, MIB, PoolSpec.UNCAPPED));
        ByteBuffer x = a.allocate(600 * KIB, 0);
        ByteBuffer y = a.allocate(600 * KIB, 0);
        assertEquals(2, a.reports().get(0).pages());
        a.release(x);
        a.release(y);
        assertEquals(2, a.reports().get(0).pages(), "released pages are kept for reuse");
        assertEquals(2, a.cleanup());
        assertEquals(0, a.reports().get(0).pages());
        assertEquals(2, a.reports().get(0).pagesPeak(), "the peak survives a cleanup");
        assertEquals(600 * KIB, a.reports().get(0).largestAlloc());
        a.checkInvariants();
    }

    @Test
    void a_double_release_is_counted_and_changes_nothing() {
        PoolAllocator a = failing(sliced(MIB, MIB, PoolSpec.UNCAPPED));
        ByteBuffer x = a.allocate(4096, 0);
        ByteBuffer view = x.duplicate();
        assertTrue(a.release(x));
        ByteBuffer y = a.allocate(4096, 0);
        assertFalse(a.release(x), "second release of the same buffer");
        assertFalse(a.release(view), "release through a view of the released buffer");
        assertEquals(2, a.doubleReleases());
        assertEquals(1, a.usage().numberAllocs(), "the slice now owned by y is untouched");
        assertNotNull(a.locate(y));
        assertNull(a.locate(x));
        a.checkInvariants();
    }

    @Test
    void a_size_no_pool_takes_is_exhausted_with_a_message_naming_it() {
        PoolAllocator a = failing(sliced(MIB, 64 * KIB, 2));
        OutOfMemoryError e =
                org.junit.jupiter.api.Assertions.assertThrows(OutOfMemoryError.class, () -> a.allocate(2 * MIB, 0));
        assertTrue(e.getMessage().contains("no pool takes 2 MiB (2097152 B) requests"), e.getMessage());
        assertEquals(0, a.collections(), "no collection can make a pool take a size: none is made");
    }

    @Test
    void a_size_no_pool_takes_falls_back_at_once_without_a_collection() {
        PoolAllocator a = new PoolAllocator(List.of(sliced(64 * KIB, 64 * KIB, 2), sliced(MIB, MIB, 2)));
        ByteBuffer large = a.allocate(2 * MIB, 0);
        assertEquals(2 * MIB, large.capacity());
        assertNull(a.locate(large), "the JDK's own buffer");
        assertEquals(1, a.usage().fallbackAllocs());
        assertEquals(0, a.collections(), "none made for a request no pool takes");
        ByteBuffer small = a.allocate(100, 0);
        assertNotNull(a.locate(small), "a size the layout takes is still served");
        assertEquals(0, a.collections());
    }

    @Test
    void a_full_capped_layout_fails_with_every_pool_state_in_the_message() {
        PoolAllocator a = failing(sliced(MIB, 512 * KIB, 1));
        ByteBuffer keep1 = a.allocate(512 * KIB, 0);
        ByteBuffer keep2 = a.allocate(512 * KIB, 0);
        OutOfMemoryError e =
                org.junit.jupiter.api.Assertions.assertThrows(OutOfMemoryError.class, () -> a.allocate(1000, 0));
        assertTrue(e.getMessage().contains("cannot serve 1000 B"), e.getMessage());
        assertTrue(
                e.getMessage().contains("pool 0 sliced (1 MiB pages, slices up to 512 KiB): 1/1 pages"),
                e.getMessage());
        assertNotNull(keep1);
        assertNotNull(keep2);
    }
}
