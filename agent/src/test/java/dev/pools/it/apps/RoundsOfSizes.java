package dev.pools.it.apps;

import dev.pools.agent.PoolsRuntime;
import dev.pools.memory.PoolAllocator;
import it.host.Tensors;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * Rounds of buffers held together and released explicitly, each round of another size than the one
 * before, so that the room the pools keep for one round's size is empty in the next; near the direct
 * memory limit the JVM is started with. {@code direct}: 40 buffers of 1 MiB plus 0, 64 or 128 B a round;
 * {@code sliced}: 200 of 256 KiB and 4 of 6 MiB in turn. Prints the fallbacks.
 */
public final class RoundsOfSizes {

    public static void main(String[] args) {
        boolean direct = args[0].equals("direct");
        PoolAllocator pools = PoolsRuntime.current().allocator();
        for (int round = 0; round < 12; round++) {
            int size = direct ? (1 << 20) + 64 * (round % 3) : round % 2 == 0 ? 256 << 10 : 6 << 20;
            int count = direct ? 40 : round % 2 == 0 ? 200 : 4;
            List<ByteBuffer> held = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                held.add(Tensors.allocate(size));
            }
            for (ByteBuffer b : held) {
                if (!pools.release(b)) {
                    throw new IllegalStateException("not the pools' buffer: " + b);
                }
            }
        }
        System.out.println("fallbacks " + pools.usage().fallbackAllocs());
    }
}
