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
 * At once, most likely before the recording starts: holds 160 buffers of 64 KiB from its file's
 * layout, drops them, and installs another layout (one pool of 4 MiB pages); then holds one
 * buffer of 64 KiB for a second and ends normally.
 */
public final class EarlyInstall {

    static List<ByteBuffer> held = new ArrayList<>();

    public static void main(String[] args) throws Exception {
        for (int i = 0; i < 160; i++) {
            held.add(Tensors.allocate(64 << 10));
        }
        held = new ArrayList<>();
        for (int t = 0; ; t++) {
            System.gc();
            MemoryPools.cleanup();
            try {
                MemoryPools.install(MemoryPoolLayout.sliced(SlicedPool.of(4 << 20)));
                break;
            } catch (InstallMemoryPoolsException e) {
                if (t == 200) {
                    throw e;
                }
                Thread.sleep(10);
            }
        }
        held.add(Tensors.allocate(64 << 10));
        System.out.println("installed, holding " + held.size());
        Thread.sleep(1000);
    }
}
