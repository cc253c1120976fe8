package dev.pools.recording;

import dev.pools.layout.FileNames;
import dev.pools.layout.InstalledLayout;
import dev.pools.layout.PoolsConfig;
import dev.pools.log.Log;
import dev.pools.memory.AllocationListener;
import dev.pools.memory.CallSites;
import dev.pools.memory.Locks;
import dev.pools.memory.PlatformBeans;
import dev.pools.memory.PoolAllocator;
import dev.pools.memory.PoolReport;
import dev.pools.memory.Sizes;
import dev.pools.memory.Usage;
import java.io.IOException;
import java.lang.management.RuntimeMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

/**
 * Writes what the pools hold to a JFR recording (CONTRACT.md §3), with the agent's own writer
 * ({@link EventFile}): the JDK's Flight Recorder is not started for it.
 *
 * <p>The file is created when the recording starts, one {@code report.period} after the agent but at
 * most one second (see
 * {@link #start}), with the JVM's identity ({@code jdk.JVMInformation}, at the file's start, which is
 * the agent's), the refusals kept until then ({@link EarlyRefusals}), the layout and a first batch.
 * Then every {@code report.period}, on a thread of its own, one batch (a {@code pools.PoolReport}
 * per pool and a {@code pools.Usage}) and a {@code pools.ProcessMemory} are appended, and the file's
 * header made to count them; refusals join the next batch. When the JVM shuts down (normal exit,
 * {@code System.exit}, SIGTERM) the final batch follows, with the call sites and request-size
 * histograms, and the file is marked as ended with its JVM; a JVM that ends before its recording
 * started has it written whole then. A JVM killed with SIGKILL leaves the file as of its last batch,
 * and none before its first.
 *
 * <p>Every event is also committed to JFR, so that a user's own JFR recording may include them (it
 * costs nothing when none runs).
 */
public final class Recorder {

    /** The JDK's own event that names the JVM (pid, arguments, start time): one row per JVM in a fleet report. */
    public static final String JVM_INFORMATION = EventFile.JVM_INFORMATION;

    /** The {@code pools.*} event classes, in the order their types are declared in a recording. */
    static final List<Class<?>> EVENT_CLASSES = List.of(
            LayoutEvent.class,
            PoolReportEvent.class,
            UsageEvent.class,
            ProcessMemoryEvent.class,
            AllocationRefusedEvent.class,
            CallSiteEvent.class,
            RequestSizesEvent.class);

    private static volatile boolean started;

    /**
     * Start and shutdown exclude each other: a recording starts whole, on its thread or in the
     * shutdown hook, never twice. The shutdown hook waits for a start in progress at most
     * {@link #SHUTDOWN_WAIT_MS}.
     */
    private static final ReentrantLock LOCK = new ReentrantLock();

    public static final long SHUTDOWN_WAIT_MS = 5_000;

    /**
     * The latest the recording starts after the agent, whatever its period: a JVM killed (SIGKILL, the
     * OOM killer) later than this leaves a file with its layout and first batch.
     */
    static final long START_AT_MOST_NANOS = TimeUnit.SECONDS.toNanos(1);

    /**
     * The room the Java heap must have (free, or not yet committed) before the recording's start:
     * {@code min(8 MiB, max / 4)}. The start is the first in the JVM to use some JDK classes
     * ({@code FileChannel}'s implementation, the time-zone database, the JDK's Flight Recorder when
     * it runs), and a class whose initialisation meets a full heap stays unusable for the whole run,
     * the host's too: a host that lived at a full heap for a while at the start's moment (catching its
     * {@code OutOfMemoryError}s) later got {@code NoClassDefFoundError} from {@code FileChannel.open}
     * and {@code ZonedDateTime.now()} in 5 of 16 runs. The start waits (at most
     * {@link #ROOM_WAIT_AT_MOST_NANOS}) only while the application allocates: garbage counts as used,
     * and a busy heap shows room after its next collection, while an idle one (over one {@link
     * #ROOM_PAUSE_NANOS}, the same use and no collection: no thread took a new allocation buffer; a
     * heap full of live data shows the same use after each of its many collections) is never
     * collected, and a JVM killed then would have had no recording.
     */
    static final long ROOM_BYTES = 8L << 20;

    /** How often the start looks again for room, and how long at most it waits for it before it starts anyway. */
    static final long ROOM_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

