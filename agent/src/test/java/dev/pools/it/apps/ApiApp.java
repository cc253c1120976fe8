package dev.pools.it.apps;

import dev.pools.api.InstallMemoryPoolsException;
import dev.pools.api.MemoryPoolLayout;
import dev.pools.api.MemoryPools;
import dev.pools.api.SlicedPool;
import dev.pools.api.SlicedPoolReport;
import it.host.Tensors;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * A host application that drives the in-process API; each argument is one step, and each step prints what it saw.
 * {@code install-loop}: 400 installs, 2 ms apart, of one pool of 1 MiB pages and one of 256 KiB pages in turn.
 */
public final class ApiApp {

    public static void main(String[] args) {
        System.out.println("main ran");
        List<ByteBuffer> held = new ArrayList<>();
        for (String step : args) {
            switch (step) {
                case "reports" -> {
                    for (SlicedPoolReport r : MemoryPools.reports()) {
                        System.out.println("report " + r.pageSize() + " " + r.pages() + " " + r.pagesPeak() + " "
                                + r.largestAlloc());
                    }
                }
                case "usage" -> System.out.println("usage " + MemoryPools.usage());
                case "alloc" -> held.add(Tensors.allocate(100_000));
                case "free" -> held.clear();
                case "install" -> {
                    try {
                        MemoryPools.install(
                                MemoryPoolLayout.sliced(SlicedPool.of(4 << 20).withPages(2), SlicedPool.of(32 << 20)));
                        System.out.println("installed");
                    } catch (InstallMemoryPoolsException e) {
                        System.out.println(
                                "refused " + e.kind() + " " + e.bytesInUse() + " transient=" + e.isTransient());
                    }
                }
                case "install-invalid" -> {
                    try {
                        MemoryPools.install(
                                MemoryPoolLayout.sliced(SlicedPool.of(1 << 20).withMaxSlice(2 << 20)));
                        System.out.println("installed");
                    } catch (InstallMemoryPoolsException e) {
                        System.out.println("refused " + e.kind() + " " + e.getMessage());
                    }
                }
                case "install-loop" -> {
                    // Layouts of one pool of 256 KiB pages and of one of 1 MiB pages, in turn, for a second or so.
                    int done = 0;
                    try {
                        RecordedWorkload.awaitRecording(); // each install then has its pools.Layout event
                    } catch (InterruptedException e) {
                        throw new IllegalStateException(e);
                    }
                    for (int i = 0; i < 400; i++) {
                        try {
                            MemoryPools.install(
                                    MemoryPoolLayout.sliced(SlicedPool.of(i % 2 == 0 ? 1 << 20 : 256 << 10)));
                            done++;
                            Thread.sleep(2);
                        } catch (InstallMemoryPoolsException | InterruptedException e) {
                            throw new IllegalStateException(e);
                        }
                    }
                    System.out.println("installed " + done);
                }
                case "gc" -> {
                    for (int i = 0; i < 3; i++) {
                        System.gc();
                    }
                    MemoryPools.cleanup();
                }
                default -> throw new IllegalArgumentException(step);
            }
        }
    }
}
