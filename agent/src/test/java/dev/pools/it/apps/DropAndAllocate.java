package dev.pools.it.apps;

import dev.pools.api.MemoryPools;
import it.host.Tensors;
import java.nio.ByteBuffer;

/**
 * Asks for {@code count} buffers of {@code mib} MiB through an intercepted class, each dropped
 * before the next is asked for, then prints the pools' usage: under a layout whose one page holds
 * one buffer, every request after the first needs the collector's releases. It waits for the
 * recording to start first.
 */
public final class DropAndAllocate {

    public static void main(String[] args) throws InterruptedException {
        RecordedWorkload.awaitRecording();
        int count = Integer.parseInt(args[0]);
        int bytes = Integer.parseInt(args[1]) << 20;
        for (int i = 0; i < count; i++) {
            ByteBuffer b = Tensors.allocate(bytes);
            b.put(bytes - 1, (byte) 1);
        }
        System.out.println("served " + count + ", " + MemoryPools.usage());
    }
}