    static final long ROOM_WAIT_AT_MOST_NANOS = TimeUnit.SECONDS.toNanos(10);

    /**
     * How long the heap's use and collections must stay as they are before a start that waits for room
     * takes the heap for idle and starts anyway. One look (50 ms) was too short: on a busy machine the
     * host's allocating thread can get no CPU for that long, and the start went ahead at a full heap.
     */
    static final long ROOM_QUIET_NANOS = TimeUnit.SECONDS.toNanos(1);

    /**
     * For tests only: a file whose existence the start waits for (at most 60 s) before its look for
     * room, so that a test's host can be at a full heap before it, however slow the machine.
     */
    static final String START_GATE_PROPERTY = "pools.test.recordingStartGate";

    /** Whether the Java heap has {@link #ROOM_BYTES} (or a quarter of its maximum, if less) free; allocates nothing. */
    static boolean heapHasRoom() {
        long max = Runtime.getRuntime().maxMemory();
        return max == Long.MAX_VALUE || max - heapUsed() >= Math.min(ROOM_BYTES, max / 4);
    }

    /** The Java heap's use, garbage included; allocates nothing. */
    private static long heapUsed() {
        Runtime rt = Runtime.getRuntime();
        return rt.totalMemory() - rt.freeMemory();
    }

    /**
     * For tests only: milliseconds the start waits, holding the lock and past its last look at
     * {@code closing}, before it creates the file, so that a JVM can be made to end in the middle
     * of a start.
     */
    static final String START_DELAY_PROPERTY = "pools.test.recordingStartDelayMs";

    /**
     * For tests only: milliseconds the start waits before it takes the lock, so that a JVM can be
     * made to begin its shutdown before the recording starts.
     */
    static final String SETUP_DELAY_PROPERTY = "pools.test.recordingSetupDelayMs";

    /** For tests only: milliseconds a periodic batch waits between reading the pools' reports and writing them. */
    static final String BATCH_DELAY_PROPERTY = "pools.test.batchDelayMs";

    /** For tests only: milliseconds between the file's creation and its first {@code pools.Layout} event. */
    static final String LAYOUT_DELAY_PROPERTY = "pools.test.layoutEventDelayMs";

    private static volatile boolean closing;

    /** Whether this recording holds a {@code pools.Layout} event yet. */
    private static volatile boolean layoutRecorded;

    /** The agent whose recording is to start (its file not created yet); under {@link #LOCK}. */
    private static Recorded toStart;

    /** Whether a recording was asked for, by {@link #start} or at the JVM's end; under {@link #LOCK}. */
    private static boolean asked;

    /**
     * The running recording's file, its pools and its memory sampler; set under {@link #LOCK}. The
     * file is replaced when it reaches {@code report.max_size} ({@link #rotate}); the host's threads
     * read it for refusals and installs.
     */
    private static volatile EventFile file;

    /** Refusals the files set aside at {@code report.max_size} counted and did not keep; under {@link #LOCK}. */
    private static long droppedBefore;

    /** Whether the file is set aside at {@code report.max_size}; false after a failure to, said once. Under {@link #LOCK}. */
    private static boolean rotating = true;

    private static Recorded recorded;
    private static PoolAllocator pools;
    private static ProcessMemory memory;
    private static volatile Thread periodic;

    private Recorder() {}

    /** Whether this JVM's recording is running. */
    public static boolean started() {
        return started;
    }

    /**
     * Starts the recording the configuration asks for; does nothing with {@code report.file: none}.
     * The file is created when its first batch is due, one {@code report.period} from now but
     * at most {@link #START_AT_MOST_NANOS}, on the recording's own thread, or at the JVM's end if that comes first ({@link #shutdown}): the
     * recording's own start-up (its classes, the file's declarations, the JVM's beans) then stays out
     * of the application's. Refusals before it are kept ({@link EarlyRefusals}); peaks are the pools'
     * own counters. With {@code report.period: 0} the file is created now.
     */
    public static void start(Recorded runtime) throws IOException {
        PoolsConfig config = runtime.config();
        if (config.reportFile() == null) {
            return;
        }
        Locks.acquire(LOCK);
        try {
            if (closing || asked) {
                return; // the JVM's end starts it
            }
            asked = true;
            toStart = runtime;
        } finally {
            LOCK.unlock();
        }
        Duration period = config.reportPeriod();
        if (period.isZero()) {
            startNow(false);
            return;
        }
        try {
            Periodic thread = new Periodic(period.toNanos());
            periodic = thread;
            thread.start();
        } catch (OutOfMemoryError e) {
            periodic = null;
            // A full heap (or no room for a thread): asked for, the recording is started at the JVM's end.
            Log.onceIfItCan(
                    "recorder",
                    "the recording's thread could not start; the recording is written at the JVM's end: ",
                    e);
        }
    }

