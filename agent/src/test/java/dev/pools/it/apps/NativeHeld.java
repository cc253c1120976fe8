package dev.pools.it.apps;

import java.lang.reflect.Field;
import java.lang.reflect.Method;

/**
 * Mallocs the MiB given as its argument, writes every byte of it, and ends normally while holding
 * it: native memory outside every part the JVM accounts for, in the agent's sample at the end. Uses
 * {@code sun.misc.Unsafe} from {@code jdk.unsupported}, which needs no flag.
 */
public final class NativeHeld {

    public static void main(String[] args) throws Exception {
        long bytes = Long.parseLong(args[0]) << 20;
        Class<?> unsafeClass = Class.forName("sun.misc.Unsafe");
        Field theUnsafe = unsafeClass.getDeclaredField("theUnsafe");
        theUnsafe.setAccessible(true);
        Object unsafe = theUnsafe.get(null);
        Method malloc = unsafeClass.getMethod("allocateMemory", long.class);
        Method set = unsafeClass.getMethod("setMemory", long.class, long.class, byte.class);
        long address = (long) malloc.invoke(unsafe, bytes);
        set.invoke(unsafe, address, bytes, (byte) 1);
        System.out.println("native held " + bytes);
    }
}
