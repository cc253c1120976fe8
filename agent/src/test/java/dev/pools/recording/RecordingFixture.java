package dev.pools.recording;

import dev.pools.layout.InstalledLayout;
import dev.pools.memory.PoolAllocator;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/** Writes, in this JVM, the recording the agent would write at exit for {@code pools}: for tests of the readers. */
public final class RecordingFixture {

    private RecordingFixture() {}

    public static void write(Path file, PoolAllocator pools, InstalledLayout layout) throws IOException {
        write(file, pools, layout, -1, 0);
    }

    /**
     * As {@link #write}, with one sample of the process's memory per value of {@code directOutside} (the
     * JDK's direct memory outside the pools' pages at that sample) in the place of this JVM's own.
     */
    public static void writeSampled(Path file, PoolAllocator pools, InstalledLayout layout, long... directOutside)
            throws IOException {
        try (EventFile out = EventFile.create(file, Recorder.EVENT_CLASSES)) {
            out.addJvmInformation("VM", "17", "", "app", System.currentTimeMillis(), 1);
            addLayout(out, layout);
            for (long outside : directOutside) {
                ProcessMemoryEvent m = new ProcessMemoryEvent();
                m.rss = 200 << 20;
                m.rssPeak = 200 << 20;
                m.rssAnon = 150 << 20;
                m.rssFile = 50 << 20;
                m.heapUsed = 20 << 20;
                m.heapCommitted = 64 << 20;
                m.metaspace = 10 << 20;
                m.codeCache = 5 << 20;
                m.threads = 12;
                m.poolsReserved = 4 << 20;
                m.jdkDirect = m.poolsReserved + outside;
                m.directOutside = outside;
                out.add(m);
            }
            Recorder.emitFinal(
                    event -> {
                        if (!(event instanceof ProcessMemoryEvent)) {
                            out.add(event);
                        }
                    },
                    pools,
                    new ProcessMemory());
        }
    }

    /**
     * Begins, in this JVM, the recording the agent writes at {@code file} as it starts, with the JVM's
     * event and the layout and no batch, and keeps it open (and locked) as a running JVM does until
     * the returned handle is closed, which ends it with {@code pools}' final batch.
     */
    public static AutoCloseable begin(Path file, PoolAllocator pools, InstalledLayout layout, long pid)
            throws IOException {
        EventFile out = EventFile.createBesideOthers(
                file, Recorder.EVENT_CLASSES, System.nanoTime(), System.currentTimeMillis());
        out.addJvmInformation("VM", "17", "", "app", 1_700_000_000_000L, pid);
        addLayout(out, layout);
        out.flush();
        return () -> {
            try (out) {
                Recorder.emitFinal(out::add, pools, new ProcessMemory());
            }
        };
    }

    /**
     * As above, with the JVM's event of a JVM of process id {@code pid} started at {@code startMillis}
     * (none when {@code pid} is negative).
     */
    public static void write(Path file, PoolAllocator pools, InstalledLayout layout, long pid, long startMillis)
            throws IOException {
        try (EventFile out = EventFile.create(file, Recorder.EVENT_CLASSES)) {
            if (pid >= 0) {
                out.addJvmInformation("VM", "17", "", "app", startMillis, pid);
            }
            addLayout(out, layout);
            Recorder.emitFinal(out::add, pools, new ProcessMemory());
        }
    }

    /**
     * The recording the agent leaves at {@code file} when its JVM is killed after a batch for {@code
     * pools}: as of that batch's flush, not marked as ended (its header, and its last checksum).
     */
    public static void writeKilled(Path file, PoolAllocator pools, InstalledLayout layout) throws IOException {
        Path open = file.resolveSibling(file.getFileName() + ".open");
        try (EventFile out = EventFile.create(open, Recorder.EVENT_CLASSES)) {
            out.addJvmInformation("VM", "17", "", "app", System.currentTimeMillis(), 1);
            addLayout(out, layout);
            Recorder.emitFinal(out::add, pools, new ProcessMemory());
            out.flush();
            Files.copy(open, file, StandardCopyOption.REPLACE_EXISTING);
        }
        Files.delete(open);
    }

    /** Adds the layout's event, as the agent writes it when its recording starts. */
    private static void addLayout(EventFile out, InstalledLayout layout) {
        LayoutEvent e = new LayoutEvent();
        e.kind = layout.kind();
        e.layout = layout.yaml();
        e.source = "file";
        out.add(e);
    }
}