    /**
     * Creates the file and writes its start, under {@link #LOCK}; at the JVM's end ({@code atEnd}) even
     * though {@link #closing} is set. Returns whether the recording runs.
     */
    private static boolean startNow(boolean atEnd) throws IOException {
        if (!atEnd) {
            delayForTests(SETUP_DELAY_PROPERTY);
        }
        Locks.acquire(LOCK);
        try {
            Recorded runtime = toStart;
            if ((closing && !atEnd) || runtime == null) {
                // The JVM is ending: its shutdown starts the recording, or has.
                return false;
            }
            toStart = null;
            try {
                if (!atEnd) {
                    delayForTests(START_DELAY_PROPERTY);
                }
                PoolsConfig config = runtime.config();
                Path destination = Path.of(FileNames.expand(config.reportFile()));
                ProcessMemory sampler = new ProcessMemory();
                EventFile out = EventFile.createBesideOthers(
                        destination, EVENT_CLASSES, runtime.startTicks(), runtime.startMillis());
                limitPending(out, config);
                try {
                    begin(runtime, config, runtime.allocator(), sampler, out, atEnd);
                } catch (IOException | RuntimeException | Error e) {
                    // Not half a recording: no file, and the pools run unrecorded (the caller says so).
                    out.abandon();
                    throw e;
                }
            } catch (OutOfMemoryError e) {
                // The Java heap is full for now, which a host may survive: the start is tried again.
                file = null;
                toStart = runtime;
                throw e;
            }
            started = true;
            return true;
        } finally {
            LOCK.unlock();
        }
    }

    /** What the start does once the file exists; under {@link #LOCK}. */
    private static void begin(
            Recorded runtime,
            PoolsConfig config,
            PoolAllocator allocator,
            ProcessMemory sampler,
            EventFile out,
            boolean atEnd)
            throws IOException {
        file = out;
        recorded = runtime;
        pools = allocator;
        memory = sampler;
        addJvmInformation(out);
        if (!atEnd) {
            delayForTests(LAYOUT_DELAY_PROPERTY);
        }
        // The refusals kept until now, in their own time order: after the JVM's event (at the file's
        // start, which is the agent's) and before anything else. Then the layout: a recording
        // without it cannot be reported (the final batch records it for a JVM that ends before the
        // listener did). Then the refusals to come; and only then is the recording said to run, so
        // that whoever waits for started() misses none of its events.
        Refusals live = new Refusals(allocator.sites());
        EarlyRefusals early = runtime.earlyRefusals();
        if (early != null) {
            early.forwardTo(out, live);
        }
        runtime.addInstallListener(new Layouts());
        runtime.setRefusalListener(live);
        // The timeline starts with the recording: a first batch now, so that even a JVM that ends
        // within its first period has two points of it, this one and the final batch. None when
        // report.period is 0 (reports only at the end), nor at the JVM's end: the final batch follows.
        if (!config.reportPeriod().isZero() && !atEnd) {
            Batch first = new Batch(sink(out), allocator, false);
            runtime.tellInstalled(first);
            write(out, sampler.sample(allocator, allocator.usage(first.reports)));
        }
        out.flush();
        if (!atEnd) {
            JfrMirror.whenJfrRuns(new ChunkEnd(runtime, allocator, sampler));
        }
    }

    private static void addJvmInformation(EventFile out) {
        // The JVM's own start time, as JFR records it; the runtime bean gives the arguments anyway.
        RuntimeMXBean runtime = PlatformBeans.get().runtime;
        out.addJvmInformation(
                System.getProperty("java.vm.name"),
                System.getProperty("java.vm.version"),
                String.join(" ", runtime.getInputArguments()),
                System.getProperty("sun.java.command", ""),
                runtime.getStartTime(),
                FileNames.pid());
    }

    /**
     * The thread that starts the recording one {@code report.period} in (at most {@link
     * #START_AT_MOST_NANOS}), then appends a batch every period from the agent's start.
     */
    private static final class Periodic extends Thread {
        private final long periodNanos;

