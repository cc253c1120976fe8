package dev.pools.bench;

import dev.pools.memory.PoolAllocator;
import dev.pools.memory.PoolSpec;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.util.List;

/**
 * How many buffers dropped by the program are still held after young collections only: the pools'
 * (their leases) and the JDK's own direct buffers (their cleaners), side by side. Each round drops
 * {@code buffers} 64-byte buffers, then allocates garbage until several young collections have run;
 * at the end, one full collection.
 *
 * <pre>java -cp benchmarks/target/classes:agent/target/pools.jar [GC flags] dev.pools.bench.YoungCollections [buffers] [rounds] [both|pools|jdk]</pre>
 */
public final class YoungCollections {

    private static volatile Object sink;

    private YoungCollections() {}

    public static void main(String[] args) throws InterruptedException {
        int buffers = args.length > 0 ? Integer.parseInt(args[0]) : 200_000;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 5;
        // "both" (side by side: the two compete for the survivor space), "pools" or "jdk" (each alone).
        String which = args.length > 2 ? args[2] : "both";
        boolean withPools = !which.equals("jdk");
        boolean withJdk = !which.equals("pools");
        PoolAllocator pools = new PoolAllocator(List.of(new PoolSpec.Sliced(4 << 20, 4 << 20, PoolSpec.UNCAPPED)));
        BufferPoolMXBean direct = ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class).stream()
                .filter(b -> b.getName().equals("direct"))
                .findFirst()
                .orElseThrow();
        long directBefore = direct.getCount();
        for (int round = 1; round <= rounds; round++) {
            for (int i = 0; i < buffers; i++) {
                if (withPools) {
                    sink = pools.allocate(64, 0);
                }
                if (withJdk) {
                    sink = ByteBuffer.allocateDirect(64);
                }
            }
            sink = null;
            for (int i = 0; i < 4_000_000; i++) {
                sink = new byte[64]; // about 300 MB of garbage: young collections only
            }
            Thread.sleep(500); // the pools' release thread and the JDK's reference handler catch up
            System.out.printf(
                    "round %d: %d dropped by each so far; still held: pools %d (in %d pages of 4 MiB), allocateDirect %d%n",
                    round,
                    (long) round * buffers,
                    pools.usage().numberAllocs(),
                    pools.reports().get(0).pages(),
                    direct.getCount() - directBefore);
        }
        System.gc(); // a full collection finds the references the young ones did not look at
        Thread.sleep(500);
        System.out.printf(
                "after System.gc(): still held: pools %d, allocateDirect %d%n",
                pools.usage().numberAllocs(), direct.getCount() - directBefore);
    }
}
