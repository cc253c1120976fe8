package dev.pools.it.apps;

import java.lang.management.ManagementFactory;
import java.lang.reflect.Method;
import javax.management.ObjectName;

/**
 * Waits until the agent's background start is done (its MBean is registered), then mallocs 8 blocks
 * of each size given and prints how many glibc mapped with mmap: such a block starts 16 bytes past a
 * page boundary (its header), a block from glibc's heaps almost never does.
 * Needs {@code --add-exports java.base/jdk.internal.misc=ALL-UNNAMED}.
 */
public final class MallocProbe {

    public static void main(String[] args) throws Exception {
        ObjectName pools = new ObjectName("pools:type=MemoryPools");
        for (int i = 0; i < 400 && !ManagementFactory.getPlatformMBeanServer().isRegistered(pools); i++) {
            Thread.sleep(50);
        }
        System.out.println("started " + ManagementFactory.getPlatformMBeanServer().isRegistered(pools));
        Class<?> unsafeClass = Class.forName("jdk.internal.misc.Unsafe");
        Object unsafe = unsafeClass.getMethod("getUnsafe").invoke(null);
        Method malloc = unsafeClass.getMethod("allocateMemory", long.class);
        Method free = unsafeClass.getMethod("freeMemory", long.class);
        for (String arg : args) {
            long size = Long.parseLong(arg);
            long[] blocks = new long[8];
            int mapped = 0;
            for (int i = 0; i < blocks.length; i++) {
                blocks[i] = (long) malloc.invoke(unsafe, size);
                if ((blocks[i] & 4095) == 16) {
                    mapped++;
                }
            }
            for (long b : blocks) {
                free.invoke(unsafe, b);
            }
            System.out.println("mapped " + size + " " + mapped + "/" + blocks.length);
        }
    }
}
