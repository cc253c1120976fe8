package dev.pools.recording;

import dev.pools.layout.InstalledLayout;
import dev.pools.memory.PoolAllocator;
import java.io.IOException;
import java.nio.file.Path;
import jdk.jfr.Recording;

/** Writes, in this JVM, the recording the agent would write at exit for {@code pools}: for tests of the readers. */
public final class RecordingFixture {

    private RecordingFixture() {}

    public static void write(Path file, PoolAllocator pools, InstalledLayout layout) throws IOException {
        try (Recording recording = new Recording()) {
            recording.enable(LayoutEvent.class);
            recording.enable(UsageEvent.class);
            recording.enable(PoolReportEvent.class);
            recording.enable(CallSiteEvent.class);
            recording.enable(RequestSizesEvent.class);
            recording.enable(ProcessMemoryEvent.class);
            recording.start();
            LayoutEvent e = new LayoutEvent();
            e.kind = layout.kind();
            e.layout = layout.yaml();
            e.source = "file";
            e.commit();
            Recorder.emitFinal(pools, new ProcessMemory());
            recording.stop();
            recording.dump(file);
        }
    }
}
