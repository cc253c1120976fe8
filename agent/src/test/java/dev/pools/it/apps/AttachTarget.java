package dev.pools.it.apps;

import dev.pools.api.MemoryPools;
import it.host.Tensors;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A JVM started without the agent, for {@code attach}: it loads a host class and allocates, writes
 * its pid to {@code ready}, waits (at most two minutes) for the file {@code go}, then allocates again
 * and says whether the pools served it, then the agent's two system properties.
 */
public final class AttachTarget {

    public static void main(String[] args) throws Exception {
        ByteBuffer before = Tensors.allocate(100);
        Files.writeString(
                Path.of("ready.tmp"), Long.toString(ProcessHandle.current().pid()));
        Files.move(Path.of("ready.tmp"), Path.of("ready"));
        for (int i = 0; i < 120_000 && !Files.exists(Path.of("go")); i++) {
            Thread.sleep(1);
        }
        ByteBuffer after = Tensors.allocate(1000);
        if (System.getProperty("pools.agent") == null) {
            System.out.println("no agent");
        } else {
            System.out.println("served by the pools " + (MemoryPools.usage().numberAllocs() > 0) + ", capacities "
                    + before.capacity() + " " + after.capacity());
        }
        System.out.println("pools.agent " + System.getProperty("pools.agent"));
        System.out.println("pools.agent.refused " + System.getProperty("pools.agent.refused"));
    }
}
