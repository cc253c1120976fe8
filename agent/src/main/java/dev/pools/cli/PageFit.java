package dev.pools.cli;

import dev.pools.memory.AllocationListener;
import dev.pools.memory.CallSites;
import dev.pools.memory.DirectMemory;
import dev.pools.memory.PoolAllocator;
import dev.pools.memory.PoolReport;
import dev.pools.memory.PoolSpec;
import dev.pools.memory.Sizes;
import dev.pools.memory.Usage;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;

/**
 * {@code suggest --fit}: page sizes and slice limits chosen for the workload, not only caps. Each
 * candidate layout (one to three sliced pools, shaped by the traces' request sizes) is replayed
 * through the pools themselves, allocation by allocation in the traced order, and the one that
 * reserves least at its peak wins; its caps are the pages it held in the replays. Replaying the real
 * engine, not a model of it, is what makes the caps hold when the same workload runs again.
 */
final class PageFit {

    /**
     * A trace as operations: a size for an allocation; {@code -1 - i} for the release of allocation
     * {@code i} explicitly, {@code -1 - i - COLLECTED} for one by the collector. {@code threads}: per
     * operation, the number of the thread that made it (from 1; 0 a virtual thread, which caches
     * nothing; {@link #ANY} for the collector's releases, which no thread's cache takes).
     */
    record Trace(Path file, long[] ops, int[] threads, long largest) {
        /** One thread (number 1) for every operation, as a trace of version 1 has them. */
        Trace(Path file, long[] ops, long largest) {
            this(file, ops, oneThread(ops), largest);
        }

        private static int[] oneThread(long[] ops) {
            int[] threads = new int[ops.length];
            for (int i = 0; i < ops.length; i++) {
                threads[i] = ops[i] < -COLLECTED ? ANY : 1;
            }
            return threads;
        }

        /** The most bytes live at once in the trace. */
        long mostLive() {
            long live = 0;
            long most = 0;
            for (long op : ops) {
                if (op > 0) {
                    live += op;
                    most = Math.max(most, live);
                } else {
                    live -= ops[(int) ((op < -COLLECTED ? -op - COLLECTED : -op) - 1)];
                }
            }
            return most;
        }
    }

    /** Added to a release by the collector in {@link Trace#ops}. */
    static final long COLLECTED = 1L << 40;

    /** In {@link Trace#threads}: an operation any thread may replay (a release by the collector). */
    static final int ANY = -1;

    /** A candidate's result over all traces: its largest peak reserved, and per pool the most pages it held. */
    record Outcome(List<PoolSpec.Sliced> pools, long peakReserved, long peakInUse, long[] pagesPeak) {
        double ratio() {
            return peakInUse == 0 ? 0 : (double) peakReserved / peakInUse;
        }
    }

    /** The search: what won, what the recorded layout gives on the same traces, how many were tried, how long. */
    record Search(Outcome best, Outcome recorded, int tried, long millis) {}

    private PageFit() {}

    /** Reads a {@code report.trace} file; fallbacks ({@code f} lines) are not pool memory and are left out. */
    static Trace read(Path file) {
        try {
            return parse(file);
        } catch (OutOfMemoryError e) {
            // Said here, once the parse's lists are unreachable: in it, the message itself could not be made.
            throw new BadInput(file + ": the trace does not fit this JVM's heap (" + e.getMessage()
                    + "); run suggest with more heap (java -Xmx... -jar pools.jar suggest ...)");
        }
    }

