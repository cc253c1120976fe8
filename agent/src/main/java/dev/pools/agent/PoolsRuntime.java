package dev.pools.agent;

import dev.pools.api.InstallMemoryPoolsException;
import dev.pools.hosts.HeldBuffers;
import dev.pools.api.MemoryPoolLayout;
import dev.pools.layout.LayoutException;
import dev.pools.layout.LayoutPrinter;
import dev.pools.layout.Layouts;
import dev.pools.layout.PoolsConfig;
import dev.pools.memory.AllocationListener;
import dev.pools.memory.CallSites;
import dev.pools.memory.PoolAllocator;
import dev.pools.memory.PoolSpec;
import dev.pools.layout.FileNames;
import java.io.IOException;
import java.nio.Buffer;
import java.nio.file.Path;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The agent's state in a running JVM, and the static entry points that instrumented host code
 * calls. Instrumented code calls only {@link #allocateDirect} and {@link #releaseClosed}; both
 * never throw anything the host would not get from the JDK itself.
 */
public final class PoolsRuntime {

    /** Where the installed layout came from, as the recording names it. */
    public enum Source { FILE, API, JMX }

    /** The normalised text of an installed layout, and where it came from. */
    public record InstalledLayout(String kind, String yaml, Source source) {
    }

    /** Told about every install, including the first. */
    public interface InstallListener {
        void installed(InstalledLayout layout);
    }

    private static volatile PoolsRuntime current;

    private final PoolsConfig config;
    private final PoolAllocator allocator;
    private final long defaultMaxPageSize;
    private final List<InstallListener> listeners = new CopyOnWriteArrayList<>();
    /** The layout from start-up, printed only when someone asks: normalising costs start-up time. */
    private volatile PoolsConfig startLayout;
    private volatile InstalledLayout installed;
    private volatile AllocationListener refusals = AllocationListener.NONE;
    private final TraceWriter trace;

    PoolsRuntime(PoolsConfig config, long defaultMaxPageSize) throws LayoutException, IOException {
        this.config = config;
        this.defaultMaxPageSize = defaultMaxPageSize;
        List<PoolSpec> specs = Layouts.compile(config.layout(), defaultMaxPageSize);
        CallSites sites = new CallSites();
        this.trace = config.report().trace() == null ? null
                : new TraceWriter(Path.of(FileNames.expand(config.report().trace())), sites);
        PoolAllocator.Options options = new PoolAllocator.Options(config.poisonOnFree(),
                config.onExhausted() == PoolsConfig.OnExhausted.FAIL, trace);
        this.allocator = new PoolAllocator(specs, options, new ForwardRefusals(), sites);
        this.startLayout = config;
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
    }

    /**
     * Stands in for {@code ByteBuffer.allocateDirect(capacity)} at an instrumented call site.
     * Serves from the pools; on any internal failure says so once and serves from the JDK.
     */
    public static ByteBuffer allocateDirect(int capacity, int site) {
        PoolsRuntime r = current;
        if (r == null || capacity < 0) {
            return ByteBuffer.allocateDirect(capacity);
        }
        try {
            return r.allocator.allocate(capacity, site);
        } catch (OutOfMemoryError e) {
            throw e; // on_exhausted: fail, or the JDK itself refusing the fallback: what the host asked for
        } catch (Throwable t) {
            AgentLog.once("allocate", "an allocation failed inside the pools; serving from the JDK instead: " + t);
            return ByteBuffer.allocateDirect(capacity);
        }
    }

    /**
     * Per thread: the host object whose hooked method runs, and the buffer it held when the method
     * began. One slot: a hooked method called inside another leaves the outer one's buffer to the
     * collector.
     */
    private static final ThreadLocal<Object[]> ENTERED = new ThreadLocal<>() {
        @Override
        protected Object[] initialValue() {
            return new Object[2];
        }
    };

    /** Start of a hooked method (see {@code CloseHooks}): notes the buffer {@code owner} holds. */
    public static void entering(Object owner) {
        try {
            Object[] slot = ENTERED.get();
            slot[0] = owner;
            slot[1] = HeldBuffers.held(owner);
        } catch (Throwable t) {
            AgentLog.once("entering", "release: close cannot read a tensor's buffer; the collector releases them: " + t);
        }
    }

    /** Normal end of a hooked method: if {@code owner} let go of the buffer it held, releases it. */
    public static void leaving(Object owner) {
        try {
            Object[] slot = ENTERED.get();
            if (slot[0] != owner) {
                return;
            }
            Object before = slot[1];
            slot[0] = null;
            slot[1] = null;
            if (before != null && HeldBuffers.held(owner) != before) {
                releaseClosed(before);
            }
        } catch (Throwable t) {
            AgentLog.once("leaving", "release: close cannot read a tensor's buffer; the collector releases them: " + t);
        }
    }

    /** Releases a buffer a host object let go of ({@code release: close}). */
    public static void releaseClosed(Object buffer) {
        PoolsRuntime r = current;
        if (r == null || !(buffer instanceof Buffer b)) {
            return;
        }
        try {
            r.allocator.release(b);
        } catch (Throwable t) {
            AgentLog.once("release", "releasing a closed tensor's buffer failed; the collector will release it: " + t);
        }
    }

    public PoolsConfig config() {
        return config;
    }

    public PoolAllocator allocator() {
        return allocator;
    }

    public CallSites sites() {
        return allocator.sites();
    }

    public long defaultMaxPageSize() {
        return defaultMaxPageSize;
    }

    public InstalledLayout installed() {
        InstalledLayout now = installed;
        if (now == null) {
            synchronized (this) {
                if (installed == null) {
                    installed = new InstalledLayout(PoolsConfig.kindOf(startLayout.layout()),
                            LayoutPrinter.print(startLayout, defaultMaxPageSize), Source.FILE);
                }
                now = installed;
            }
        }
        return now;
    }

    public void setRefusalListener(AllocationListener listener) {
        refusals = listener;
    }

    /** Adds a listener and tells it the layout installed now. */
    public void addInstallListener(InstallListener listener) {
        listeners.add(listener);
        listener.installed(installed());
    }

    /** Installs a layout; on success records it. The previous layout stays on any refusal. */
    public synchronized void install(MemoryPoolLayout layout, Source source) throws InstallMemoryPoolsException {
        List<PoolSpec> specs;
        try {
            specs = Layouts.compile(layout, defaultMaxPageSize);
        } catch (LayoutException e) {
            throw InstallMemoryPoolsException.invalidLayout(e.getMessage());
        }
        allocator.install(specs);
        PoolsConfig now = config.withLayout(layout);
        installed = new InstalledLayout(PoolsConfig.kindOf(layout), LayoutPrinter.print(now, defaultMaxPageSize), source);
        for (InstallListener l : listeners) {
            try {
                l.installed(installed);
            } catch (RuntimeException e) {
                AgentLog.once("install-listener", "recording an install failed: " + e);
            }
        }
    }
}
