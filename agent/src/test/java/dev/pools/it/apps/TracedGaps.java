package dev.pools.it.apps;

import dev.pools.agent.PoolsRuntime;
import it.host.Tensors;
import java.nio.ByteBuffer;

/**
 * Requests whose placement depends on the thread caches: a released 8 KiB slice stays in its
 * thread's cache, so a later request of another size, or of another thread, is placed after the
 * slices still held, and the 48 KiB that follows no longer fits the 64 KiB page. {@code one}: one
 * thread; {@code two}: a thread takes and releases, then another asks, one after the other. Exits
 * with 1 on an {@code OutOfMemoryError} (a refusal under {@code on_exhausted: fail}).
 */
public final class TracedGaps {

    private static final int K = 1024;

    public static void main(String[] args) throws Exception {
        ByteBuffer[] held = new ByteBuffer[4];
        Runnable first = () -> {
            held[0] = Tensors.allocate(8 * K);
            held[1] = Tensors.allocate(8 * K);
            release(held[0]);
        };
        Runnable second = () -> {
            held[2] = Tensors.allocate(args[0].equals("one") ? 4 * K : 8 * K);
            held[3] = Tensors.allocate(48 * K);
        };
        Throwable[] failed = new Throwable[1];
        if (args[0].equals("one")) {
            try {
                first.run();
                second.run();
            } catch (OutOfMemoryError e) {
                failed[0] = e;
            }
        } else {
            for (Runnable r : new Runnable[] {first, second}) {
                Thread t = new Thread(() -> {
                    try {
                        r.run();
                    } catch (OutOfMemoryError e) {
                        failed[0] = e;
                    }
                });
                t.start();
                t.join();
            }
        }
        if (failed[0] != null) {
            System.out.println("refused: " + failed[0].getMessage());
            System.exit(1);
        }
        System.out.println("served");
    }

    private static void release(ByteBuffer b) {
        if (!PoolsRuntime.current().allocator().release(b)) {
            throw new AssertionError("not released");
        }
    }
}
