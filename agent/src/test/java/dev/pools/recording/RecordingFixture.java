package dev.pools.recording;

import dev.pools.layout.InstalledLayout;
import dev.pools.memory.PoolAllocator;
import java.io.IOException;
import java.nio.file.Path;

/** Writes, in this JVM, the recording the agent would write at exit for {@code pools}: for tests of the readers. */
public final class RecordingFixture {

    private RecordingFixture() {}

    public static void write(Path file, PoolAllocator pools, InstalledLayout layout) throws IOException {
        write(file, pools, layout, -1, 0);
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
            LayoutEvent e = new LayoutEvent();
            e.kind = layout.kind();
            e.layout = layout.yaml();
            e.source = "file";
            out.add(e);
            Recorder.emitFinal(out::add, pools, new ProcessMemory());
        }
    }
}
