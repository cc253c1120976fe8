package dev.pools.it.apps;

import dev.pools.agent.PoolsRuntime;
import dev.pools.memory.PoolAllocator;
import it.host.Tensors;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * Thirty buffers of 1 MiB held in pages of 1 MiB under a direct memory limit of 32 MiB, then a
 * collection (near the limit: the release thread looks at the empty pages after it, and finds none);
 * {@code args[0]} ms later, while it looks, the buffers are dropped and a second collection empties
 * their pages. With no other collection, prints the pages the pools still hold once they have given
 * back what they will (within 10 s).
 */
public final class EmptiedDuringALook {

    private static final int MIB = 1 << 20;

    public static void main(String[] args) throws Exception {
        PoolAllocator pools = PoolsRuntime.current().allocator();
        List<ByteBuffer> held = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            held.add(Tensors.allocate(MIB));
        }
        System.gc();
        Thread.sleep(Long.parseLong(args[0]));
        held.clear();
        System.gc();
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (pools.usage().bytesReserved() > 0 && System.nanoTime() - deadline < 0) {
            Thread.sleep(10);
        }
        System.out.println("in use " + pools.usage().bytesInUse() + ", pages held "
                + pools.usage().bytesReserved() / MIB);
    }
}
