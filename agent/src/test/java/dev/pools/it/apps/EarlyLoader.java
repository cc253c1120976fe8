package dev.pools.it.apps;

import dev.pools.api.MemoryPools;
import it.host.Tensors;
import java.nio.ByteBuffer;

/**
 * An agent that runs before pools and loads a class of an intercepted package (as another agent or
 * a launcher may), then an application that allocates through that class: its allocation must
 * still be served by the pools.
 */
public final class EarlyLoader {

    private static ByteBuffer held;

    public static void premain(String args) throws ClassNotFoundException {
        Class.forName("it.host.Tensors");
    }

    public static void main(String[] args) {
        held = Tensors.allocate(1000);
        System.out.println("pooled " + MemoryPools.usage().numberAllocs());
    }
}
