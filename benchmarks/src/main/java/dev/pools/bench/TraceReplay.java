package dev.pools.bench;

import dev.pools.api.MemoryPoolLayout;
import dev.pools.layout.LayoutException;
import dev.pools.layout.Layouts;
import dev.pools.memory.AllocationListener;
import dev.pools.memory.CallSites;
import dev.pools.memory.PoolAllocator;
import dev.pools.memory.PoolReport;
import dev.pools.memory.PoolSpec;
import dev.pools.memory.Usage;
import java.io.IOException;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.lang.reflect.Method;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Random;

/**
 * B2, fragmentation: replays an allocation trace (from {@code report.trace}, or a synthetic mix)
 * under each layout and under the JDK's own direct memory, and prints peak bytes reserved against
 * peak bytes in use. Each replay checks once that the buffers it got are zero and that everything
 * went back at the end.
 *
 * <p>Usage: {@code TraceReplay <trace> <growable sliced layout, as page:maxSlice,...>} or
 * {@code TraceReplay --synthetic <file to write> <ops>}.
 */
public final class TraceReplay {

    /** One operation of a trace: a positive size allocates (id = index), a negative number releases allocation {@code -op - 1}. */
    record Trace(String name, long[] ops) {}

    record Result(String layout, long peakReserved, long peakInUse) {
        double ratio() {
            return (double) peakReserved / peakInUse;
        }
    }

    public static void main(String[] args) throws Exception {
        if (args[0].equals("--synthetic")) {
            writeSynthetic(Path.of(args[1]), Integer.parseInt(args[2]), 42);
            return;
        }
        Trace trace = read(Path.of(args[0]));
        List<PoolSpec> growable = parseSliced(args[1]);
        List<Result> results = replayAll(trace, growable);
        System.out.printf(Locale.ROOT, "%n%s: %d operations%n", trace.name(), trace.ops().length);
        System.out.printf(Locale.ROOT, "  %-52s %14s %14s %8s%n", "layout", "peak reserved", "peak in use", "ratio");
        for (Result r : results) {
            System.out.printf(
                    Locale.ROOT, "  %-52s %14d %14d %8.2f%n", r.layout(), r.peakReserved(), r.peakInUse(), r.ratio());
        }
    }

    static List<Result> replayAll(Trace trace, List<PoolSpec> growable) throws Exception {
        long p = Layouts.GIB;
        List<Result> out = new ArrayList<>();
        out.add(replayJdk(trace));
        out.add(replay(
                trace, "sub-slices (max_page_size 1 GiB)", Layouts.compile(new MemoryPoolLayout.SubSlices(), p)));
        out.add(replay(
                trace,
                "exclusive-pages (max_page_size 1 GiB)",
                Layouts.compile(new MemoryPoolLayout.ExclusivePages(), p)));
        out.add(replay(trace, "direct", List.of(new PoolSpec.Direct())));
        PoolAllocator measured = new PoolAllocator(growable);
        Result measuring = replay(trace, "sliced, growable " + describe(growable), measured, growable);
        out.add(measuring);
        List<PoolSpec> capped = new ArrayList<>();
        List<PoolReport> reports = measured.reports();
        for (int i = 0; i < growable.size(); i++) {
            PoolSpec.Sliced s = (PoolSpec.Sliced) growable.get(i);
            capped.add(new PoolSpec.Sliced(
                    s.pageSize(), s.maxSlice(), Math.max(1, reports.get(i).pagesPeak())));
        }
        out.add(replay(trace, "sliced, capped at the measured peaks", capped));
        out.add(best(trace));
        return out;
    }

