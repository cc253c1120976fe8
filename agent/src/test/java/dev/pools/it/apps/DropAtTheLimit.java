package dev.pools.it.apps;

import it.host.Tensors;
import java.nio.ByteBuffer;
import java.util.SplittableRandom;

/**
 * Two threads that each keep only their last 16 buffers (of 100 B to 1.5 MB) and leave the rest to
 * the collector, with a heap that hardly fills: no young collection finds the dropped buffers before
 * the pools' pages reach the direct memory limit. Prints each OutOfMemoryError the host gets, then
 * how many buffers were made.
 */
public final class DropAtTheLimit {

    private static final int[] SIZES = {100, 3000, 20_000, 70_000, 300_000, 1_500_000};

    public static void main(String[] args) throws Exception {
        int iterations = Integer.parseInt(args[0]);
        Thread[] threads = new Thread[2];
        long[] made = new long[threads.length];
        for (int t = 0; t < threads.length; t++) {
            int seed = t;
            threads[t] = new Thread(() -> {
                SplittableRandom random = new SplittableRandom(seed);
                ByteBuffer[] ring = new ByteBuffer[16];
                for (int i = 0; i < iterations; i++) {
                    try {
                        ByteBuffer b = Tensors.allocate(SIZES[random.nextInt(SIZES.length)]);
                        b.put(0, (byte) i);
                        ring[i % ring.length] = b;
                        made[seed]++;
                    } catch (OutOfMemoryError e) {
                        System.out.println("OutOfMemoryError at " + i + ": " + e.getMessage());
                    }
                }
            });
            threads[t].start();
        }
        for (Thread t : threads) {
            t.join();
        }
        System.out.println("made " + (made[0] + made[1]));
    }
}