        Periodic(long periodNanos) {
            super("pools-recorder");
            setDaemon(true);
            this.periodNanos = periodNanos;
        }

        /** When the agent started this thread, and when the next batch (or try to start) is due. */
        private long origin;

        private long next;

        /** Set once the recording runs. */
        private boolean begun;

        /** How long the thread waits before it goes on after a full heap met outside its handlers. */
        private static final long HEAP_FULL_PAUSE_NANOS = 10_000_000L;

        @Override
        public void run() {
            origin = System.nanoTime();
            next = origin + Math.min(periodNanos, START_AT_MOST_NANOS);
            // A full heap outside the handlers below (in a handler, or a wait: their first calls
            // resolve classes) does not end the recording: it goes on from where it was.
            while (true) {
                try {
                    if (!begun) {
                        if (!begin()) {
                            return;
                        }
                        begun = true;
                    }
                    batches();
                    return;
                } catch (OutOfMemoryError heapFull) {
                    // Again, after a pause (LockSupport is initialised at the agent's start, so the
                    // pause itself allocates nothing).
                    try {
                        LockSupport.parkNanos(this, HEAP_FULL_PAUSE_NANOS);
                    } catch (Throwable again) {
                        // again
                    }
                }
            }
        }

        /** Starts the recording at its time; false if it does not run (the JVM's end starts it, or it failed). */
        private boolean begin() {
            if (!awaitUntil(next)) {
                return false; // the JVM's end starts the recording
            }
            String gate = System.getProperty(START_GATE_PROPERTY);
            long gateAtMost = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (gate != null && !Files.exists(Path.of(gate)) && System.nanoTime() - gateAtMost < 0) {
                next = System.nanoTime() + ROOM_PAUSE_NANOS;
                if (!awaitUntil(next)) {
                    return false;
                }
            }
            long roomAtMost = System.nanoTime() + ROOM_WAIT_AT_MOST_NANOS;
            long used = heapUsed();
            long collections = PoolAllocator.collectionsSeen();
            long changed = System.nanoTime();
            while (!heapHasRoom() && System.nanoTime() - roomAtMost < 0) {
                next = System.nanoTime() + ROOM_PAUSE_NANOS;
                if (!awaitUntil(next)) {
                    return false;
                }
                long now = heapUsed();
                long collectedNow = PoolAllocator.collectionsSeen();
                if (now != used || collectedNow != collections) {
                    changed = System.nanoTime();
                } else if (System.nanoTime() - changed > ROOM_QUIET_NANOS) {
                    break; // nobody allocates: the heap is not under pressure, its garbage goes at a collection
                }
                used = now;
                collections = collectedNow;
            }
            while (true) {
                try {
                    if (!startNow(false)) {
                        return false;
                    }
                    break;
                } catch (OutOfMemoryError e) {
                    // The Java heap is full for now: the start is tried again a period later (or at the
                    // JVM's end). Nothing here may allocate.
                    next += periodNanos;
                    if (!awaitUntil(next)) {
                        return false;
                    }
                } catch (IOException | RuntimeException | Error e) {
                    if (!closing) {
                        Log.onceIfItCan("recorder", "the recording could not start; the pools run unrecorded: ", e);
                    }
                    return false;
                }
            }
            if (next - origin < periodNanos) {
                next = origin; // started early for a long period: the batches keep to the period from the agent's start
            }
            return true;
        }

