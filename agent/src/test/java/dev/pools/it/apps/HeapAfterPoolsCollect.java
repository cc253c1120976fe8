package dev.pools.it.apps;

import com.sun.management.HotSpotDiagnosticMXBean;
import dev.pools.api.MemoryPools;
import it.host.Tensors;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.nio.ByteBuffer;

/**
 * Grows the Java heap with {@code mib} MiB of arrays and drops them, then asks for two 1 MiB
 * buffers through an intercepted class, dropping the first: under a layout of one 1 MiB page the
 * second needs the pools' collection. Prints the heap's committed size before and after that
 * collection, {@code MaxHeapFreeRatio} after it, and the pools' usage.
 */
public final class HeapAfterPoolsCollect {

    public static void main(String[] args) {
        MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        byte[][] arrays = new byte[Integer.parseInt(args[0])][];
        for (int i = 0; i < arrays.length; i++) {
            arrays[i] = new byte[1 << 20];
        }
        long checksum = 0;
        for (byte[] a : arrays) {
            checksum += a[a.length - 1];
        }
        arrays = null;
        ByteBuffer first = Tensors.allocate(1 << 20);
        first.put(0, (byte) 1);
        first = null;
        long before = memory.getHeapMemoryUsage().getCommitted();
        ByteBuffer second = Tensors.allocate(1 << 20);
        long after = memory.getHeapMemoryUsage().getCommitted();
        String ratio = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class)
                .getVMOption("MaxHeapFreeRatio")
                .getValue();
        System.out.println("committed before " + (before >> 20) + " MiB, after " + (after >> 20)
                + " MiB, MaxHeapFreeRatio " + ratio + ", second " + second.capacity() + ", checksum " + checksum);
        System.out.println(MemoryPools.usage());
    }
}
