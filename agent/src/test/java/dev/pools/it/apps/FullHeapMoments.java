package dev.pools.it.apps;

import dev.pools.api.MemoryPools;
import it.host.Tensors;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Three threads ask for buffers of 1 KiB and drop them, left to the collector, while the main thread
 * fills the Java heap {@code args[0]} times, holds it full for 100 ms and frees it, catching the
 * {@code OutOfMemoryError}, as a host that survives a full heap does. Then the threads stop, every
 * buffer is dropped, and it waits until the pools hold nothing (at most a minute: a release lost to a
 * full heap never comes back); then it asks for {@code args[1]} buffers of 1 KiB and holds them all.
 * Prints {@code in use N} and {@code refused R}. Run with {@code -Xmx64m}.
 */
public final class FullHeapMoments {

    static volatile boolean stop;

    public static void main(String[] args) throws Exception {
        int moments = Integer.parseInt(args[0]);
        int want = Integer.parseInt(args[1]);
        // Every path of the program and the pools loaded and resolved before the heap is ever full: a class
        // whose initialiser a full heap interrupts cannot be used again, which is not what this is about.
        for (int i = 0; i < 1000; i++) {
            Tensors.allocate(1024).put(0, (byte) 1);
        }
        System.gc();
        MemoryPools.cleanup();
        AtomicLong errors = new AtomicLong();
        Thread[] workers = new Thread[3];
        for (int t = 0; t < workers.length; t++) {
            workers[t] = new Thread(
                    () -> {
                        ByteBuffer[] ring = new ByteBuffer[64];
                        int i = 0;
                        while (!stop) {
                            try {
                                ring[i++ & 63] = Tensors.allocate(1024);
                            } catch (OutOfMemoryError e) {
                                errors.incrementAndGet();
                            }
                        }
                    },
                    "worker-" + t);
            workers[t].start();
        }
        for (int m = 0; m < moments; m++) {
            Thread.sleep(200);
            List<Object> fill = new ArrayList<>();
            try {
                while (true) {
                    fill.add(new long[1 << 14]);
                }
            } catch (OutOfMemoryError e) {
                // The host goes on; the smaller arrays take what is left.
            }
            try {
                while (true) {
                    fill.add(new long[16]);
                }
            } catch (OutOfMemoryError e) {
                // Full.
            }
            Thread.sleep(100);
            fill = null;
        }
        stop = true;
        for (Thread w : workers) {
            w.join();
        }
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (MemoryPools.usage().numberAllocs() > 0 && System.nanoTime() < deadline) {
            System.gc();
            MemoryPools.cleanup();
            Thread.sleep(20);
        }
        System.out.println("workers' errors " + errors);
        System.out.println("in use " + MemoryPools.usage().numberAllocs());
        List<ByteBuffer> held = new ArrayList<>();
        int refused = 0;
        for (int i = 0; i < want; i++) {
            try {
                held.add(Tensors.allocate(1024));
            } catch (OutOfMemoryError e) {
                refused++;
            }
        }
        System.out.println("refused " + refused + " of " + (held.size() + refused));
    }
}
