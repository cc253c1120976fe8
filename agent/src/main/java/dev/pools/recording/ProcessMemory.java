package dev.pools.recording;

import dev.pools.log.Log;
import dev.pools.memory.PlatformBeans;
import dev.pools.memory.PoolAllocator;
import dev.pools.memory.Usage;
import java.io.IOException;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Samples the process's memory for {@link ProcessMemoryEvent}: the resident set from
 * {@code /proc/self/status} (with the kernel's own high-water mark, so that the peak is exact
 * whatever the period), the JVM's parts from its management beans ({@link PlatformBeans}). Where {@code /proc} cannot be
 * read, says so once and records the rest.
 */
final class ProcessMemory {

    private static final Path STATUS = Path.of("/proc/self/status");

    /** The JVM's management beans, looked up at the first sample. */
    private List<MemoryPoolMXBean> nonHeap;

    private BufferPoolMXBean direct;

    /**
     * The survivor space of the Serial and Parallel collectors, whose size the heap's committed
     * figure counts once though the young generation commits two of it (from and to; the bean
     * reports the one in use): 17 MiB of a 512 MiB heap under Serial's defaults, which the native
     * memory's lower bound then took for the process's own. Null under the other collectors, whose
     * figure is the whole.
     */
    private MemoryPoolMXBean survivorTwice;

    private synchronized void lookUpBeans() {
        if (nonHeap != null) {
            return;
        }
        PlatformBeans beans = PlatformBeans.get();
        List<MemoryPoolMXBean> pools = new ArrayList<>();
        for (MemoryPoolMXBean p : beans.memoryPools) {
            if (p.getType() == MemoryType.NON_HEAP) {
                pools.add(p);
            } else if (p.getName().equals("Survivor Space") || p.getName().equals("PS Survivor Space")) {
                survivorTwice = p;
            }
        }
        BufferPoolMXBean found = null;
        for (BufferPoolMXBean b : beans.bufferPools) {
            if (b.getName().equals("direct")) {
                found = b;
            }
        }
        direct = found;
        nonHeap = List.copyOf(pools);
    }

    /** The resident set in bytes: {rss, peak, anonymous, file-backed}; -1 each when unknown. */
    static long[] residentSet(List<String> status) {
        long rss = -1;
        long peak = -1;
        long anon = -1;
        long file = -1;
        long shmem = 0;
        for (String line : status) {
            int colon = line.indexOf(':');
            if (colon < 0) {
                continue;
            }
            String key = line.substring(0, colon);
            long bytes =
                    switch (key) {
                        case "VmRSS", "VmHWM", "RssAnon", "RssFile", "RssShmem" -> kilobytes(line.substring(colon + 1));
                        default -> -2;
                    };
            switch (key) {
                case "VmRSS" -> rss = bytes;
                case "VmHWM" -> peak = bytes;
                case "RssAnon" -> anon = bytes;
                case "RssFile" -> file = bytes;
                case "RssShmem" -> shmem = Math.max(0, bytes);
                default -> {}
            }
        }
        return new long[] {rss, peak, anon, file < 0 ? -1 : file + shmem};
    }

    private static long kilobytes(String value) {
        String v = value.strip();
        if (!v.endsWith("kB")) {
            return -1;
        }
        try {
            return Long.parseLong(v.substring(0, v.length() - 2).strip()) * 1024;
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    private static long[] readResidentSet() {
        try {
            return residentSet(Files.readAllLines(STATUS));
        } catch (IOException | RuntimeException e) {
            Log.once(
                    "proc",
                    "cannot read " + STATUS + " (" + e + "); the recording has the JVM's own memory figures but"
                            + " not the process's resident set");
            return new long[] {-1, -1, -1, -1};
        }
    }

    /** The process's memory now, with the pools' usage {@code pools} and the peak {@code allocator}'s fallbacks made. */
    ProcessMemoryEvent sample(PoolAllocator allocator, Usage pools) {
        lookUpBeans();
        ProcessMemoryEvent e = new ProcessMemoryEvent();
        long[] rss = readResidentSet();
        e.rss = rss[0];
        e.rssPeak = rss[1];
        e.rssAnon = rss[2];
        e.rssFile = rss[3];
        PlatformBeans beans = PlatformBeans.get();
        MemoryUsage heap = beans.memory.getHeapMemoryUsage();
        e.heapUsed = heap.getUsed();
        e.heapCommitted = heap.getCommitted()
                + (survivorTwice == null ? 0 : survivorTwice.getUsage().getCommitted());
        long metaspace = 0;
        long codeCache = 0;
        long other = 0;
        for (MemoryPoolMXBean p : nonHeap) {
            long committed = p.getUsage().getCommitted();
            String name = p.getName();
            if (name.equals("Metaspace")) {
                metaspace += committed;
            } else if (name.startsWith("CodeHeap") || name.equals("Code Cache")) {
                codeCache += committed;
            } else if (!name.equals("Compressed Class Space")) {
                // Class space is part of Metaspace's figure.
                other += committed;
            }
        }
        e.metaspace = metaspace;
        e.codeCache = codeCache;
        e.otherNonHeap = other;
        e.threads = beans.threads.getThreadCount();
        e.jdkDirect = direct == null ? -1 : direct.getMemoryUsed();
        e.poolsReserved = pools.bytesReserved();
        e.poolsInUse = pools.bytesInUse();
        BufferPoolMXBean jdk = direct;
        e.directOutside = jdk == null ? -1 : PoolAllocator.directOutsidePages(jdk::getMemoryUsed);
        e.directOutsideAtFallbacks = allocator.outsideAtFallbacksPeak();
        // The JVM's parts are anonymous memory; file-backed pages (code of libraries and jars) are apart.
        // Committed heap counts in full, touched or not, so the rest is a lower bound.
        e.nativeOther = e.rssAnon < 0
                ? -1
                : Math.max(0, e.rssAnon - e.heapCommitted - metaspace - codeCache - other - Math.max(0, e.jdkDirect));
        return e;
    }
}
