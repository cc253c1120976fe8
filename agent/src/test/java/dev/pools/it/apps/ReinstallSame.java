package dev.pools.it.apps;

import dev.pools.api.InstallMemoryPoolsException;
import dev.pools.api.MemoryPoolLayout;
import dev.pools.api.MemoryPools;
import dev.pools.api.SlicedPool;
import it.host.Tensors;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * Holds 160 buffers of 64 KiB (10 pages of the layout's second pool, 1 MiB pages of 16 slices),
 * drops them, installs the same layout as its file's through the API once the pools are empty,
 * then holds 16 (one page) and ends normally.
 */
public final class ReinstallSame {

    static List<ByteBuffer> held = new ArrayList<>();

    public static void main(String[] args) throws Exception {
        RecordedWorkload.awaitRecording();
        for (int i = 0; i < 160; i++) {
            held.add(Tensors.allocate(64 << 10));
        }
        held = new ArrayList<>();
        MemoryPoolLayout same =
                MemoryPoolLayout.sliced(SlicedPool.of(256 << 10).withMaxSlice(16 << 10), SlicedPool.of(1 << 20));
        for (int t = 0; ; t++) {
            System.gc();
            Thread.sleep(50);
            MemoryPools.cleanup();
            try {
                MemoryPools.install(same);
                break;
            } catch (InstallMemoryPoolsException e) {
                if (t == 200) {
                    throw e;
                }
            }
        }
        for (int i = 0; i < 16; i++) {
            held.add(Tensors.allocate(64 << 10));
        }
        System.out.println("reinstalled, holding " + held.size());
        Thread.sleep(500); // a batch after the install
    }
}
