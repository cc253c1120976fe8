package dev.pools.agent;

import dev.pools.api.InstallMemoryPoolsException;
import dev.pools.api.MemoryPoolLayout;
import dev.pools.api.MemoryPools;
import dev.pools.hosts.Allocations;
import dev.pools.layout.FileNames;
import dev.pools.layout.InstalledLayout;
import dev.pools.layout.LayoutException;
import dev.pools.layout.LayoutPrinter;
import dev.pools.layout.Layouts;
import dev.pools.layout.PoolsConfig;
import dev.pools.log.Log;
import dev.pools.memory.AllocationListener;
import dev.pools.memory.CallSites;
import dev.pools.memory.PoolAllocator;
import dev.pools.memory.PoolSpec;
import dev.pools.recording.EarlyRefusals;
import dev.pools.recording.Recorded;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.LongSupplier;

/**
 * The agent's state in a running JVM: the configuration, the allocator, the installed layout and
 * who listens for installs. Instrumented host code calls into the hosts package, not here.
 */
public final class PoolsRuntime implements Recorded {

    private static volatile PoolsRuntime current;

    private final PoolsConfig config;
    private final PoolAllocator allocator;
    private final LongSupplier defaultMaxPageSize;
    private final List<InstalledLayout.Listener> listeners = new CopyOnWriteArrayList<>();
    /** The layout from start-up, printed only when someone asks: normalising costs start-up time. */
    private volatile PoolsConfig startLayout;
    /** Whether the layout from start-up came from a file; if not, it is the default (none was given). */
    private final boolean startFromFile;

    private volatile InstalledLayout installed;
    private volatile AllocationListener refusals;
    /** Refusals kept until the recording starts; null without a recording. */
    private final EarlyRefusals earlyRefusals;

    private final TraceWriter trace;
    private final long startTicks = System.nanoTime();
    private final long startMillis = System.currentTimeMillis();

    PoolsRuntime(PoolsConfig config, boolean fromFile, LongSupplier defaultMaxPageSize)
            throws LayoutException, IOException {
        this.config = config;
        this.startFromFile = fromFile;
        this.defaultMaxPageSize = defaultMaxPageSize;
        List<PoolSpec> specs = Layouts.compile(config.layout(), defaultMaxPageSize);
        CallSites sites = new CallSites();
        this.trace = config.report().trace() == null
                ? null
                : openTrace(config.report().trace(), sites);
        PoolAllocator.Options options = new PoolAllocator.Options(
                config.poisonOnFree(), config.onExhausted() == PoolsConfig.OnExhausted.FAIL, trace);
        this.earlyRefusals = config.reportFile() == null ? null : new EarlyRefusals(sites);
        this.refusals = earlyRefusals == null ? AllocationListener.NONE : earlyRefusals;
        this.allocator = new PoolAllocator(specs, options, new ForwardRefusals(), sites);
        this.startLayout = config;
    }

    /**
     * The allocation trace, or none when its file cannot be written (said once): a trace is for
     * measuring runs, and its loss costs only the trace, not the pools or the recording.
     */
    private static TraceWriter openTrace(String pattern, CallSites sites) {
        String name = FileNames.expand(pattern);
        try {
            return new TraceWriter(Path.of(name), sites);
        } catch (IOException | RuntimeException e) {
            Log.once("trace", "report.trace: cannot write " + name + " (" + e.getMessage() + "); no trace is written");
            return null;
        }
    }

    /** Ends the JVM's part: installs are refused from now on, and the trace is written out. */
    void shutdown() {
        allocator.shutdown();
        if (trace != null) {
            trace.close();
        }
    }

    /** Hands refusals to whoever listens now (the recording starts after the pools). */
    private final class ForwardRefusals implements AllocationListener {
        @Override
        public void refused(int size, int site, String reason, boolean fellBack) {
            refusals.refused(size, site, reason, fellBack);
        }
    }

    /** The running agent's state; null when no agent is attached to this JVM. */
    public static PoolsRuntime current() {
        return current;
    }

    static void setCurrent(PoolsRuntime runtime) {
        current = runtime;
        Allocations.routeTo(runtime.allocator);
        MemoryPools.connect(new ApiBackend(runtime));
    }

    @Override
    public PoolsConfig config() {
        return config;
    }

    @Override
    public PoolAllocator allocator() {
        return allocator;
    }

    public CallSites sites() {
        return allocator.sites();
    }

    public long defaultMaxPageSize() {
        return defaultMaxPageSize.getAsLong();
    }

    @Override
    public InstalledLayout installed() {
        InstalledLayout now = installed;
        if (now == null) {
            synchronized (this) {
                if (installed == null) {
                    installed = new InstalledLayout(
                            PoolsConfig.kindOf(startLayout.layout()),
                            LayoutPrinter.print(startLayout, defaultMaxPageSize),
                            startFromFile ? InstalledLayout.Source.FILE : InstalledLayout.Source.DEFAULT);
                }
                now = installed;
            }
        }
        return now;
    }

    @Override
    public void setRefusalListener(AllocationListener listener) {
        refusals = listener;
    }

    @Override
    public EarlyRefusals earlyRefusals() {
        return earlyRefusals;
    }

    @Override
    public long startTicks() {
        return startTicks;
    }

    @Override
    public long startMillis() {
        return startMillis;
    }

    /**
     * Adds a listener and tells it the layout installed now; under the lock {@link #install} holds, so
     * that an install at the same time is told to it once, and after the layout it replaces.
     */
    @Override
    public synchronized void addInstallListener(InstalledLayout.Listener listener) {
        listeners.add(listener);
        listener.installed(installed());
    }

    @Override
    public synchronized void tellInstalled(InstalledLayout.Listener listener) {
        listener.installed(installed());
    }

    /** Installs a layout; on success records it. The previous layout stays on any refusal. */
    public synchronized void install(MemoryPoolLayout layout, InstalledLayout.Source source)
            throws InstallMemoryPoolsException {
        List<PoolSpec> specs;
        try {
            specs = Layouts.compile(layout, defaultMaxPageSize);
        } catch (LayoutException e) {
            throw InstallMemoryPoolsException.invalidLayout(e.getMessage());
        }
        allocator.install(specs);
        PoolsConfig now = config.withLayout(layout);
        installed =
                new InstalledLayout(PoolsConfig.kindOf(layout), LayoutPrinter.print(now, defaultMaxPageSize), source);
        for (InstalledLayout.Listener l : listeners) {
            try {
                l.installed(installed);
            } catch (RuntimeException e) {
                Log.once("install-listener", "recording an install failed: " + e);
            }
        }
    }
}