        /** A batch every period, until the JVM's end or a failure to write. */
        private void batches() {
            PoolAllocator allocator = pools;
            ProcessMemory sampler = memory;
            while (true) {
                next += periodNanos;
                if (next - System.nanoTime() < 0) {
                    // Behind by more than a period (a stopped JVM, a busy machine): one batch now, then on time.
                    next = System.nanoTime() + periodNanos;
                }
                if (!awaitUntil(next)) {
                    return;
                }
                // Under the lock, as the final batch is written: a batch is whole, and never after the
                // final one. The JVM's end waits for a batch in progress (at most SHUTDOWN_WAIT_MS).
                Locks.acquire(LOCK);
                try {
                    if (closing) {
                        return; // the final batch is the shutdown hook's, and the last
                    }
                    EventFile out = file;
                    Batch batch = new Batch(sink(out), allocator, true);
                    recorded.tellInstalled(batch);
                    write(out, sampler.sample(allocator, allocator.usage(batch.reports)));
                    out.flush();
                    long maxSize = recorded.config().reportMaxSize();
                    if (rotating && maxSize > 0 && out.length() >= maxSize) {
                        rotate(out, allocator, sampler);
                    }
                    if (batchesWithoutHeap > 0) {
                        Log.once(
                                "recording-heap",
                                "the Java heap was full at " + batchesWithoutHeap + " batch"
                                        + (batchesWithoutHeap == 1 ? "" : "es") + " of the recording; each was"
                                        + " taken at the next period");
                        batchesWithoutHeap = 0;
                    }
                } catch (OutOfMemoryError e) {
                    // The Java heap is full for now, not the file: a host may catch the error and go on.
                    // This batch is taken again at the next period (its events already in the file are
                    // whole ones); nothing here may allocate.
                    batchesWithoutHeap++;
                } catch (IOException | RuntimeException | Error e) {
                    stopped(file, e);
                    return;
                } finally {
                    LOCK.unlock();
                }
            }
        }

        /** Batches not taken since the last one that was, for a full Java heap. */
        private int batchesWithoutHeap;

        /** Waits until {@code deadline} ({@link System#nanoTime}); false once the JVM is ending. */
        private boolean awaitUntil(long deadline) {
            while (!closing) {
                long wait = deadline - System.nanoTime();
                if (wait <= 0) {
                    return true;
                }
                LockSupport.parkNanos(this, wait);
            }
            return false;
        }
    }