    /**
     * The best capped layout among a small family of one- and two-pool candidates shaped by the trace's
     * largest request: what choosing page sizes for the workload buys over a generic layout.
     */
    static Result best(Trace trace) {
        long largest = 0;
        for (long op : trace.ops()) {
            largest = Math.max(largest, op);
        }
        List<List<PoolSpec>> candidates = new ArrayList<>();
        long[] factors = {100, 110, 125, 150, 200, 300, 400};
        for (long f : factors) {
            long page = roundUp(largest * f / 100, 64 * 1024);
            candidates.add(List.of(new PoolSpec.Sliced(page, roundUp(largest, 64), PoolSpec.UNCAPPED)));
            for (long small : new long[] {256 * 1024, 1024 * 1024, 4 * 1024 * 1024}) {
                for (long slice : new long[] {16 * 1024, 64 * 1024, 256 * 1024}) {
                    if (slice < small && small < page) {
                        candidates.add(List.of(
                                new PoolSpec.Sliced(small, slice, PoolSpec.UNCAPPED),
                                new PoolSpec.Sliced(page, roundUp(largest, 64), PoolSpec.UNCAPPED)));
                    }
                }
            }
        }
        Result best = null;
        String shape = null;
        for (List<PoolSpec> c : candidates) {
            Result r = replay(trace, "", c);
            if (best == null || r.peakReserved() < best.peakReserved()) {
                best = r;
                shape = describeWithSlices(c);
            }
        }
        return new Result("best of " + candidates.size() + " tuned: " + shape, best.peakReserved(), best.peakInUse());
    }

    private static long roundUp(long v, long unit) {
        return (v + unit - 1) / unit * unit;
    }

    private static String describeWithSlices(List<PoolSpec> sliced) {
        StringBuilder b = new StringBuilder();
        for (PoolSpec s : sliced) {
            PoolSpec.Sliced x = (PoolSpec.Sliced) s;
            b.append(b.length() == 0 ? "" : ",")
                    .append(x.pageSize() >> 10)
                    .append("K/")
                    .append(x.maxSlice() >> 10)
                    .append('K');
        }
        return b.toString();
    }

    private static String describe(List<PoolSpec> sliced) {
        StringBuilder b = new StringBuilder();
        for (PoolSpec s : sliced) {
            PoolSpec.Sliced x = (PoolSpec.Sliced) s;
            b.append(b.length() == 0 ? "" : ",").append(x.pageSize() >> 10).append('K');
        }
        return b.toString();
    }

    static Result replay(Trace trace, String name, List<PoolSpec> layout) {
        return replay(
                trace,
                name,
                new PoolAllocator(
                        layout, new PoolAllocator.Options(false, true), AllocationListener.NONE, new CallSites()),
                layout);
    }

    private static Result replay(Trace trace, String name, PoolAllocator pools, List<PoolSpec> layout) {
        long[] ops = trace.ops();
        ByteBuffer[] live = new ByteBuffer[ops.length];
        long peakReserved = 0;
        long peakInUse = 0;
        long inUse = 0;
        boolean checkedZero = false;
        for (int i = 0; i < ops.length; i++) {
            long op = ops[i];
            if (op > 0) {
                ByteBuffer b = pools.allocate((int) op, 0);
                if (!checkedZero && b.capacity() >= 64) {
                    for (int j = 0; j < b.capacity(); j++) {
                        if (b.get(j) != 0) {
                            throw new AssertionError(name + ": a buffer is not zero-filled");
                        }
                    }
                    checkedZero = true;
                }
                b.put(0, (byte) 1);
                live[i] = b;
                inUse += op;
            } else {
                int id = (int) (-op - 1);
                inUse -= live[id].capacity();
                if (!pools.release(live[id])) {
                    throw new AssertionError(name + ": a release was lost");
                }
                live[id] = null;
            }
            Usage u = pools.usage();
            if (u.bytesInUse() != inUse) {
                throw new AssertionError(
                        name + ": the pools count " + u.bytesInUse() + " B in use, the replay " + inUse);
            }
            peakReserved = Math.max(peakReserved, u.bytesReserved());
            peakInUse = Math.max(peakInUse, inUse);
        }
        pools.checkInvariants();
        return new Result(name, peakReserved, peakInUse);
    }

