package dev.pools.bench;

import bench.host.Tensors;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.Random;

/**
 * A service-like workload for long recordings: for {@code seconds}, about 100 requests a second of
 * mixed sizes, each kept for a while, so that the pools' state changes all the time.
 */
public final class SteadyWorkload {

    public static void main(String[] args) throws InterruptedException {
        long seconds = Long.parseLong(args[0]);
        Random random = new Random(1);
        ArrayDeque<ByteBuffer> live = new ArrayDeque<>();
        long end = System.nanoTime() + seconds * 1_000_000_000L;
        long served = 0;
        while (System.nanoTime() < end) {
            int size = random.nextInt(4) == 0 ? 64 * 1024 + random.nextInt(960 * 1024) : 64 + random.nextInt(60 * 1024);
            ByteBuffer b = Tensors.allocate(size);
            b.put(0, (byte) 1);
            live.add(b);
            served++;
            if (live.size() > 50 + random.nextInt(50)) {
                live.poll();
            }
            Thread.sleep(10);
        }
        System.out.println("served " + served);
    }
}
