package dev.pools.recording;

import dev.pools.layout.FileNames;
import dev.pools.layout.InstalledLayout;
import dev.pools.layout.PoolsConfig;
import dev.pools.memory.CallSites;
import dev.pools.memory.PoolAllocator;
import dev.pools.memory.PoolReport;
import dev.pools.memory.Sizes;
import dev.pools.memory.Usage;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import jdk.jfr.FlightRecorder;
import jdk.jfr.Recording;

/**
 * Writes what the pools hold to a JFR recording (CONTRACT.md §3).
 *
 * <p>Periodic hooks: every {@code report.period} one batch (a {@code pools.PoolReport} per pool
 * and a {@code pools.Usage}) and a {@code pools.ProcessMemory}, and at the end of every chunk, so also when the JVM shuts down
 * (normal exit, {@code System.exit}, SIGTERM: JFR's own shutdown hook runs it), the final batch
 * with the call sites and request-size histograms. The recording holds the {@code pools.*} events
 * and the JDK's {@code jdk.JVMInformation}, and is written to {@code report.file} when the JVM
 * exits; until then it is in JFR's repository, moved beside that file ({@link RecordingRepository}).
 */
public final class Recorder {

    /** The JDK's own event that names the JVM (pid, arguments, start time): one row per JVM in a fleet report. */
    public static final String JVM_INFORMATION = "jdk.JVMInformation";

    private static volatile boolean started;

    /**
     * Start and shutdown exclude each other: a recording starts whole, before the JVM's end, or not
     * at all. The shutdown hook waits for a start in progress at most {@link #SHUTDOWN_WAIT_MS}:
     * JFR's own shutdown hook runs beside it, and a start that reaches JFR after that hook has
     * finished never returns, so waiting for it without a bound hung the JVM at exit.
     */
    private static final ReentrantLock LOCK = new ReentrantLock();

    public static final long SHUTDOWN_WAIT_MS = 5_000;

    /**
     * For tests only: milliseconds the start waits, holding the lock and past its last look at
     * {@code closing}, before it starts the recording, so that a JVM can be made to end in the middle
     * of a start.
     */
    static final String START_DELAY_PROPERTY = "pools.test.recordingStartDelayMs";

    /**
     * For tests only: milliseconds the start waits before its first call into JFR, so that a JVM can
     * be made to begin its shutdown before JFR is set up.
     */
    static final String SETUP_DELAY_PROPERTY = "pools.test.recordingSetupDelayMs";

    /** For tests only: milliseconds between the recording's start and its first {@code pools.Layout} event. */
    static final String LAYOUT_DELAY_PROPERTY = "pools.test.layoutEventDelayMs";

    private static volatile boolean closing;

    /** Whether this recording holds a {@code pools.Layout} event yet. */
    private static volatile boolean layoutRecorded;

    private Recorder() {}

    /** Whether this JVM's recording is running. */
    public static boolean started() {
        return started;
    }

