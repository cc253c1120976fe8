package dev.pools.agent;

import dev.pools.api.InstallMemoryPoolsException;
import dev.pools.api.MemoryPoolLayout;
import dev.pools.layout.InstalledLayout;
import dev.pools.layout.LayoutException;
import dev.pools.layout.LayoutFile;
import dev.pools.log.Log;
import dev.pools.memory.Usage;
import java.lang.management.ManagementFactory;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import javax.management.InstanceAlreadyExistsException;
import javax.management.MBeanServer;
import javax.management.MBeanServerFactory;
import javax.management.MalformedObjectNameException;
import javax.management.ObjectName;

/** The implementation of {@link MemoryPoolsMXBean}: a view of the running agent over JMX. */
public final class MemoryPoolsJmx implements MemoryPoolsMXBean {

    public static final String NAME = "pools:type=MemoryPools";

    private final PoolsRuntime runtime;

    private MemoryPoolsJmx(PoolsRuntime runtime) {
        this.runtime = runtime;
    }

    /** How often the agent looks for the platform MBean server until the JVM has one. */
    static final long POLL_MILLIS = 1_000;

    public static void register(PoolsRuntime runtime) throws Exception {
        ManagementFactory.getPlatformMBeanServer().registerMBean(new MemoryPoolsJmx(runtime), new ObjectName(NAME));
    }

    /**
     * Registers the MBean in the platform MBean server now if the JVM has one, else as soon as
     * anything creates it (a JMX agent, jconsole attaching, the application), looking once a second
     * from a daemon thread. The agent does not create the server itself: with every platform MXBean
     * it registers, that costs a JVM about a quarter of a second of CPU and 20 MiB, and on JDK 25
     * more (BENCHMARKS.md, B4) — for a view nobody may open. Nobody can reach the MBean before the
     * server exists, so nothing is lost; it appears at most {@value #POLL_MILLIS} ms after it.
     */
    static void registerWhenServerExists(PoolsRuntime runtime) {
        untilTheHeapAllows(new RegisterOrPoll(runtime));
    }

    /**
     * Registers now, or starts the poller. Named classes, not lambdas, on the start's path: the
     * first lambda of a JVM costs tens of milliseconds of CPU while the application starts.
     */
    private static final class RegisterOrPoll implements Step {
        private final PoolsRuntime runtime;

        RegisterOrPoll(PoolsRuntime runtime) {
            this.runtime = runtime;
        }

        @Override
        public boolean done() throws Exception {
            if (platformServerExists()) {
                register(runtime);
                return true;
            }
            Thread poller = new Poller(runtime);
            poller.setDaemon(true);
            poller.start();
            return true;
        }
    }

    /** Looks for the platform MBean server once a second, and registers the MBean in it once it exists. */
    private static final class Poller extends Thread implements Step {
        private final PoolsRuntime runtime;

        Poller(PoolsRuntime runtime) {
            super("pools-jmx");
            this.runtime = runtime;
        }

        @Override
        public boolean done() throws Exception {
            if (!platformServerExists()) {
                Thread.sleep(POLL_MILLIS);
                return false;
            }
            register(runtime);
            return true;
        }

        @Override
        public void run() {
            while (true) {
                try {
                    untilTheHeapAllows(this);
                    return;
                } catch (Throwable heapFull) {
                    // A full heap even in its handler: again, after a pause.
                    pause(POLL_MILLIS);
                }
            }
        }
    }

    /**
     * Waits {@code millis} at a full heap: {@link LockSupport}, initialised at the agent's start,
     * allocates nothing ({@code Thread.sleep} may: JDK 25's sleep event), so the wait itself does
     * not fail and make a retry spin. Never throws.
     */
    static void pause(long millis) {
        try {
            LockSupport.parkNanos(millis * 1_000_000L);
        } catch (Throwable t) {
            // nothing more to do
        }
    }

    /** One try of a step that may meet a full heap: whether it is done. */
    interface Step {
        boolean done() throws Exception;
    }

    /**
     * Runs {@code step} until it is done. A full Java heap, or no room for a thread (a host's spike at
     * start-up, which it may catch and survive), is waited out {@value #POLL_MILLIS} ms at a time:
     * the MBean is not lost for the run. An MBean already registered (by a try that the heap failed
     * after) is done. Any other failure is said once; nothing is thrown, and an interrupt (the JVM's
     * end) ends it.
     */
    static void untilTheHeapAllows(Step step) {
        untilTheHeapAllows(step, POLL_MILLIS);
    }

    static void untilTheHeapAllows(Step step, long pauseMillis) {
        while (true) {
            try {
                if (step.done()) {
                    return;
                }
            } catch (InterruptedException e) {
                return;
            } catch (OutOfMemoryError e) {
                pause(pauseMillis);
            } catch (InstanceAlreadyExistsException e) {
                return;
            } catch (Exception | LinkageError e) {
                Log.onceIfItCan("mbean", "the MBean " + NAME + " could not be registered: ", e);
                return;
            }
        }
    }

    /** Whether the platform MBean server exists, found without creating it: it is the one with the JVM's own MXBeans. */
    static boolean platformServerExists() throws MalformedObjectNameException {
        ObjectName runtimeMXBean = new ObjectName(ManagementFactory.RUNTIME_MXBEAN_NAME);
        for (MBeanServer server : MBeanServerFactory.findMBeanServer(null)) {
            if (server.isRegistered(runtimeMXBean)) {
                return true;
            }
        }
        return false;
    }

    @Override
    public UsageView getUsage() {
        Usage u = runtime.allocator().usage();
        return new UsageView(
                u.numberAllocs(),
                u.bytesInUse(),
                u.bytesPadding(),
                u.bytesReserved(),
                u.fallbackAllocs(),
                u.fallbackBytes());
    }

    @Override
    public List<PoolView> getReports() {
        return runtime.allocator().reports().stream()
                .map(r -> new PoolView(
                        r.index(),
                        r.kind().label(),
                        r.pageSize(),
                        r.maxSlice(),
                        r.pagesCap(),
                        r.pages(),
                        r.pagesPeak(),
                        r.largestAlloc()))
                .toList();
    }

    @Override
    public String getLayout() {
        return runtime.installed().yaml();
    }

    @Override
    public void install(String yaml) {
        MemoryPoolLayout layout;
        try {
            layout = LayoutFile.parseLayout("install", yaml, runtime.defaultMaxPageSize());
        } catch (LayoutException e) {
            throw new IllegalArgumentException("INVALID_LAYOUT: " + e.getMessage());
        }
        try {
            runtime.install(layout, InstalledLayout.Source.JMX);
        } catch (InstallMemoryPoolsException e) {
            throw new IllegalStateException(e.kind() + ": " + e.getMessage());
        }
    }

    @Override
    public void cleanup() {
        runtime.allocator().cleanup();
    }
}
