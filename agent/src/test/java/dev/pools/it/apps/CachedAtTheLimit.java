package dev.pools.it.apps;

import dev.pools.agent.PoolsRuntime;
import dev.pools.memory.PoolAllocator;
import it.host.Tensors;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;

/**
 * Four threads take 112 slices of 64 KiB each, in step (28 MiB of 1 MiB pages under a limit of 32
 * MiB; slice i of every thread lies in page i / 4), release them all explicitly, first one slice in
 * each of 7 pages of their own (after one release each that makes their caches), so that their
 * caches hold slices of all 28 pages, and stay alive, idle. Then direct memory asked outside the intercepted package: four buffers of 1 MiB.
 */
public final class CachedAtTheLimit {

    private static final int THREADS = 4;
    private static final int EACH = 112;

    public static void main(String[] args) throws Exception {
        PoolAllocator pools = PoolsRuntime.current().allocator();
        CyclicBarrier step = new CyclicBarrier(THREADS + 1);
        for (int t = 0; t < THREADS; t++) {
            int own = t;
            Thread worker = new Thread(() -> {
                try {
                    ByteBuffer[] taken = new ByteBuffer[EACH];
                    for (int i = 0; i < EACH; i++) {
                        step.await();
                        taken[i] = Tensors.allocate(64 << 10);
                    }
                    // The first release makes this thread's cache, which takes the others' back: all
                    // four caches are made before any keeps a slice.
                    pools.release(taken[EACH - 1]);
                    taken[EACH - 1] = null;
                    step.await();
                    for (int page = own * 7; page < own * 7 + 7; page++) {
                        pools.release(taken[4 * page]);
                        taken[4 * page] = null;
                    }
                    for (int i = 0; i < EACH; i++) {
                        if (taken[i] != null) {
                            pools.release(taken[i]);
                        }
                    }
                    step.await();
                    Thread.sleep(Long.MAX_VALUE);
                } catch (Exception e) {
                    // Interrupted at the end: the JVM exits.
                }
            });
            worker.setDaemon(true);
            worker.start();
        }
        for (int i = 0; i < EACH; i++) {
            step.await();
        }
        step.await();
        step.await();
        System.out.println("in use " + pools.usage().bytesInUse());
        List<ByteBuffer> outside = new ArrayList<>();
        try {
            for (int i = 0; i < 4; i++) {
                outside.add(ByteBuffer.allocateDirect(1 << 20));
            }
            System.out.println("outside allocateDirect: ok");
        } catch (OutOfMemoryError e) {
            System.out.println("outside allocateDirect: " + e);
        }
    }
}
