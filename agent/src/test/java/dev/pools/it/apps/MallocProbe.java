package dev.pools.it.apps;

import java.lang.management.ManagementFactory;
import java.lang.reflect.Method;
import java.nio.ByteBuffer;
import java.util.Arrays;
import javax.management.ObjectName;

/**
 * Waits until the agent's background start is done (its MBean is registered), asks the host stand-in
 * ({@code it.host.Tensors}) for one direct buffer of the first size given and keeps it, then mallocs
 * 8 blocks of each further size and prints how many glibc mapped with mmap. glibc says so itself: the size word
 * of a chunk, 8 bytes before the address malloc returns, has its IS_MMAPPED bit (2) set exactly
 * for a chunk that is a mapping of its own.
 * Needs {@code --add-exports java.base/jdk.internal.misc=ALL-UNNAMED}.
 */
public final class MallocProbe {

    public static void main(String[] args) throws Exception {
        ObjectName pools = new ObjectName("pools:type=MemoryPools");
        for (int i = 0; i < 400 && !ManagementFactory.getPlatformMBeanServer().isRegistered(pools); i++) {
            Thread.sleep(50);
        }
        System.out.println(
                "started " + ManagementFactory.getPlatformMBeanServer().isRegistered(pools));
        Class<?> unsafeClass = Class.forName("jdk.internal.misc.Unsafe");
        Object unsafe = unsafeClass.getMethod("getUnsafe").invoke(null);
        Method malloc = unsafeClass.getMethod("allocateMemory", long.class);
        Method free = unsafeClass.getMethod("freeMemory", long.class);
        Method getLong = unsafeClass.getMethod("getLong", long.class);
        ByteBuffer held = it.host.Tensors.allocate(Integer.parseInt(args[0]));
        System.out.println("held " + held.capacity());
        for (String arg : Arrays.asList(args).subList(1, args.length)) {
            long size = Long.parseLong(arg);
            long[] blocks = new long[8];
            int mapped = 0;
            for (int i = 0; i < blocks.length; i++) {
                blocks[i] = (long) malloc.invoke(unsafe, size);
                long sizeWord = (long) getLong.invoke(unsafe, blocks[i] - 8);
                if ((sizeWord & 2) != 0) {
                    mapped++;
                }
            }
            for (long b : blocks) {
                free.invoke(unsafe, b);
            }
            System.out.println("mapped " + size + " " + mapped + "/" + blocks.length);
        }
        System.out.println("still held " + held.capacity());
    }
}
