package dev.pools.recording;

import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.RuntimeMXBean;
import java.lang.management.ThreadMXBean;
import java.lang.reflect.Method;
import java.util.List;

/**
 * The JVM's management beans that the recording reads: memory, its pools, direct buffers, threads
 * and the runtime. The same objects {@link ManagementFactory} returns, taken from where it takes
 * them, {@code sun.management.ManagementFactoryHelper}, when the agent has that package exported to
 * itself ({@link #EXPORTED}): {@link ManagementFactory} first finds its providers through a service
 * loader and streams, some 30 ms of CPU on a cold JVM against 4 ms, spent while the host starts up.
 * Without the export (no agent, or a JDK without the class), {@link ManagementFactory} itself.
 */
final class PlatformBeans {

    /** The module and package the agent exports to itself for this class. */
    static final String MODULE = "java.management";

    static final String EXPORTED = "sun.management";

    private static final String HELPER = EXPORTED + ".ManagementFactoryHelper";

    private static final PlatformBeans BEANS = find();

    final MemoryMXBean memory;
    final List<MemoryPoolMXBean> memoryPools;
    final List<BufferPoolMXBean> bufferPools;
    final ThreadMXBean threads;
    final RuntimeMXBean runtime;

    /** Whether these came from the helper (tests). */
    final boolean direct;

    private PlatformBeans(
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

    /** This JVM's beans, looked up once. */
    static PlatformBeans get() {
        return BEANS;
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

    /** Through the helper; null when the package is not exported to the agent or the helper differs. */
    @SuppressWarnings("unchecked")
    static PlatformBeans fromHelper() {
        Module self = PlatformBeans.class.getModule();
        Module management = MemoryMXBean.class.getModule();
        if (!management.isExported(EXPORTED, self)) {
            return null;
        }
        try {
            Class<?> helper = Class.forName(HELPER);
            return new PlatformBeans(
                    (MemoryMXBean) call(helper, "getMemoryMXBean"),
                    (List<MemoryPoolMXBean>) call(helper, "getMemoryPoolMXBeans"),
                    (List<BufferPoolMXBean>) call(helper, "getBufferPoolMXBeans"),
                    (ThreadMXBean) call(helper, "getThreadMXBean"),
                    (RuntimeMXBean) call(helper, "getRuntimeMXBean"),
                    true);
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            return null;
        }
    }

    private static Object call(Class<?> helper, String method) throws ReflectiveOperationException {
        Method m = helper.getMethod(method);
        Object result = m.invoke(null);
        if (result == null) {
            throw new NoSuchMethodException(method + " gave nothing");
        }
        return result;
    }
}