    /** Starts the recording the configuration asks for; does nothing with {@code report.file: none}. */
    public static void start(Recorded runtime) throws IOException {
        PoolsConfig config = runtime.config();
        if (config.reportFile() == null) {
            return;
        }
        delayForTests(SETUP_DELAY_PROPERTY);
        PoolAllocator pools = runtime.allocator();
        ProcessMemory memory = new ProcessMemory();
        FlightRecorder.addPeriodicEvent(UsageEvent.class, () -> {
            if (!layoutRecorded) {
                // The JVM ended between the recording's start and the install listener's first event.
                emitLayout(runtime.installed());
            }
            emitFinal(pools, memory);
        });
        boolean timeline = !config.reportPeriod().isZero();
        if (timeline) {
            FlightRecorder.addPeriodicEvent(PoolReportEvent.class, () -> emitBatch(pools, pools.reports()));
            FlightRecorder.addPeriodicEvent(ProcessMemoryEvent.class, () -> memory.emit(pools.usage()));
        }
        Recording recording = new Recording();
        recording.setName("pools");
        recording.enable(LayoutEvent.class);
        recording.enable(UsageEvent.class).with("period", "endChunk");
        if (timeline) {
            recording.enable(PoolReportEvent.class).withPeriod(config.reportPeriod());
            recording.enable(ProcessMemoryEvent.class).withPeriod(config.reportPeriod());
        } else {
            recording.enable(PoolReportEvent.class);
            recording.enable(ProcessMemoryEvent.class);
        }
        recording.enable(AllocationRefusedEvent.class).withStackTrace();
        recording.enable(CallSiteEvent.class);
        recording.enable(RequestSizesEvent.class);
        recording.enable(JVM_INFORMATION).with("period", "beginChunk");
        recording.setToDisk(true);
        Path destination = Path.of(FileNames.expand(config.reportFile()));
        LOCK.lock();
        try {
            if (closing) {
                // The JVM is ending: no empty file, no repository folder, that would look like a killed JVM's.
                recording.close();
                return;
            }
            delayForTests(START_DELAY_PROPERTY);
            recording.setDestination(destination);
            RecordingRepository.moveBeside(destination, recording);
            recording.start();
            // The layout first: a recording without it cannot be reported (the periodic hook above covers
            // a JVM that ends before it is recorded here). Then refusals; and only then is the recording
            // said to run, so that whoever waits for started() misses none of its events.
            delayForTests(LAYOUT_DELAY_PROPERTY);
            runtime.addInstallListener(Recorder::emitLayout);
            CallSites sites = pools.sites();
            runtime.setRefusalListener((size, site, reason, fellBack) -> {
                AllocationRefusedEvent e = new AllocationRefusedEvent();
                if (e.shouldCommit()) {
                    e.size = size;
                    e.reason = reason;
                    e.outcome = fellBack ? EventNames.OUTCOME_FALLBACK : EventNames.OUTCOME_FAILED;
                    e.site = sites.name(site);
                    e.commit();
                }
            });
            started = true;
        } finally {
            LOCK.unlock();
        }
    }

    private static void emitLayout(InstalledLayout layout) {
        LayoutEvent e = new LayoutEvent();
        e.kind = layout.kind();
        e.layout = layout.yaml();
        e.source = layout.source().name().toLowerCase(Locale.ROOT);
        e.commit();
        layoutRecorded = true;
    }

    /**
     * At exit, beside JFR's own shutdown hook: a recording not started by now never starts; one that
     * runs is written by JFR, and the emptied repository folder removed. Returns whether it ran.
     */
    public static Ending shutdown() {
        closing = true;
        boolean locked = false;
        try {
            locked = LOCK.tryLock(SHUTDOWN_WAIT_MS, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try {
            if (!locked) {
                return Ending.STILL_STARTING;
            }
            if (started) {
                RecordingRepository.removeWhenEmpty();
            }
            return started ? Ending.RECORDED : Ending.NOT_STARTED;
        } finally {
            if (locked) {
                LOCK.unlock();
            }
        }
    }

    /** How the recording stood when the JVM ended. */
    public enum Ending {
        /** It ran, and JFR writes it. */
        RECORDED,
        /** It had not started; it never will. */
        NOT_STARTED,
        /** It was starting and did not finish within {@link #SHUTDOWN_WAIT_MS}; the JVM ends without it. */
        STILL_STARTING
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

    static void emitBatch(PoolAllocator pools, List<PoolReport> reports) {
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
            e.commit();
        }
        Usage u = pools.usage(reports);
        UsageEvent e = new UsageEvent();
        e.numberAllocs = u.numberAllocs();
        e.bytesInUse = u.bytesInUse();
        e.bytesPadding = u.bytesPadding();
        e.bytesReserved = u.bytesReserved();
        e.fallbackAllocs = u.fallbackAllocs();
        e.fallbackBytes = u.fallbackBytes();
        e.collections = pools.collections();
        e.collectionTime = pools.collectionNanos();
        e.commit();
    }

    static void emitFinal(PoolAllocator pools, ProcessMemory memory) {
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
            e.commit();
        }
        for (PoolReport r : reports) {
            long[] sizes = snapshot.requestSizes().get(r.index());
            for (int bucket = 0; bucket < sizes.length; bucket++) {
                if (sizes[bucket] > 0) {
                    RequestSizesEvent e = new RequestSizesEvent();
                    e.index = r.index();
                    e.bucketMax = bucket == 0 ? 1 : 1L << bucket;
                    e.count = sizes[bucket];
                    e.commit();
                }
            }
        }
        emitBatch(pools, reports);
        memory.emit(pools.usage(reports));
    }

    /** For messages: a request-size bucket as a range. */
    public static String bucketRange(long bucketMax) {
        return bucketMax <= 1 ? "0-1 B" : Sizes.human(bucketMax / 2 + 1) + "-" + Sizes.human(bucketMax);
    }
}
