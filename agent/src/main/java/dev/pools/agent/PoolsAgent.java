package dev.pools.agent;

import dev.pools.hosts.HostTransformer;
import dev.pools.layout.LayoutException;
import dev.pools.layout.LayoutFile;
import dev.pools.layout.Layouts;
import dev.pools.layout.PoolsConfig;
import dev.pools.log.Log;
import dev.pools.memory.DirectMemory;
import dev.pools.memory.JdkInternals;
import dev.pools.memory.MallocThresholds;
import dev.pools.memory.PoolAllocator;
import dev.pools.recording.Recorded;
import dev.pools.recording.Recorder;
import java.lang.instrument.Instrumentation;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * {@code -javaagent:pools.jar[=layout.yaml]}: reads the layout, builds the pools, instruments the
 * host frameworks, and starts the recording off the main thread. Start-up does only what {@code
 * main} needs before it runs: the JDK internals the pools need are opened by whatever first
 * reaches them (the background start, or the first allocation), and the recording and the MBean
 * come up in the background.
 *
 * <p>A layout file that cannot be honoured stops the JVM before {@code main} with one line and exit
 * status 2. Any other failure is said once, and the host runs on its own allocation path.
 */
public final class PoolsAgent {

    /**
     * Set in the JVM once the agent runs: the layout file it read, or {@code default}. {@code java -jar
     * pools.jar attach} reads it through the Attach API (already attached? which layout?).
     */
    public static final String RUNNING_PROPERTY = "pools.agent";

    /** Set in the JVM when a late attach refused its layout: the one line it said; {@code attach} reports it. */
    public static final String REFUSED_PROPERTY = "pools.agent.refused";

    /** {@code -Dpools.mallocHint=false} keeps the agent from giving glibc's malloc its threshold hint. */
    static final String MALLOC_HINT_PROPERTY = "pools.mallocHint";

    private PoolsAgent() {}

    public static void premain(String args, Instrumentation inst) {
        try {
            start(args, inst, false);
        } catch (Throwable t) {
            cannotStart(t);
        }
    }

    public static void agentmain(String args, Instrumentation inst) {
        try {
            start(args, inst, true);
        } catch (LateRefusal refused) {
            throw new IllegalArgumentException(refused.getMessage());
        } catch (Throwable t) {
            cannotStart(t);
        }
    }

    /**
     * A failure outside the steps that say their own (a security manager that refuses the agent a
     * system property, say): one line, and the host starts on its own allocations. Said without the
     * agent's {@link Log}, which may be what failed.
     */
    private static void cannotStart(Throwable t) {
        try {
            System.err.println("pools: could not start; the host runs on its own allocations: " + t);
        } catch (Throwable again) {
            // Nothing more can be said.
        }
    }

    /** A late attach's refusal of its layout, which the attaching side is told (not a failure to hide). */
    private static final class LateRefusal extends RuntimeException {
        LateRefusal(String message) {
            super(message, null, false, false);
        }
    }

    private static void start(String args, Instrumentation inst, boolean late) {
        if (!late && Launch.staysOut() != null) {
            return; // pools.jar's own command line, or a tool of the JDK: no host to serve, nothing to record
        }
        // Initialised now, while the heap has room: the agent's threads say failures and pause with
        // them at a full heap, where a class first initialised then may fail for the whole run (the
        // JVM does not try again), and a pause that throws makes a retry spin.
        Log.ready();
        LockSupport.unpark(null);
        if (PoolsRuntime.current() != null) {
            Log.info("already attached to this JVM; the second attach is ignored");
            return;
        }
        AgentProperties.check();
        PoolsConfig config;
        PoolsRuntime runtime;
        try {
            JdkInternals.openWith(new OpenInternals(inst));
            DefaultMaxPageSize defaultMaxPageSize = new DefaultMaxPageSize();
            boolean noFile = args == null || args.isBlank();
            config = noFile ? PoolsConfig.defaults() : LayoutFile.readToRun(layoutPath(args), defaultMaxPageSize);
            runtime = new PoolsRuntime(config, !noFile, defaultMaxPageSize);
            if (late) {
                Recorder.attachedLate();
            }
        } catch (LayoutException e) {
            refuse(e.getMessage(), late);
            return;
        } catch (Throwable t) {
            Log.once("start", "could not start; the host runs on its own allocations: " + t);
            return;
        }
        try {
            String layout = args == null || args.isBlank()
                    ? "default"
                    : layoutPath(args).toAbsolutePath().normalize().toString();
            System.setProperty(RUNNING_PROPERTY, layout);
            // An earlier attach's refusal no longer holds.
            System.clearProperty(REFUSED_PROPERTY);
        } catch (RuntimeException | LayoutException e) {
            // A security manager, say: attach then cannot tell; nothing else depends on it. (The
            // layout's path was read above.)
        }
        try {
            if (AgentProperties.mallocHint()) {
                MallocThresholds.follow(new MallocHintFailed());
            }
            PoolsRuntime.setCurrent(runtime);
            boolean releaseAtClose = config.release() == PoolsConfig.Release.CLOSE;
            HostTransformer transformer =
                    new HostTransformer(config.intercept(), runtime.sites(), HostFrameworks.CLASSES, releaseAtClose);
            // Not retransformation-capable: with that, the JVM would keep a copy of every class file it loads.
            inst.addTransformer(transformer, false);
            retransformLoaded(inst, transformer, late, releaseAtClose);
            Runtime.getRuntime().addShutdownHook(new ShutdownHook(runtime));
            Thread background = new BackgroundStart(runtime, inst);
            background.setDaemon(true);
            background.start();
        } catch (Throwable t) {
            Log.once("start", "could not start the instrumentation; the host runs on its own allocations: " + t);
        }
    }

