package dev.pools.it.apps;

import it.host.Tensors;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * Direct memory held to its limit outside the pools (31 buffers of 1 MiB this class keeps, under a
 * limit of 32 MiB), then one request through the intercepted package that no pool takes and the JDK
 * must refuse. Prints the refusal and how many full collections it took: the JDK collects once before
 * it refuses, and nothing the pools gave back could have made room for a second try.
 */
public final class RefusedOnce {

    public static void main(String[] args) {
        List<ByteBuffer> held = new ArrayList<>();
        for (int i = 0; i < 31; i++) {
            held.add(ByteBuffer.allocateDirect(1 << 20));
        }
        long before = fullCollections();
        try {
            Tensors.allocate(2 << 20);
            System.out.println("served");
        } catch (OutOfMemoryError e) {
            System.out.println("refused: " + e.getClass().getName());
        }
        System.out.println("full collections " + (fullCollections() - before));
        System.out.println("held " + held.size());
    }

    private static long fullCollections() {
        long n = 0;
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            if (gc.getName().equals("G1 Old Generation")) {
                n += gc.getCollectionCount();
            }
        }
        return n;
    }
}
