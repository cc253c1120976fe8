package dev.pools.it.apps;

import dev.pools.recording.JfrMirror;
import dev.pools.recording.PoolReportEvent;
import dev.pools.recording.UsageEvent;
import java.nio.file.Path;
import jdk.jfr.Recording;

/**
 * Writes to {@code args[0]} a recording with the pools' reports but no {@code pools.Layout} event,
 * as a JVM that ended while its recording started could leave before the layout was recorded at
 * every chunk's end; through JFR, as a user's own recording holds them. Runs without the agent, with
 * pools.jar on the class path.
 */
public final class ReportsWithoutLayout {

    public static void main(String[] args) throws Exception {
        try (Recording recording = new Recording()) {
            recording.enable("pools.PoolReport");
            recording.enable("pools.Usage");
            recording.start();
            PoolReportEvent pool = new PoolReportEvent();
            pool.index = 0;
            pool.kind = "sliced";
            pool.pageSize = 1 << 20;
            pool.maxSlice = 1 << 20;
            pool.pages = 1;
            pool.pagesPeak = 1;
            JfrMirror.commit(pool);
            UsageEvent usage = new UsageEvent();
            usage.bytesReserved = 1 << 20;
            JfrMirror.commit(usage);
            recording.stop();
            recording.dump(Path.of(args[0]));
        }
    }
}
