package dev.pools.agent;

import dev.pools.api.InstallMemoryPoolsException;
import dev.pools.api.MemoryPoolLayout;
import dev.pools.layout.InstalledLayout;
import dev.pools.layout.LayoutException;
import dev.pools.layout.LayoutFile;
import dev.pools.memory.Usage;
import java.lang.management.ManagementFactory;
import java.util.List;
import javax.management.ObjectName;

/** The implementation of {@link MemoryPoolsMXBean}: a view of the running agent over JMX. */
public final class MemoryPoolsJmx implements MemoryPoolsMXBean {

    public static final String NAME = "pools:type=MemoryPools";

    private final PoolsRuntime runtime;

    private MemoryPoolsJmx(PoolsRuntime runtime) {
        this.runtime = runtime;
    }

    public static void register(PoolsRuntime runtime) throws Exception {
        ManagementFactory.getPlatformMBeanServer().registerMBean(new MemoryPoolsJmx(runtime), new ObjectName(NAME));
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
