package dev.pools.memory;

/**
 * The JDK's direct memory limit ({@code -XX:MaxDirectMemorySize}, or the heap's maximum by default).
 *
 * <p>A class of its own so that reading the limit in {@code premain} does not initialise
 * {@link NativeAccess}, whose internals cost a JVM some milliseconds to resolve the first time; they
 * are resolved off the main thread, when the agent's background start checks them, or at the first
 * allocation.
 */
public final class DirectMemory {

    private DirectMemory() {}

    /** The limit in bytes. */
    public static long limit() {
        JdkInternals.open();
        try {
            return (long) Class.forName("jdk.internal.misc.VM")
                    .getMethod("maxDirectMemory")
                    .invoke(null);
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            return Runtime.getRuntime().maxMemory();
        }
    }
}