    private static Trace parse(Path file) {
        List<Long> ops = new ArrayList<>();
        List<Integer> threads = new ArrayList<>();
        Map<Long, Integer> numbers = new HashMap<>();
        Map<Long, Integer> index = new HashMap<>();
        long largest = 0;
        int lineNumber = 0;
        int version = 0; // none said: the fields each line has
        try {
            List<String> lines = Files.readAllLines(file);
            boolean cutAtEnd = !endsWithNewline(file);
            for (String line : lines) {
                lineNumber++;
                if (line.startsWith("# pools trace ")) {
                    // The version, then maybe words of its own: "# pools trace v1 (synthetic mix, seed 1)".
                    String v = line.substring("# pools trace ".length()).strip().split(" ")[0];
                    if (!v.equals("v1") && !v.equals("v2")) {
                        throw new BadInput(file + ":" + lineNumber + ": a trace of version '" + v
                                + "', which this pools.jar does not read (it reads v1 and v2)");
                    }
                    version = v.charAt(1) - '0';
                    continue;
                }
                if (line.isBlank() || line.startsWith("#")) {
                    continue;
                }
                String[] f = line.split(" ");
                if (version == 2 && f.length != (f[0].equals("a") ? 5 : f[0].equals("c") ? 2 : 3)) {
                    if (lineNumber == lines.size() && cutAtEnd) {
                        // The agent writes whole lines: a last one without its end is a JVM's killed in it.
                        System.err.println("pools: " + file + ":" + lineNumber
                                + ": the trace's last line is cut (its JVM killed while writing it?); left out");
                        break;
                    }
                    throw new NumberFormatException();
                }
                if (f[0].equals("f")) {
                    continue;
                }
                if (f[0].equals("a") && f.length >= 3) {
                    long size = Long.parseLong(f[2]);
                    if (size < 1 || size > Sizes.MAX_PAGE) {
                        // No pool page holds more than Sizes.MAX_PAGE bytes: the agent traces a larger request
                        // as the JDK's ('f'), and no request of 0 bytes (no pool serves it).
                        throw new NumberFormatException();
                    }
                    Integer live = index.put(Long.parseLong(f[1]), ops.size());
                    if (live != null) {
                        // Its first allocation would stay live to the end, never released nor counted.
                        throw new BadInput(file + ":" + lineNumber + ": allocation " + f[1]
                                + " is already live (a trace names an allocation once, until its 'r' or 'c' line)");
                    }
                    ops.add(size);
                    // Version 1 named no thread: one thread made every request.
                    threads.add(f.length >= 5 ? thread(f[4], numbers) : 1);
                    largest = Math.max(largest, size);
                } else if ((f[0].equals("r") || f[0].equals("c")) && f.length >= 2) {
                    Integer at = index.remove(Long.parseLong(f[1]));
                    boolean collected = f[0].equals("c");
                    int thread = collected ? ANY : f.length >= 3 ? thread(f[2], numbers) : 1;
                    if (at != null) {
                        ops.add(-1L - at - (collected ? COLLECTED : 0));
                        threads.add(thread);
                    }
                } else {
                    throw new NumberFormatException();
                }
            }
        } catch (NoSuchFileException e) {
            throw new BadInput(file + ": no such file (a trace written by report.trace)");
        } catch (CharacterCodingException e) {
            throw new BadInput(file + ": not a pools trace, which is text (a file written by report.trace; a recording"
                    + " is given to suggest without --fit)");
        } catch (IOException e) {
            throw new BadInput(file + ": cannot read the trace (" + e.getMessage() + ")");
        } catch (NumberFormatException e) {
            throw new BadInput(file + ":" + lineNumber
                    + ": not a line of a pools trace (expected 'a <id> <size> <site> <thread>', 'r <id> <thread>',"
                    + " 'c <id>' or 'f <size> <site>')");
        }
        if (ops.isEmpty()) {
            throw new BadInput(file + ": the trace holds no allocation");
        }
        // What was still live at the end goes back, so that every replay ends empty.
        for (Integer at : index.values()) {
            ops.add(-1L - at - COLLECTED);
            threads.add(ANY);
        }
        return new Trace(
                file,
                ops.stream().mapToLong(Long::longValue).toArray(),
                threads.stream().mapToInt(Integer::intValue).toArray(),
                largest);
    }

    /** Whether the file's last byte ends a line (or it is empty). */
    private static boolean endsWithNewline(Path file) throws IOException {
        try (RandomAccessFile in = new RandomAccessFile(file.toFile(), "r")) {
            if (in.length() == 0) {
                return true;
            }
            in.seek(in.length() - 1);
            return in.read() == '\n';
        }
    }

