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

/** A host application that drives the in-process API; each argument is one step, and each step prints what it saw. */
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