    /**
     * At exit: a recording whose file is not created yet is started now (its refusals kept, its layout
     * and a final batch), even one that {@link #start} was not called for yet, with {@code runtime}
     * (null: none); one that runs gets its final batch. Either way the file is marked as ended with
     * its JVM. Returns how it stood.
     */
    public static Ending shutdown(Recorded runtime) {
        closing = true;
        Thread waiting = periodic;
        if (waiting != null) {
            LockSupport.unpark(waiting);
        }
        boolean locked = false;
        try {
            locked = Locks.tryAcquire(LOCK, SHUTDOWN_WAIT_MS, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try {
            if (!locked) {
                return Ending.STILL_WRITING;
            }
            if (!started) {
                if (!asked && runtime != null && runtime.config().reportFile() != null) {
                    asked = true;
                    toStart = runtime;
                }
                if (toStart == null) {
                    return Ending.NOT_STARTED;
                }
                try {
                    startNow(true);
                } catch (IOException | RuntimeException | Error e) {
                    Log.once("recorder", "the recording could not be written at the JVM's end: " + e);
                    return Ending.NOT_STARTED;
                }
            }
            try {
                recorded.tellInstalled(new Final(file, pools, memory));
                file.close();
            } catch (IOException | RuntimeException | Error e) {
                Log.once("recording-write", "the recording's end could not be written: " + e);
            }
            long dropped = droppedBefore + file.dropped();
            if (dropped > 0) {
                Log.info(dropped + " refusals were counted and not recorded one by one (more than "
                        + Sizes.human(file.pendingLimit())
                        + " of them between two batches, or after the recording stopped); the fallback counts"
                        + " include them");
            }
            return Ending.RECORDED;
        } finally {
            if (locked) {
                LOCK.unlock();
            }
        }
    }

    /** How the recording stood when the JVM ended. */
    public enum Ending {
        /** It ran, and its end is written. */
        RECORDED,
        /** None was asked for ({@code report.file: none}), or it could not be written; said already. */
        NOT_STARTED,
        /**
         * It was starting, or writing a batch, and did not finish within {@link #SHUTDOWN_WAIT_MS}; the
         * JVM ends without its final batch.
         */
        STILL_WRITING
    }

    private static void delayForTests(String property) {
        String delay = System.getProperty(property);
        if (delay != null) {
            try {
                Thread.sleep(Long.parseLong(delay));
            } catch (InterruptedException | NumberFormatException e) {
                // A test hook: nothing to do.
            }
        }
    }

    /** Writes an event to the file, and to JFR for a user's own recording. */
    private static void write(EventFile out, FileEvent e) {
        out.add(e);
        JfrMirror.commit(e);
    }

    /** Where events go: {@code out}, and JFR for a user's own recording. */
    static Consumer<FileEvent> sink(EventFile out) {
        return new Sink(out);
    }

    // Named classes, not lambdas: each lambda's first call costs the recording's start its linkage.

    private static void emitReports(Consumer<FileEvent> out, List<PoolReport> reports) {
        for (PoolReport r : reports) {
            PoolReportEvent e = new PoolReportEvent();
            e.index = r.index();
            e.kind = r.kind().label();
            e.pageSize = r.pageSize();
            e.maxSlice = r.maxSlice();
            e.pagesCap = r.pagesCap();
            e.pages = r.pages();
            e.pagesPeak = r.pagesPeak();
            e.largestAlloc = r.largestAlloc();
            e.numberAllocs = r.usage().numberAllocs();
            e.bytesInUse = r.usage().bytesInUse();
            e.bytesReserved = r.usage().bytesReserved();
            e.runs = r.runs();
            e.bytesInRuns = r.bytesInRuns();
            e.allocsPeak = r.allocsPeak();
            out.accept(e);
        }
    }

    /** Events to the file of the moment, and to JFR's recordings if one runs. */
    private static final Consumer<FileEvent> TO_CURRENT = new ToCurrent();

    private static final class ToCurrent implements Consumer<FileEvent> {
        @Override
        public void accept(FileEvent e) {
            addToCurrent(e, null);
            JfrMirror.commit(e);
        }
    }

    /** {@link #sink}. */
    private record Sink(EventFile out) implements Consumer<FileEvent> {
        @Override
        public void accept(FileEvent e) {
            write(out, e);
        }
    }

    /** The layout at the recording's start and at every install, in the file of the moment. */
    private static final class Layouts implements InstalledLayout.Listener {
        @Override
        public void installed(InstalledLayout layout) {
            // The replaced pools' last reports first: their peaks since the last batch (an install of
            // the same layout, made between two batches, lost the peak of the run; report then keeps
            // the larger of the peaks under one layout).
            // Only for an install the file saw begin: the one before the recording's start is told here
            // once as the layout in force, and the pools it replaced are not the file's.
            PoolAllocator allocator = pools;
            List<PoolReport> last = allocator == null || !layoutRecorded ? null : allocator.retiredReports();
            if (last != null) {
                emitReports(TO_CURRENT, last);
            }
            LayoutEvent e = layoutEvent(layout);
            addToCurrent(e, null);
            JfrMirror.commit(e);
            layoutRecorded = true;
        }
    }

    /**
     * Adds an event to the file of the moment; one that a file set aside at {@code report.max_size}
     * closed on goes to its successor, whose reference is published before that close.
     */
    private static void addToCurrent(FileEvent e, List<EventFile.Frame> stack) {
        EventFile out = file;
        while (out != null && !out.add(e, stack)) {
            EventFile next = file;
            if (next == out) {
                return; // closed at the JVM's end: nothing is recorded after the final batch
            }
            out = next;
        }
    }

    /** Each refusal, with the stack of the code that asked, on the host's thread. */
    private record Refusals(CallSites sites) implements AllocationListener {
        @Override
        public void refused(int size, int site, String reason, boolean fellBack) {
            try {
                AllocationRefusedEvent e = refusal(size, sites.name(site), reason, fellBack);
                addToCurrent(e, EventFile.callerStack());
                JfrMirror.commit(e);
            } catch (RuntimeException | Error x) {
                // On the host's thread: never into the host.
                Log.once("recording-refusal", "a refusal could not be recorded: " + x);
            }
        }
    }

    static AllocationRefusedEvent refusal(int size, String site, String reason, boolean fellBack) {
        AllocationRefusedEvent e = new AllocationRefusedEvent();
        e.size = size;
        e.reason = reason;
        e.outcome = fellBack ? EventNames.OUTCOME_FALLBACK : EventNames.OUTCOME_FAILED;
        e.site = site;
        return e;
    }

    /** The final batch of every chunk of a JFR recording someone else runs in this JVM. */
    private record ChunkEnd(Recorded runtime, PoolAllocator allocator, ProcessMemory sampler) implements Runnable {
        @Override
        public void run() {
            // The layout too: a recording the user started after the pools' own started has none
            // otherwise, and report cannot read reports without the layout they came from.
            Mirrored mirrored = new Mirrored();
            mirrored.accept(layoutEvent(runtime.installed()));
            emitFinal(mirrored, allocator, sampler);
        }
    }

    /** Events to JFR only. */
    private static final class Mirrored implements Consumer<FileEvent> {
        @Override
        public void accept(FileEvent e) {
            JfrMirror.commit(e);
        }
    }

    private static void emitLayout(EventFile out, InstalledLayout layout) {
        write(out, layoutEvent(layout));
        layoutRecorded = true;
    }

    private static LayoutEvent layoutEvent(InstalledLayout layout) {
        LayoutEvent e = new LayoutEvent();
        e.kind = layout.kind();
        e.layout = layout.yaml();
        e.source = layout.source().name().toLowerCase(Locale.ROOT);
        e.attachedLate = attachedLate;
        return e;
    }

    /** Whether the agent was loaded into a running JVM (a late attach), said by every layout event. */
    private static volatile boolean attachedLate;

    /** The agent was loaded into a running JVM: its recordings say so, since what came before is missing. */
    public static void attachedLate() {
        attachedLate = true;
    }

    /**
     * Sets the file aside as {@code <file>.1} (replacing an older one) and goes on in a new file at its
     * name; under {@link #LOCK}, after a batch. The new file is made beside it ({@code <file>.next})
     * with the JVM's event; the old one gets its second name, {@code <file>.1}, as a hard link, so that
     * some file is at {@code report.file} at every instant; then, under the install lock, the new file
     * gets the layout in force and becomes the one events go to, and the old one its final batch (of
     * the pools of its own last layout); the new file gets a batch and is renamed over the old one's
     * first name, and the old one is marked as ended. A JVM killed at any point leaves at its name a
     * file whole up to its last batch. The peaks in either file are the pools' own counters since the
     * agent's start; refusals and samples of the process's memory are each file's own. If the file
     * cannot be set aside (no hard links there, {@code <file>.1} a directory), the new one is deleted and
     * the recording goes on in the old one, unbounded, said once.
     */
    private static void rotate(EventFile old, PoolAllocator allocator, ProcessMemory sampler) throws IOException {
        Path path = old.path();
        EventFile fresh;
        try {
            fresh = EventFile.create(
                    path.resolveSibling(path.getFileName() + ".next"),
                    EVENT_CLASSES,
                    System.nanoTime(),
                    System.currentTimeMillis());
            limitPending(fresh, recorded.config());
            addJvmInformation(fresh);
        } catch (IOException | RuntimeException e) {
            stopRotating(e);
            return;
        }
        try {
            old.linkAs(path.resolveSibling(path.getFileName() + ".1"));
        } catch (IOException | RuntimeException e) {
            fresh.abandon();
            stopRotating(e);
            return;
        }
        recorded.tellInstalled(new SwitchTo(old, fresh, allocator, sampler));
        try {
            // A failure here is the new file's, and stops the recording as any failed batch does.
            Batch first = new Batch(sink(fresh), allocator, false);
            recorded.tellInstalled(first);
            write(fresh, sampler.sample(allocator, allocator.usage(first.reports)));
            fresh.flush();
            try {
                fresh.moveTo(path);
            } catch (IOException | RuntimeException e) {
                rotating = false;
                Log.once(
                        "recording-rotate",
                        "the recording could not be set aside at report.max_size; it goes on in " + fresh.path()
                                + ", unbounded: " + e);
            }
        } finally {
            // Ended and closed (which lets go of its lock) only once the new file is at the name: until
            // then the file there is this JVM's, unended and locked, and a JVM that starts with the same
            // name leaves it alone (closed first, it was taken over, and the new JVM's recording lost).
            try {
                old.close();
            } catch (IOException | RuntimeException e) {
                Log.once("recording-rotate-end", "the end of " + old.path() + " could not be written: " + e);
            }
            droppedBefore += old.dropped();
        }
    }

    /**
     * After a failed write: the file stays as of its last batch, and nothing more is kept for it (events
     * are counted, not held in the host's memory), said once. Under {@link #LOCK}.
     */
    private static void stopped(EventFile out, Throwable e) {
        if (out != null) {
            out.stop();
        }
        if (!closing) {
            Log.once("recording-write", "the recording stopped at its last batch: " + e);
        }
    }

    private static void stopRotating(Exception e) {
        rotating = false;
        Log.once(
                "recording-rotate",
                "the recording could not be set aside at report.max_size; it goes on in one" + " file, unbounded: "
                        + e);
    }

    /**
     * At a rotation, under the install lock: the layout in force goes to the new file, which events go
     * to from then on, and the old file gets its final batch before any install can change the pools.
     */
    private record SwitchTo(EventFile old, EventFile fresh, PoolAllocator allocator, ProcessMemory sampler)
            implements InstalledLayout.Listener {
        @Override
        public void installed(InstalledLayout layout) {
            emitLayout(fresh, layout);
            file = fresh;
            emitFinal(sink(old), allocator, sampler);
        }
    }

    /** The most a file keeps of host threads' events between batches: {@code report.max_size}, at most {@link EventFile#PENDING_LIMIT}. */
    private static void limitPending(EventFile out, PoolsConfig config) {
        if (config.reportMaxSize() > 0) {
            out.limitPending(config.reportMaxSize());
        }
    }

    /**
     * A batch of pool reports and the usage, taken under the install lock ({@link Recorded#tellInstalled}):
     * so that no install comes between the pools' reports and the {@code pools.Layout} event before
     * them, and a batch never reports the pools of another layout than the one the file last recorded.
     */
    private static final class Batch implements InstalledLayout.Listener {
        private final Consumer<FileEvent> out;
        private final PoolAllocator pools;
        /** Whether the test hook {@link #BATCH_DELAY_PROPERTY} holds it, between its reports and their events. */
        private final boolean periodic;
        /** The reports written; set once it ran. */
        List<PoolReport> reports;

        Batch(Consumer<FileEvent> out, PoolAllocator pools, boolean periodic) {
            this.out = out;
            this.pools = pools;
            this.periodic = periodic;
        }

        @Override
        public void installed(InstalledLayout layout) {
            reports = pools.reports();
            if (periodic) {
                delayForTests(BATCH_DELAY_PROPERTY);
            }
            emitBatch(out, pools, reports);
        }
    }

    /**
     * The final batch, under the install lock, as {@link Batch}; after the layout, should the JVM have
     * ended between the recording's start and the install listener's first event.
     */
    private record Final(EventFile out, PoolAllocator pools, ProcessMemory memory) implements InstalledLayout.Listener {
        @Override
        public void installed(InstalledLayout layout) {
            if (!layoutRecorded) {
                emitLayout(out, layout);
            }
            emitFinal(sink(out), pools, memory);
        }
    }

    static void emitBatch(Consumer<FileEvent> out, PoolAllocator pools, List<PoolReport> reports) {
        emitReports(out, reports);
        Usage u = pools.usage(reports);
        UsageEvent e = new UsageEvent();
        e.numberAllocs = u.numberAllocs();
        e.bytesInUse = u.bytesInUse();
        e.bytesPadding = u.bytesPadding();
        e.bytesReserved = u.bytesReserved();
        e.fallbackAllocs = u.fallbackAllocs();
        e.fallbackBytes = u.fallbackBytes();
        e.failedAllocs = pools.failedAllocs();
        e.collections = pools.collections();
        e.collectionTime = pools.collectionNanos();
        e.stoppedBy = pools.stopReason();
        out.accept(e);
    }

    static void emitFinal(Consumer<FileEvent> out, PoolAllocator pools, ProcessMemory memory) {
        PoolAllocator.SizesSnapshot snapshot = pools.requestSizes();
        List<PoolReport> reports = snapshot.reports();
        for (CallSites.Stats s : pools.sites().snapshot()) {
            CallSiteEvent e = new CallSiteEvent();
            e.site = s.site();
            e.count = s.count();
            e.bytes = s.bytes();
            e.liveBytes = s.liveBytes();
            e.peakLiveBytes = s.peakLiveBytes();
            e.fallbacks = s.fallbacks();
            out.accept(e);
        }
        for (PoolReport r : reports) {
            long[] sizes = snapshot.requestSizes().get(r.index());
            for (int bucket = 0; bucket < sizes.length; bucket++) {
                if (sizes[bucket] > 0) {
                    RequestSizesEvent e = new RequestSizesEvent();
                    e.index = r.index();
                    e.bucketMax = bucket == 0 ? 1 : 1L << bucket;
                    e.count = sizes[bucket];
                    out.accept(e);
                }
            }
        }
        emitBatch(out, pools, reports);
        out.accept(memory.sample(pools, pools.usage(reports)));
    }

    /** For messages: a request-size bucket as a range. */
    public static String bucketRange(long bucketMax) {
        return bucketMax <= 1 ? "0-1 B" : Sizes.human(bucketMax / 2 + 1) + "-" + Sizes.human(bucketMax);
    }
}