    /**
     * A thread's number in the replay: 0 (a virtual thread) as it is, the others numbered from 1 as
     * they first appear, whatever numbers the trace gives them (so a number out of the agent's range
     * does not size the replay's arrays).
     */
    private static int thread(String number, Map<Long, Integer> numbers) {
        long n = Long.parseLong(number);
        if (n < 0) {
            throw new NumberFormatException();
        }
        return n == 0 ? 0 : numbers.computeIfAbsent(n, k -> numbers.size() + 1);
    }

    /**
     * A coordinate search over layouts of one to three sliced pools, each step keeping the layout
     * that reserves least at its peak over all traces (ties: fewer pools):
     * <ol>
     *   <li>one pool for everything, pages of 1 to 8 times the largest request;</li>
     *   <li>a pool for small requests before it: every power-of-two page from 16 KiB and slice
     *       limit from 1 KiB below it;</li>
     *   <li>a middle pool between the two, on the same grid;</li>
     *   <li>the large pool's page again, with the others fixed.</li>
     * </ol>
     * {@code recorded} is the measured layout's pools, replayed for comparison.
     */
    static Search search(List<Trace> traces, List<PoolSpec.Sliced> recorded) {
        long start = System.nanoTime();
        long largest = 0;
        for (Trace t : traces) {
            largest = Math.max(largest, t.largest());
        }
        largest = Math.min(Sizes.roundUp(Math.max(largest, 1)), Sizes.MAX_PAGE);
        Set<List<PoolSpec.Sliced>> tried = new LinkedHashSet<>();
        Outcome best = null;
        for (PoolSpec.Sliced big : bigPools(largest)) {
            best = better(best, List.of(big), traces, tried);
        }
        PoolSpec.Sliced big = best.pools().get(0);
        for (PoolSpec.Sliced small : grid(1, big.pageSize(), largest)) {
            best = better(best, List.of(small, big), traces, tried);
        }
        if (best.pools().size() == 2) {
            PoolSpec.Sliced small = best.pools().get(0);
            for (PoolSpec.Sliced mid : grid(small.maxSlice() + 1, big.pageSize(), largest)) {
                if (mid.pageSize() > small.pageSize()) {
                    best = better(best, List.of(small, mid, big), traces, tried);
                }
            }
        }
        List<PoolSpec.Sliced> rest = best.pools().subList(0, best.pools().size() - 1);
        for (PoolSpec.Sliced other : bigPools(largest)) {
            List<PoolSpec.Sliced> c = new ArrayList<>(rest);
            c.add(other);
            best = better(best, c, traces, tried);
        }
        Outcome baseline = recorded.isEmpty() ? null : replayAll(traces, recorded);
        if (best.peakReserved() == Long.MAX_VALUE) {
            // Every replay was refused memory: the pages are real, and this JVM's direct memory is
            // below what the traces held at once. A layout from no replay would be a guess.
            long held = 0;
            for (Trace t : traces) {
                held = Math.max(held, t.mostLive());
            }
            throw new BadInput("no layout could be replayed: this JVM's direct memory limit ("
                    + Sizes.human(DirectMemory.limit()) + ") is below what the traces held at once ("
                    + Sizes.human(held) + ") with the pages around it; run suggest with a larger one, e.g. java"
                    + " -XX:MaxDirectMemorySize=" + Math.max(64, 4 * ((held >> 20) + 1))
                    + "m -jar pools.jar suggest ...");
        }
        return new Search(best, baseline, tried.size(), (System.nanoTime() - start) / 1_000_000);
    }

    private static Outcome better(
            Outcome best, List<PoolSpec.Sliced> candidate, List<Trace> traces, Set<List<PoolSpec.Sliced>> tried) {
        if (!tried.add(candidate)) {
            return best;
        }
        Outcome o = replayAll(traces, candidate);
        if (best == null
                || o.peakReserved() < best.peakReserved()
                || (o.peakReserved() == best.peakReserved()
                        && candidate.size() < best.pools().size())) {
            return o;
        }
        return best;
    }

