package dev.pools.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * What the release thread gives back after collections near the direct memory limit: the pages empty
 * at its first look and still empty at the second, not those in use again by then (giving back every
 * empty page at each such collection made a steady load allocate pages over and over).
 */
class GiveBackTest {

    static final int MIB = 1024 * 1024;

    @Test
    void a_sliced_pool_gives_back_the_pages_no_request_took_since_the_first_look() {
        PoolAllocator pools = new PoolAllocator(List.of(new PoolSpec.Sliced(MIB, MIB, PoolSpec.UNCAPPED)));
        ByteBuffer[] held = new ByteBuffer[3];
        for (int i = 0; i < held.length; i++) {
            held[i] = pools.allocate(MIB, 0);
        }
        for (ByteBuffer b : held) {
            pools.release(b, false);
        }
        assertEquals(3 * MIB, pools.usage().bytesReserved());
        Map<Pool, Set<Object>> firstLook = pools.emptyPages();
        assertEquals(3, firstLook.values().iterator().next().size());
        ByteBuffer taken = pools.allocate(MIB, 0);
        taken.put(MIB - 1, (byte) 7);
        pools.giveBackStillEmpty(firstLook);
        assertEquals(MIB, pools.usage().bytesReserved(), "the page taken since stays, the two others went back");
        assertEquals(1, pools.usage().numberAllocs());
        assertEquals(7, taken.get(MIB - 1));
        pools.checkInvariants();
        pools.release(taken, false);
        pools.giveBackStillEmpty(Map.of());
        assertEquals(MIB, pools.usage().bytesReserved(), "a page empty at no first look stays");
        pools.giveBackStillEmpty(pools.emptyPages());
        assertEquals(0, pools.usage().bytesReserved(), "empty at both looks, it goes back");
        pools.checkInvariants();
    }

    @Test
    void a_direct_pool_gives_back_the_blocks_no_request_took_since_the_first_look() {
        PoolAllocator one = new PoolAllocator(List.of(new PoolSpec.Direct()));
        ByteBuffer alone = one.allocate(1000, 0);
        long block = one.usage().bytesReserved();
        one.release(alone, false);

        PoolAllocator pools = new PoolAllocator(List.of(new PoolSpec.Direct()));
        ByteBuffer a = pools.allocate(1000, 0);
        ByteBuffer b = pools.allocate(1000, 0);
        ByteBuffer c = pools.allocate(2000, 0);
        pools.release(a, false);
        pools.release(b, false);
        pools.release(c, false);
        Map<Pool, Set<Object>> firstLook = pools.emptyPages();
        assertEquals(3, firstLook.values().iterator().next().size());
        ByteBuffer taken = pools.allocate(1000, 0);
        pools.giveBackStillEmpty(firstLook);
        assertEquals(block, pools.usage().bytesReserved(), "the block taken since stays, the two others went back");
        assertEquals(1, pools.usage().numberAllocs());
        pools.checkInvariants();
        pools.release(taken, false);
    }
}
