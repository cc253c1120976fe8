package dev.pools.it.apps;

import dev.pools.agent.PoolsRuntime;
import it.host.Tensors;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * A deterministic workload whose peaks depend on its seed: it holds up to {@code 20 + 10 * seed}
 * buffers of mixed sizes at once and releases them explicitly.
 */
public final class SeededWorkload {

    /** Reachable until the JVM is gone, so that the recording's final state holds them whatever the collector does at exit. */
    static final List<ByteBuffer> LIVE = new ArrayList<>();

    public static void main(String[] args) throws Exception {
        RecordedWorkload.awaitRecording();
        int seed = Integer.parseInt(args[0]);
        Random random = new Random(seed);
        int hold = 20 + 10 * seed;
        List<ByteBuffer> live = LIVE;
        for (int i = 0; i < 2000; i++) {
            if (live.size() >= hold) {
                PoolsRuntime.current().allocator().release(live.remove(random.nextInt(live.size())));
            }
            int size = random.nextBoolean() ? 1 + random.nextInt(16 * 1024) : 16 * 1024 + random.nextInt(200 * 1024);
            live.add(Tensors.allocate(size));
        }
        System.out.println("done " + live.size());
    }
}