    /** The pool that takes every request: pages of 1, 1.25, 1.5, 2, 3, 4, 6 and 8 times the largest. */
    static List<PoolSpec.Sliced> bigPools(long largest) {
        List<PoolSpec.Sliced> out = new ArrayList<>();
        for (int percent : new int[] {100, 125, 150, 200, 300, 400, 600, 800}) {
            long page = Math.min(Sizes.MAX_PAGE, roundUp(largest * percent / 100, 64 * 1024));
            PoolSpec.Sliced p = new PoolSpec.Sliced(Math.max(page, largest), largest, PoolSpec.UNCAPPED);
            if (!out.contains(p)) {
                out.add(p);
            }
        }
        return out;
    }

    /** Pools of power-of-two pages from 16 KiB below {@code belowPage}, slice limits from {@code minSlice} below both. */
    static List<PoolSpec.Sliced> grid(long minSlice, long belowPage, long largest) {
        List<PoolSpec.Sliced> out = new ArrayList<>();
        for (long page = 16 << 10; page < belowPage; page <<= 1) {
            for (long slice = 1 << 10; slice <= page && slice < largest; slice <<= 1) {
                if (slice >= minSlice) {
                    out.add(new PoolSpec.Sliced(page, slice, PoolSpec.UNCAPPED));
                }
            }
        }
        return out;
    }

    private static long roundUp(long v, long unit) {
        return (v + unit - 1) / unit * unit;
    }

    static Outcome replayAll(List<Trace> traces, List<PoolSpec.Sliced> pools) {
        long reserved = 0;
        long inUse = 0;
        long[] pages = new long[pools.size()];
        for (Trace t : traces) {
            Outcome o = replay(t, pools);
            reserved = Math.max(reserved, o.peakReserved());
            inUse = Math.max(inUse, o.peakInUse());
            for (int i = 0; i < pages.length; i++) {
                pages[i] = Math.max(pages[i], o.pagesPeak()[i]);
            }
        }
        return new Outcome(pools, reserved, inUse, pages);
    }

    /**
     * One trace through growable pools of these sizes. A request that no pool takes by its slice
     * limit is refused (counted as not fitting: such a layout never wins).
     */
    /** For tests: given each replay's allocator before its first operation; null otherwise. */
    static volatile Consumer<PoolAllocator> replayStarting;

    static Outcome replay(Trace trace, List<PoolSpec.Sliced> pools) {
        // With thread caches, as the capped run has them: each operation is made on a thread of the
        // replay's own for the thread that made it, so that an explicit release goes to that thread's
        // cache and serves that thread's next request of its size, as in the run; the collector's
        // releases never do, and are replayed so (a slice a cache holds changes where the next ones land).
        Replay r = new Replay(trace, pools);
        try {
            Consumer<PoolAllocator> hook = replayStarting;
            if (hook != null) {
                hook.accept(r.allocator);
            }
            Throwable failed = null;
            try {
                r.run();
            } catch (RuntimeException | OutOfMemoryError e) {
                failed = e; // after a stop, most likely of it: the JDK's buffers do not count as the pools'
            }
            Throwable stop = r.allocator.stoppedBy();
            if (stop != null) {
                // Served by the JDK from then on: no measure of the pools. Only a full heap stops them so.
                Arrays.fill(r.live, null);
                throw new BadInput("the replay of " + trace.file() + " stopped the pools (" + stop
                        + "); run suggest with more heap (java -Xmx... -jar pools.jar suggest ...)");
            }
            if (failed instanceof OutOfMemoryError oom) {
                throw oom;
            }
            if (failed != null) {
                throw (RuntimeException) failed;
            }
            r.allocator.checkInvariants();
            long[] pages = new long[pools.size()];
            List<PoolReport> reports = r.allocator.reports();
            for (int i = 0; i < pages.length; i++) {
                pages[i] = reports.get(i).pagesPeak();
            }
            return new Outcome(pools, r.peakReserved, r.peakInUse, pages);
        } catch (OutOfMemoryError e) {
            if (!refusal(e)) {
                // Not the pools' refusal nor the direct memory's: this JVM's heap, or no thread to start. The
                // replay's buffers go first, to the collector: with the heap full, no message could be made.
                Arrays.fill(r.live, null);
                throw new BadInput("the replay of " + trace.file() + " ran out of memory: " + e.getMessage()
                        + "; run suggest with more heap (java -Xmx... -jar pools.jar suggest ...), or with fewer"
                        + " threads at once");
            }
            return new Outcome(pools, Long.MAX_VALUE, r.peakInUse, new long[pools.size()]);
        } finally {
            for (ByteBuffer b : r.live) {
                if (b != null) {
                    r.allocator.release(b, false);
                }
            }
            r.allocator.cleanup();
        }
    }