    /** The JDK's own direct memory: allocateDirect, freed at release; reserved as its "direct" buffer pool reports it. */
    static Result replayJdk(Trace trace) throws Exception {
        BufferPoolMXBean direct = ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class).stream()
                .filter(b -> b.getName().equals("direct"))
                .findFirst()
                .orElseThrow();
        Method invokeCleaner = Class.forName("sun.misc.Unsafe").getMethod("invokeCleaner", ByteBuffer.class);
        java.lang.reflect.Field f = Class.forName("sun.misc.Unsafe").getDeclaredField("theUnsafe");
        f.setAccessible(true);
        Object unsafe = f.get(null);
        long base = direct.getMemoryUsed();
        long[] ops = trace.ops();
        ByteBuffer[] live = new ByteBuffer[ops.length];
        long peakReserved = 0;
        long peakInUse = 0;
        long inUse = 0;
        for (int i = 0; i < ops.length; i++) {
            long op = ops[i];
            if (op > 0) {
                live[i] = ByteBuffer.allocateDirect((int) op);
                inUse += op;
            } else {
                int id = (int) (-op - 1);
                inUse -= live[id].capacity();
                invokeCleaner.invoke(unsafe, live[id]);
                live[id] = null;
            }
            peakReserved = Math.max(peakReserved, direct.getMemoryUsed() - base);
            peakInUse = Math.max(peakInUse, inUse);
        }
        return new Result("JDK allocateDirect, freed at release", peakReserved, peakInUse);
    }

    /** Reads a {@code report.trace} file: pool allocations and their releases, in order (fallbacks are skipped). */
    static Trace read(Path file) throws IOException {
        List<Long> ops = new ArrayList<>();
        Map<Long, Integer> index = new HashMap<>();
        for (String line : Files.readAllLines(file)) {
            String[] f = line.split(" ");
            if (f[0].equals("a")) {
                index.put(Long.parseLong(f[1]), ops.size());
                ops.add(Long.parseLong(f[2]));
            } else if (f[0].equals("r") || f[0].equals("c")) { // released explicitly, or by the collector
                Integer at = index.remove(Long.parseLong(f[1]));
                if (at != null) {
                    ops.add(-1L - at);
                }
            }
        }
        for (Integer at : index.values()) {
            ops.add(-1L - at);
        }
        return new Trace(
                file.getFileName().toString(),
                ops.stream().mapToLong(Long::longValue).toArray());
    }

    /**
     * A synthetic mix in the trace format: mostly small tensors (a few KiB), some batches (hundreds of
     * KiB), a few large ones (several MiB), each living for an exponentially distributed number of
     * further operations.
     */
    static void writeSynthetic(Path file, int allocations, long seed) throws IOException {
        Random random = new Random(seed);
        StringBuilder b = new StringBuilder("# pools trace v1 (synthetic mix, seed " + seed + ")\n");
        PriorityQueue<long[]> ends = new PriorityQueue<>((x, y) -> Long.compare(x[0], y[0]));
        for (long id = 1; id <= allocations; id++) {
            while (!ends.isEmpty() && ends.peek()[0] <= id) {
                b.append("r ").append(ends.poll()[1]).append('\n');
            }
            int kind = random.nextInt(100);
            long size = kind < 70
                    ? 64 + random.nextInt(16 * 1024)
                    : kind < 97
                            ? 64 * 1024 + random.nextInt(960 * 1024)
                            : 2 * 1024 * 1024 + random.nextInt(6 * 1024 * 1024);
            b.append("a ").append(id).append(' ').append(size).append(" synthetic\n");
            ends.add(new long[] {id + 1 + (long) (-Math.log(1 - random.nextDouble()) * 40), id});
        }
        while (!ends.isEmpty()) {
            b.append("r ").append(ends.poll()[1]).append('\n');
        }
        Files.writeString(file, b);
    }

    static List<PoolSpec> parseSliced(String text) throws LayoutException {
        List<PoolSpec> out = new ArrayList<>();
        for (String pool : text.split(",")) {
            String[] f = pool.split(":");
            long page = dev.pools.layout.Quantities.size("page", f[0]);
            long slice = dev.pools.layout.Quantities.size("slice", f[1]);
            out.add(new PoolSpec.Sliced(page, slice, PoolSpec.UNCAPPED));
        }
        return out;
    }
}
