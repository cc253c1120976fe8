package dev.pools.it.apps;

import it.host.Tensors;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * Holds {@code count} buffers of 1 MB at once, at one call site, right after the recording starts, then
 * drops them and waits for the collector to find them: under a layout capped below that, most are
 * fallbacks held and gone between two of the recording's batches.
 */
public final class FallbacksBetweenBatches {

    public static void main(String[] args) throws Exception {
        RecordedWorkload.awaitRecording();
        int count = Integer.parseInt(args[0]);
        List<ByteBuffer> held = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            held.add(Tensors.allocate(1_000_000));
        }
        System.out.println("held " + held.size());
        held.clear();
        System.gc();
        Thread.sleep(200);
    }
}
