package dev.pools.it.apps;

import it.host.Tensors;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * Holds 10 buffers, and has a shutdown hook of its own that holds 10 more half a second into the
 * JVM's end, when the agent's own hook has most likely closed its recording and trace.
 */
public final class HookAllocates {

    static final List<ByteBuffer> HELD = new ArrayList<>();

    public static void main(String[] args) throws Exception {
        RecordedWorkload.awaitRecording();
        for (int i = 0; i < 10; i++) {
            HELD.add(Tensors.allocate(10_000));
        }
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                Thread.sleep(500);
            } catch (InterruptedException e) {
                return;
            }
            for (int i = 0; i < 10; i++) {
                HELD.add(Tensors.allocate(10_000));
            }
            System.out.println("hook held " + HELD.size());
        }));
    }
}
