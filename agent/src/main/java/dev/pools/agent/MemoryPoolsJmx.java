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
    static void registerWhenServerExists(PoolsRuntime runtime) throws Exception {
        if (platformServerExists()) {
            register(runtime);
            return;
        }
        Thread poller = new Thread("pools-jmx") {
            @Override
            public void run() {
                while (true) {
                    try {
                        while (!platformServerExists()) {
                            Thread.sleep(POLL_MILLIS);
                        }
                        register(runtime);
                        return;
                    } catch (InterruptedException e) {
                        return; // The JVM is ending.
                    } catch (OutOfMemoryError e) {
                        // The Java heap is full for now (a host may catch the error and go on): look again.
                        if (!pause()) {
                            return;
                        }
                    } catch (Exception | LinkageError e) {
                        Log.once("mbean", "the MBean " + NAME + " could not be registered: " + e);
                        return;
                    }
                }
            }

            private boolean pause() {
                try {
                    Thread.sleep(POLL_MILLIS);
                    return true;
                } catch (InterruptedException e) {
                    return false;
                }
            }
        };
        poller.setDaemon(true);
        poller.start();
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