    /**
     * Whether {@code e} is a refusal of memory for the replayed pools: the pools' own (under {@code
     * on_exhausted: fail}) or the JDK's direct memory limit, not this JVM's heap or threads.
     */
    static boolean refusal(OutOfMemoryError e) {
        // Without allocating: the heap may be full.
        String m = e.getMessage();
        return m != null
                && (m.startsWith("pools: cannot serve")
                        || m.contains("direct buffer memory")
                        || m.contains("Direct buffer memory"));
    }

    /**
     * A replay's state, which one thread at a time changes: the operations of the trace's thread
     * {@code n} are made on the replay's thread {@code n}, in the trace's order. A trace of one thread
     * is replayed on the calling thread.
     */
    private static final class Replay {
        final Trace trace;
        final PoolAllocator allocator;
        final ByteBuffer[] live;
        long peakReserved;
        long peakInUse;
        long inUse;
        /** The next operation; written by the thread whose turn ends, read by the one whose turn begins. */
        volatile int next;
        /** Why the replay stopped early: a refusal ({@code OutOfMemoryError}) or a failure. */
        volatile Throwable failed;

        Replay(Trace trace, List<PoolSpec.Sliced> pools) {
            this.trace = trace;
            this.allocator = new PoolAllocator(
                    new ArrayList<PoolSpec>(pools),
                    new PoolAllocator.Options(false, true),
                    AllocationListener.NONE,
                    new CallSites());
            this.live = new ByteBuffer[trace.ops().length];
        }

        /**
         * Per replayed thread (by number), the index of its last operation: it ends after it, as the
         * run's thread did some time after, so that its cache is given up as an ended thread's is.
         */
        private int[] last;
        /** The replay's threads, started as their first operation comes; written by the thread whose turn it is. */
        private Thread[] workers;
        /** Every replay thread started, for the caller to wait for; appended by the thread whose turn it is. */
        private final List<Thread> started = new ArrayList<>();
        /** Counted down by the thread that makes the last operation, or stops the replay at a failure. */
        private final CountDownLatch done = new CountDownLatch(1);

