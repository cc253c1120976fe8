package dev.pools.hosts.djl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.ref.WeakReference;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/** What {@link PtKeep} holds, and when it lets go, as the hooks in DJL's classes call it. */
class PtKeepTest {

    private final ByteBuffer b = ByteBuffer.allocateDirect(16);

    @Test
    void buffers_let_go_while_a_collector_is_open_are_held_until_that_collector_closes() {
        Object first = new Object();
        PtKeep.collected(first); // no collector of this test's yet: nothing
        PtKeep.letGo(b);
        assertEquals(0, PtKeep.held(), "no collector: nothing held");

        PtKeep.collecting(first, 1 << 20);
        PtKeep.letGo(b);
        PtKeep.letGo(null); // an array over memory libtorch made
        PtKeep.letGo(b);
        assertEquals(2, PtKeep.held(), "held while collecting");
        PtKeep.collected(new Object());
        assertEquals(2, PtKeep.held(), "another collector's close ends nothing");
        PtKeep.collected(first);
        assertEquals(0, PtKeep.held(), "its own close");
        PtKeep.letGo(b);
        assertEquals(0, PtKeep.held(), "and nothing is held after it");
    }

    /** The pools, short of room, have it let go of all it holds; arrays closed after are held again. */
    @Test
    void the_pools_short_of_room_have_it_let_go_and_the_collection_stays_open() {
        Object c = new Object();
        PtKeep.ForPools pools = new PtKeep.ForPools();
        PtKeep.collecting(c, 1 << 20);
        assertFalse(pools.letGo(), "nothing held yet");
        PtKeep.letGo(b);
        PtKeep.letGo(b);
        long before = PtKeep.letGoForPools();
        assertTrue(pools.letGo());
        assertEquals(0, PtKeep.held());
        assertEquals(before + 1, PtKeep.letGoForPools());
        PtKeep.letGo(b);
        assertEquals(1, PtKeep.held(), "held again after it");
        PtKeep.collected(c);
        assertEquals(0, PtKeep.held());
    }

    @Test
    void at_most_its_bytes_are_held_the_oldest_going_first() {
        Object c = new Object();
        PtKeep.collecting(c, 40);
        for (int i = 0; i < 5; i++) {
            PtKeep.letGo(b); // 16 B each
        }
        assertEquals(2, PtKeep.held(), "32 of at most 40 bytes");
        PtKeep.collected(c);
    }

    @Test
    void a_collector_dropped_without_close_ends_its_hold_at_the_next_close() throws Exception {
        Object c = new Object();
        WeakReference<Object> probe = new WeakReference<>(c);
        PtKeep.collecting(c, 1 << 20);
        PtKeep.letGo(b);
        assertEquals(1, PtKeep.held());
        c = null;
        for (int i = 0; i < 100 && probe.get() != null; i++) {
            System.gc();
            Thread.sleep(10);
        }
        assertEquals(null, probe.get(), "collected");
        PtKeep.letGo(b);
        assertEquals(0, PtKeep.held(), "its hold ended");
    }
}
