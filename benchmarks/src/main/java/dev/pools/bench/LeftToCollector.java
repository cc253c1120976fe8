package dev.pools.bench;

import dev.pools.memory.PoolAllocator;
import dev.pools.memory.PoolSpec;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;

/**
 * Threads that allocate buffers and drop them at once, as B1's "left to the GC" does, from the pools
 * or from {@code allocateDirect}; every half second, how many were made and how many the pools still
 * hold. With {@code -Xlog:gc+ref=trace} the collector's log says how many phantom references each
 * collection found ("Phase 4 Phantom before... (n)"): the buffers a young collection gives back.
 *
 * <pre>java -Xmx1g -XX:MaxDirectMemorySize=256m [-Xlog:gc+ref=trace:file=ref.log] --add-opens ... -cp benchmarks/target/classes:agent/target/pools.jar dev.pools.bench.LeftToCollector [size] [threads] [pools|jdk] [half seconds]</pre>
 */
public final class LeftToCollector {

    private static volatile Object sink;

    private LeftToCollector() {}

    public static void main(String[] args) throws InterruptedException {
        int size = args.length > 0 ? Integer.parseInt(args[0]) : 64;
        int threads = args.length > 1 ? Integer.parseInt(args[1]) : 2;
        boolean jdk = args.length > 2 && args[2].equals("jdk");
        int halfSeconds = args.length > 3 ? Integer.parseInt(args[3]) : 6;
        PoolAllocator pools = new PoolAllocator(List.of(new PoolSpec.Sliced(4 << 20, 4 << 20, PoolSpec.UNCAPPED)));
        LongAdder made = new LongAdder();
        for (int t = 0; t < threads; t++) {
            Thread thread = new Thread(() -> {
                while (true) {
                    sink = jdk ? ByteBuffer.allocateDirect(size) : pools.allocate(size, 0);
                    made.increment();
                }
            });
            thread.setDaemon(true);
            thread.start();
        }
        long last = 0;
        for (int s = 1; s <= halfSeconds; s++) {
            Thread.sleep(500);
            long collections = 0;
            for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
                collections += gc.getCollectionCount();
            }
            long now = made.sum();
            System.out.printf(
                    "t=%.1f s made=%d (%d in this half second) pools hold=%d pages=%d collections=%d%n",
                    s / 2.0,
                    now,
                    now - last,
                    pools.usage().numberAllocs(),
                    pools.reports().get(0).pages(),
                    collections);
            last = now;
        }
    }
}
