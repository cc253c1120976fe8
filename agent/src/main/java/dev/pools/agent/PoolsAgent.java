package dev.pools.agent;

import dev.pools.hosts.CloseHooks;
import dev.pools.hosts.HostTransformer;
import dev.pools.layout.LayoutException;
import dev.pools.layout.LayoutFile;
import dev.pools.layout.Layouts;
import dev.pools.layout.PoolsConfig;
import dev.pools.memory.DirectMemory;
import dev.pools.memory.MallocThresholds;
import dev.pools.memory.PoolAllocator;
import dev.pools.memory.PoolReport;
import dev.pools.recording.MemoryPoolsMBean;
import dev.pools.recording.Recorder;
import java.lang.instrument.Instrumentation;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code -javaagent:pools.jar[=layout.yaml]}: reads the layout, opens the JDK internals the pools
 * need, builds the pools, instruments the host frameworks, and starts the recording off the main
 * thread. Start-up does only what {@code main} needs before it runs; the recording and the MBean
 * come up in the background.
 *
 * <p>A layout file that cannot be honoured stops the JVM before {@code main} with one line and exit
 * status 2. Any other failure is said once, and the host runs on its own allocation path.
 */
public final class PoolsAgent {

    /** Exit status for a user's mistake in the layout file. */
    public static final int BAD_INPUT = 2;

    private PoolsAgent() {
    }

    public static void premain(String args, Instrumentation inst) {
        start(args, inst, false);
    }

    public static void agentmain(String args, Instrumentation inst) {
        start(args, inst, true);
    }

    private static void start(String args, Instrumentation inst, boolean late) {
        if (PoolsRuntime.current() != null) {
            AgentLog.info("already attached to this JVM; the second attach is ignored");
            return;
        }
        PoolsConfig config;
        PoolsRuntime runtime;
        try {
            ModuleAccess.open(inst);
            long defaultMaxPageSize = Layouts.defaultMaxPageSize(DirectMemory.limit());
            config = args == null || args.isBlank() ? PoolsConfig.defaults()
                    : LayoutFile.read(Path.of(args.trim()), defaultMaxPageSize);
            runtime = new PoolsRuntime(config, defaultMaxPageSize);
        } catch (LayoutException e) {
            refuse(e.getMessage(), late);
            return;
        } catch (Throwable t) {
            AgentLog.info("could not start; the host runs on its own allocations: " + t);
            return;
        }
        try {
            PoolsRuntime.setCurrent(runtime);
            CloseHooks hooks = config.release() == PoolsConfig.Release.CLOSE ? new CloseHooks() : null;
            HostTransformer transformer = new HostTransformer(config.intercept(), runtime.sites(), hooks);
            // Retransformable only for a late attach: with it, the JVM keeps a copy of every class file it loads.
            inst.addTransformer(transformer, late);
            if (late) {
                retransformLoaded(inst, transformer, hooks);
            }
            Runtime.getRuntime().addShutdownHook(new ShutdownHook(runtime));
            Thread background = new BackgroundStart(runtime);
            background.setDaemon(true);
            background.start();
        } catch (Throwable t) {
            AgentLog.info("could not start the instrumentation; the host runs on its own allocations: " + t);
        }
    }

    private static void refuse(String message, boolean late) {
        System.err.println("pools: " + message);
        if (late) {
            throw new IllegalArgumentException("pools: " + message);
        }
        System.err.flush();
        System.exit(BAD_INPUT);
    }

    /**
     * Start-up work that {@code main} need not wait for. Threads are plain classes here, not lambdas:
     * the first lambda of a JVM costs tens of milliseconds, which {@code premain} does not spend.
     */
    private static final class BackgroundStart extends Thread {
        private final PoolsRuntime runtime;

        BackgroundStart(PoolsRuntime runtime) {
            super("pools-start");
            this.runtime = runtime;
        }

        @Override
        public void run() {
            startInBackground(runtime);
        }
    }

    /** Refuses installs once the JVM shuts down, and says when the JVM ended before its recording began. */
    private static final class ShutdownHook extends Thread {
        private final PoolsRuntime runtime;

        ShutdownHook(PoolsRuntime runtime) {
            super("pools-shutdown");
            this.runtime = runtime;
        }

        @Override
        public void run() {
            runtime.shutdown();
            if (runtime.config().reportFile() != null && !Recorder.started()) {
                AgentLog.info("the JVM ended before the recording started; no recording was written");
            }
        }
    }

    private static void startInBackground(PoolsRuntime runtime) {
        Throwable missing = PoolAllocator.unavailableBecause();
        if (missing != null) {
            AgentLog.once("native", "the JDK internals the pools need are out of reach; the host keeps its own allocations: "
                    + missing);
            return;
        }
        try {
            long largestSlice = 0;
            for (PoolReport r : runtime.allocator().reports()) {
                largestSlice = Math.max(largestSlice, r.maxSlice());
            }
            MallocThresholds.hint(largestSlice);
        } catch (Throwable t) {
            AgentLog.once("malloc", "could not give malloc its threshold hint (see README, Troubleshooting): " + t);
        }
        try {
            Recorder.start(runtime);
        } catch (Throwable t) {
            AgentLog.once("recorder", "the recording could not start; the pools run unrecorded: " + t);
        }
        try {
            // At start-up, not later: a burst of work in the middle of a run slows native libraries
            // that spin-wait for all their threads (PyTorch's OpenMP on two cores lost seconds so).
            MemoryPoolsMBean.register(runtime);
        } catch (Throwable t) {
            AgentLog.once("mbean", "the MBean pools:type=MemoryPools could not be registered: " + t);
        }
    }

    /** Late attach: classes already loaded are instrumented now; allocations made from here on are routed. */
    private static void retransformLoaded(Instrumentation inst, HostTransformer transformer, CloseHooks hooks) {
        List<Class<?>> targets = new ArrayList<>();
        for (Class<?> c : inst.getAllLoadedClasses()) {
            if (transformer.intercepts(c.getName()) && inst.isModifiableClass(c)) {
                targets.add(c);
            }
        }
        for (Class<?> c : targets) {
            try {
                inst.retransformClasses(c);
            } catch (Throwable t) {
                AgentLog.once("retransform:" + c.getName(), "cannot instrument the loaded class " + c.getName() + ": " + t);
            }
        }
        AgentLog.info("attached late: " + targets.size() + " loaded classes re-instrumented"
                + (hooks == null ? "" : ", release at close on"));
    }
}