    /**
     * The layout file the agent argument names. A name this JVM cannot make a path of (a name not in
     * the encoding of its locale: under the C locale of many containers, any non-ASCII name) is a
     * layout that cannot be honoured, as a missing file is.
     */
    private static Path layoutPath(String args) throws LayoutException {
        String name = args.trim();
        try {
            return Path.of(name);
        } catch (InvalidPathException e) {
            throw new LayoutException(name + ": not a file name this JVM can use (" + e.getReason()
                    + "; file names are in the encoding of its locale, " + System.getProperty("sun.jnu.encoding")
                    + "; give the JVM a UTF-8 locale, LANG=C.UTF-8, or an ASCII name)");
        }
    }

    private static void refuse(String message, boolean late) {
        System.err.println("pools: " + message);
        if (late) {
            try {
                System.setProperty(REFUSED_PROPERTY, message);
            } catch (RuntimeException e) {
                // attach then says the attach failed, without the reason.
            }
            throw new LateRefusal("pools: " + message);
        }
        System.err.flush();
        System.exit(LayoutException.EXIT_STATUS);
    }

    /**
     * Start-up work that {@code main} need not wait for. Threads are plain classes here, not lambdas:
     * the first lambda of a JVM costs tens of milliseconds, which {@code premain} does not spend.
     */
    private static final class BackgroundStart extends Thread {
        /** How long the start waits before it runs its steps again after a full heap. */
        private static final long RETRY_NANOS = 1_000_000_000L;

        private final PoolsRuntime runtime;
        private final Instrumentation inst;

        BackgroundStart(PoolsRuntime runtime, Instrumentation inst) {
            super("pools-start");
            this.runtime = runtime;
            this.inst = inst;
        }

        @Override
        public void run() {
            // A full heap (a host's spike at start-up) even in a handler of the steps: they run again,
            // a second later, each as far as it got (the recording starts once, the MBean registers once).
            while (true) {
                try {
                    startInBackground(runtime, inst);
                    return;
                } catch (Throwable heapFull) {
                    // Not a call into a class of the agent's not yet initialised, which may fail here too.
                    try {
                        LockSupport.parkNanos(RETRY_NANOS);
                    } catch (Throwable again) {
                        // again
                    }
                }
            }
        }
    }

    /**
     * The default largest page, from the JDK's direct memory limit, read the first time a preset
     * without {@code max_page_size} asks for it: on JDK 25 the reflective call costs {@code premain}
     * several milliseconds, which a layout of sliced pools does not need. A named class, not a lambda.
     */
    private static final class DefaultMaxPageSize implements LongSupplier {
        private volatile long value;

        @Override
        public long getAsLong() {
            long v = value;
            if (v == 0) {
                v = Layouts.defaultMaxPageSize(DirectMemory.limit());
                value = v;
            }
            return v;
        }
    }

    /** Opens the JDK internals the pools need, when something first reaches them ({@link JdkInternals#open}). */
    private static final class OpenInternals implements Runnable {
        private final Instrumentation inst;

        OpenInternals(Instrumentation inst) {
            this.inst = inst;
        }

        @Override
        public void run() {
            ModuleAccess.open(inst);
        }
    }

    /** Says why the pools are out of reach. */
    private static final class SayOutOfReach implements MemoryPoolsJmx.Step {
        private final Throwable missing;

        SayOutOfReach(Throwable missing) {
            this.missing = missing;
        }

        @Override
        public boolean done() {
            Log.once(
                    "native",
                    "the JDK internals the pools need are out of reach; the host keeps its own allocations: "
                            + missing);
            return true;
        }
    }

    /** Says once that a malloc hint failed; the hints are off from then on. */
    private static final class MallocHintFailed implements Consumer<Throwable> {
        @Override
        public void accept(Throwable t) {
            Log.once("malloc", "could not give malloc its threshold hint (see README, Troubleshooting): " + t);
        }
    }

    /** Refuses installs once the JVM shuts down, and ends the recording (or writes it whole, if not started). */
    private static final class ShutdownHook extends Thread {
        private final PoolsRuntime runtime;

        ShutdownHook(PoolsRuntime runtime) {
            super("pools-shutdown");
            this.runtime = runtime;
        }