        void run() {
            int[] threads = trace.threads();
            int most = 0;
            for (int t : threads) {
                most = Math.max(most, t);
            }
            last = new int[most + 1];
            Arrays.fill(last, -1);
            int distinct = 0;
            for (int i = 0; i < threads.length; i++) {
                if (threads[i] >= 0) {
                    distinct += last[threads[i]] < 0 ? 1 : 0;
                    last[threads[i]] = i;
                }
            }
            if (distinct <= 1) {
                for (int i = 0; i < threads.length; i++) {
                    step(i);
                }
                return;
            }
            workers = new Thread[most + 1];
            try {
                handOver(0);
            } catch (Throwable t) {
                failed = t;
                done.countDown();
            }
            try {
                awaitDone();
                // Every thread that still waits for a turn stops (after a failure); indexed, as an
                // iterator would be an allocation, and the failure may be a full heap.
                for (int k = 0; k < started.size(); k++) {
                    LockSupport.unpark(started.get(k));
                }
                for (int k = 0; k < started.size(); k++) {
                    started.get(k).join();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted in a replay of " + trace.file());
            }
            Throwable t = failed;
            if (t instanceof OutOfMemoryError oom) {
                throw oom; // the caller tells a refusal from a full heap or no thread
            }
            if (t != null) {
                throw new IllegalStateException("a replay of " + trace.file() + " failed: " + t, t);
            }
        }

        /**
         * Waits until the last operation is made or the replay stops. A thread whose turn it is may
         * also end with no word: at a full heap the JVM may unwind its frames past their handlers, and
         * its own handler of uncaught errors may fail too; then it stops the replay here.
         */
        private void awaitDone() throws InterruptedException {
            while (!done.await(100, TimeUnit.MILLISECONDS)) {
                int i = next;
                int number = i < trace.threads().length ? owner(i) : -1;
                Thread w = number >= 0 ? workers[number] : null;
                // Ended (not only made and not yet started, as a thread given its first turn may be), it wrote its
                // last turn's end before (Thread#isAlive orders it): next unchanged, it ended in its turn.
                if (w != null
                        && w.getState() == Thread.State.TERMINATED
                        && !w.isAlive()
                        && next == i
                        && failed == null) {
                    failed = new IllegalStateException("replay thread " + number + " ended in its turn");
                    return;
                }
            }
        }

        /** The replay's thread that makes operation {@code i}: the next one's that names a thread. */
        private int owner(int i) {
            int[] threads = trace.threads();
            for (int j = i; j < threads.length; j++) {
                if (threads[j] >= 0) {
                    return threads[j];
                }
            }
            return -1;
        }

        /** Gives the turn for operation {@code i} to its thread, started if this is its first. */
        private void handOver(int i) {
            int number = owner(i);
            Thread w = workers[number];
            if (w == null) {
                w = new Thread(() -> work(number), "replay-" + number);
                // Should its frames be unwound past work()'s handler (see awaitDone), this one says so.
                w.setUncaughtExceptionHandler((thread, e) -> {
                    if (failed == null) {
                        failed = e;
                    }
                    done.countDown();
                });
                w.setDaemon(true);
                workers[number] = w;
                started.add(w);
                w.start();
            } else {
                LockSupport.unpark(w);
            }
        }

        private void work(int number) {
            int[] threads = trace.threads();
            while (true) {
                int i = next;
                while (i < threads.length && failed == null && owner(i) != number) {
                    LockSupport.park(this);
                    i = next;
                }
                if (i >= threads.length || failed != null) {
                    return;
                }
                try {
                    // This thread's operations, and the collector's between them.
                    while (i < threads.length && (threads[i] == number || threads[i] == ANY)) {
                        step(i++);
                    }
                    next = i;
                    if (i < threads.length) {
                        handOver(i);
                    } else {
                        done.countDown();
                    }
                } catch (Throwable t) {
                    // A refusal, a full heap, or a thread that could not be started: every thread stops. Nothing
                    // here allocates (a full heap would throw again, out of this handler, and the replay
                    // would wait for ever): the caller unparks the threads that wait.
                    failed = t;
                    done.countDown();
                    return;
                }
                if (i > last[number]) {
                    return; // its last operation made: it ends, as the run's thread did
                }
            }
        }

        private void step(int i) {
            long op = trace.ops()[i];
            if (op > 0) {
                live[i] = allocator.allocate((int) op, 0);
                inUse += op;
            } else {
                boolean collected = op < -COLLECTED;
                int id = (int) (collected ? -op - 1 - COLLECTED : -op - 1);
                inUse -= live[id].capacity();
                // A virtual thread's release is not cached: as the collector's, it goes back to the pool.
                boolean mayCache = !collected && trace.threads()[i] != 0;
                if (!allocator.release(live[id], mayCache)) {
                    throw new IllegalStateException("a release in the replay of " + trace.file() + " was lost");
                }
                live[id] = null;
            }
            Usage u = allocator.usage();
            if (u.bytesInUse() != inUse) {
                throw new IllegalStateException("the pools count " + u.bytesInUse() + " B in use, the replay " + inUse);
            }
            peakReserved = Math.max(peakReserved, u.bytesReserved());
            peakInUse = Math.max(peakInUse, inUse);
        }
    }
}
