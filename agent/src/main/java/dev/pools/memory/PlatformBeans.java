package dev.pools.memory;

import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.RuntimeMXBean;
import java.lang.management.ThreadMXBean;
import java.util.List;

/**
 * The JVM's management beans that the recording reads: memory, its pools, direct buffers, threads
 * and the runtime. The same objects {@link ManagementFactory} returns, taken from where it takes
 * them, {@code sun.management.ManagementFactoryHelper}, when the agent has exported that package to
 * itself ({@link #EXPORTED}): {@link ManagementFactory} first finds its providers through a service
 * loader and streams, some 30 ms of CPU on a cold JVM against 4 ms, spent while the host starts up.
 * The helper is called as plain bytecode ({@link InternalCalls}), not by reflection, which on JDK 18
 * and later spins method handles. Without the export (no agent, or a JDK without the class),
 * {@link ManagementFactory} itself.
 */
public final class PlatformBeans {

    /** The module and package the agent exports to itself for this class. */
    public static final String MODULE = "java.management";

    public static final String EXPORTED = "sun.management";

    public final MemoryMXBean memory;
    public final List<MemoryPoolMXBean> memoryPools;
    public final List<BufferPoolMXBean> bufferPools;
    public final ThreadMXBean threads;
    public final RuntimeMXBean runtime;

    /** Whether these came from the helper. */
    public final boolean direct;

    PlatformBeans(
            MemoryMXBean memory,
            List<MemoryPoolMXBean> memoryPools,
            List<BufferPoolMXBean> bufferPools,
            ThreadMXBean threads,
            RuntimeMXBean runtime,
            boolean direct) {
        this.memory = memory;
        this.memoryPools = List.copyOf(memoryPools);
        this.bufferPools = List.copyOf(bufferPools);
        this.threads = threads;
        this.runtime = runtime;
        this.direct = direct;
    }

    /** Looked up at the first {@link #get}. */
    private static final class Found {
        static final PlatformBeans BEANS = find();
    }

    /** This JVM's beans, looked up once. */
    public static PlatformBeans get() {
        return Found.BEANS;
    }

    private static PlatformBeans find() {
        PlatformBeans b = fromHelper();
        return b != null ? b : fromFactory();
    }

    /** Through {@link ManagementFactory}, as any application. */
    static PlatformBeans fromFactory() {
        return new PlatformBeans(
                ManagementFactory.getMemoryMXBean(),
                ManagementFactory.getMemoryPoolMXBeans(),
                ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class),
                ManagementFactory.getThreadMXBean(),
                ManagementFactory.getRuntimeMXBean(),
                false);
    }

    /** Through the helper; null when it is out of reach. */
    static PlatformBeans fromHelper() {
        try {
            return NativeAccess.platformBeans();
        } catch (RuntimeException | LinkageError e) {
            return null;
        }
    }
}
