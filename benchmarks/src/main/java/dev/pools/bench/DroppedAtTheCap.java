package dev.pools.bench;

import dev.pools.memory.AllocationListener;
import dev.pools.memory.CallSites;
import dev.pools.memory.PoolAllocator;
import dev.pools.memory.PoolSpec;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.LongAdder;

/**
 * Refusals under {@code on_exhausted: fail} when threads drop their buffers: one pool capped at
 * exactly 16 slices of 64 KiB (a page of 1 MiB), 4 threads each keeping at most 3 buffers and one
 * at most 4, so that what they hold and ask for never passes the cap; each thread asks, keeps, or
 * drops its oldest (no release: the collector finds it). Every refusal is room the collector had
 * not found yet, or room another thread took first. The JDK alone, for comparison: {@code jdk}, with
 * {@code -XX:MaxDirectMemorySize=1m}, the same 16 slices' worth.
 *
 * <pre>java -Xmx256m [-XX:MaxDirectMemorySize=1m] --add-opens ... -cp benchmarks/target/classes:agent/target/pools.jar dev.pools.bench.DroppedAtTheCap [pools|jdk] [seconds]</pre>
 */
public final class DroppedAtTheCap {

    private DroppedAtTheCap() {}

    public static void main(String[] args) throws InterruptedException {
        boolean jdk = args.length > 0 && args[0].equals("jdk");
        long seconds = args.length > 1 ? Long.parseLong(args[1]) : 5;
        PoolAllocator pools = jdk
                ? null
                : new PoolAllocator(
                        List.of(new PoolSpec.Sliced(1 << 20, 64 << 10, 1)),
                        new PoolAllocator.Options(false, true),
                        AllocationListener.NONE,
                        new CallSites());
        LongAdder served = new LongAdder();
        LongAdder refused = new LongAdder();
        long end = System.nanoTime() + seconds * 1_000_000_000L;
        Thread[] threads = new Thread[5];
        for (int t = 0; t < threads.length; t++) {
            int keep = t == 4 ? 4 : 3;
            long seed = t;
            threads[t] = new Thread(() -> {
                SplittableRandom r = new SplittableRandom(seed);
                ArrayDeque<ByteBuffer> held = new ArrayDeque<>();
                while (System.nanoTime() < end) {
                    if (held.size() < keep && (held.isEmpty() || r.nextBoolean())) {
                        try {
                            held.add(jdk ? ByteBuffer.allocateDirect(64 << 10) : pools.allocate(64 << 10, 0));
                            served.increment();
                        } catch (OutOfMemoryError e) {
                            refused.increment();
                        }
                    } else if (!held.isEmpty()) {
                        held.poll(); // dropped
                    }
                }
            });
            threads[t].start();
        }
        for (Thread t : threads) {
            t.join();
        }
        System.out.println((jdk ? "jdk" : "pools") + " served " + served.sum() + " refused " + refused.sum()
                + (jdk ? "" : " collections " + pools.collections()));
    }
}