        @Override
        public void run() {
            try {
                runtime.shutdown();
                // Pools whose JDK internals are out of reach run nothing, and record nothing (said at start).
                Recorded recordable = PoolAllocator.unavailableBecause() == null ? runtime : null;
                if (Recorder.shutdown(recordable) == Recorder.Ending.STILL_WRITING) {
                    Log.once(
                            "final batch",
                            "the JVM ended while the recording was starting or writing a batch, which did not"
                                    + " finish within " + Recorder.SHUTDOWN_WAIT_MS / 1000
                                    + " s; the JVM ends without its final batch (the file may be missing, empty, or as of"
                                    + " its last batch)");
                }
            } catch (Throwable t) {
                // A class of the agent's that a full heap left unusable at its start (the JVM then said
                // nothing of it), or a full heap now: one line, not a stack trace on the host's stderr.
                Log.onceIfItCan("shutdown", "the agent's end did not complete: ", t);
            }
        }
    }

    private static void startInBackground(PoolsRuntime runtime, Instrumentation inst) {
        Throwable missing = PoolAllocator.unavailableBecause();
        if (missing != null) {
            // Said once the heap has room for the line (a host's full heap at start-up is one reason).
            MemoryPoolsJmx.untilTheHeapAllows(new SayOutOfReach(missing));
            return;
        }
        try {
            Recorder.start(runtime);
        } catch (Throwable t) {
            // A full heap here leaves the recording to the JVM's end, which starts it (Recorder.start).
            Log.onceIfItCan("recorder", "the recording could not start; the pools run unrecorded: ", t);
        }
        // Not created here, only joined once something else creates it: the platform MBean server's
        // own cost is a JVM's, not ours to add. A full heap is waited out (MemoryPoolsJmx).
        MemoryPoolsJmx.registerWhenServerExists(runtime);
    }

    /**
     * Classes of intercepted packages loaded before the transformer was added (by a late attach, or
     * before {@code premain} by another agent or a launcher) are instrumented now, through a
     * retransformation-capable copy of the transformer, which stays registered for later
     * retransformations of them by other agents. Each class that
     * cannot be is named once on stderr; hidden classes are skipped, as at class load.
     *
     * <p>All of them are retransformed in one call: the JVM then stops the application once, not once
     * per class. Only if that call fails (it then changes none of them) are they taken one by one, to
     * instrument every class that can be and name those that cannot.
     *
     * @return how many classes were re-instrumented
     */
    static int retransformLoaded(
            Instrumentation inst, HostTransformer transformer, boolean late, boolean releaseAtClose) {
        List<Class<?>> targets = new ArrayList<>();
        int hidden = 0;
        for (Class<?> c : inst.getAllLoadedClasses()) {
            // A hidden class (a lambda's, a method handle's) is never given to a transformer, at load
            // or later: the JVM does not let it be changed. A lambda's body is a method of the class
            // that declares it, which is instrumented with it; but the class a method reference
            // (ByteBuffer::allocateDirect) was linked to before the attach calls the JDK itself.
            if (transformer.intercepts(c.getName()) && c.isHidden()) {
                hidden++;
            }
            if (transformer.intercepts(c.getName()) && !c.isArray() && !c.isHidden()) {
                if (inst.isModifiableClass(c)) {
                    targets.add(c);
                } else {
                    cannotRetransform(c, new IllegalStateException("the JVM does not let it be changed"));
                }
            }
        }
        if (late && hidden > 0) {
            Log.info("attached late: " + hidden + " hidden classes of the intercepted packages (lambdas, method"
                    + " references) cannot be changed; a method reference to ByteBuffer.allocateDirect linked"
                    + " before the attach keeps the JDK's allocations");
        }
        if (targets.isEmpty()) {
            if (late) {
                Log.info("attached late: no loaded class to re-instrument"
                        + (releaseAtClose ? ", release at close on" : ""));
            }
            return 0;
        }
        // It stays registered: a later retransformation of these classes, by another agent, starts over
        // from their class files as loaded, and would otherwise drop the substitution without a word. It
        // acts on retransformations only, and on a class already substituted changes nothing.
        HostTransformer again = transformer.forRetransformation();
        inst.addTransformer(again, true);
        int done = 0;
        try {
            inst.retransformClasses(targets.toArray(new Class<?>[0]));
            done = targets.size();
        } catch (Throwable all) {
            for (Class<?> c : targets) {
                try {
                    inst.retransformClasses(c);
                    done++;
                } catch (Throwable t) {
                    cannotRetransform(c, t);
                }
            }
        }
        Log.info((late ? "attached late: " : "") + done + " already loaded class" + (done == 1 ? "" : "es")
                + " re-instrumented (" + again.changed() + " changed: the others have no allocation call"
                + " site" + (releaseAtClose ? " or release hook" : "") + ")"
                + (releaseAtClose ? ", release at close on" : ""));
        return done;
    }

    private static void cannotRetransform(Class<?> c, Throwable t) {
        Log.once(
                "retransform:" + c.getName(),
                "cannot instrument the already loaded class " + c.getName() + "; it keeps its own allocations: " + t);
    }
}
