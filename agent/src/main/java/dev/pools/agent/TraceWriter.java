package dev.pools.agent;

import dev.pools.log.Log;
import dev.pools.memory.AllocationTrace;
import dev.pools.memory.CallSites;
import dev.pools.memory.Threads;
import java.io.BufferedWriter;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * {@code report.trace}: every allocation and release as a line of text, in the order they happened,
 * for replaying a workload offline against other layouts.
 *
 * <pre>
 *   # pools trace v2
 *   a 1 4096 ai.djl.pytorch.engine.PtNDManager#allocateDirect 1   allocation 1, 4096 bytes, from that site, on thread 1
 *   r 1 1                                                          allocation 1 released explicitly, on thread 1
 *   c 2                                                            allocation 2 released by the collector
 *   f 3145728 it.host.Tensors#allocate                             served by the JDK: no pool could
 * </pre>
 *
 * Threads are numbered from 1 in the order they first appear; 0 is a virtual thread, which caches
 * nothing. (Version 1 had no thread numbers, and a traced run cached nothing.) Writes are serialized;
 * those that change a pool (not a thread's cache) are made under its lock, so that the lines of one
 * pool are in the order the pool saw them. Tracing is for measuring runs, not for production.
 */
final class TraceWriter implements AllocationTrace {

    private final BufferedWriter out;
    private final CallSites sites;
    private long next;
    private boolean failed;

    TraceWriter(Path file, CallSites sites) throws IOException {
        // A plain FileOutputStream, not a FileChannel: the release thread writes here and is
        // interrupted by design (see the memory package's Releaser); an interrupted channel closes.
        this.out =
                new BufferedWriter(new OutputStreamWriter(new FileOutputStream(file.toFile()), StandardCharsets.UTF_8));
        this.sites = sites;
        out.write("# pools trace v2\n");
    }

    /** Each platform thread's number in the trace, from 1; 0 until it has one. */
    private final ThreadLocal<int[]> numbers = new Numbers();

    private static final class Numbers extends ThreadLocal<int[]> {
        @Override
        protected int[] initialValue() {
            return new int[1];
        }
    }

    private int threads;

    /** The current thread's number: 0 for a virtual thread. Caller holds this object's lock. */
    private int thread() {
        Thread t = Thread.currentThread();
        if (!Threads.isPlatform(t)) {
            return 0;
        }
        int[] n = numbers.get();
        if (n[0] == 0) {
            n[0] = ++threads;
        }
        return n[0];
    }

    // Each line is made inside a try: a full Java heap (a host that catches its OutOfMemoryError goes
    // on) refuses its string, and the error thrown into the pools' release of a batch left the rest
    // of the batch out of its pools for good. The trace stops instead, said once: with a line missing,
    // its replay would not be the run.

    @Override
    public synchronized long allocated(int size, int site) {
        long id = ++next;
        if (!failed && !closed) {
            try {
                write("a " + id + " " + size + " " + sites.name(site) + " " + thread() + "\n");
            } catch (OutOfMemoryError e) {
                heapFull(e);
            }
        }
        return id;
    }

    @Override
    public synchronized void released(long id, boolean byCollector) {
        if (!failed && !closed) {
            try {
                write(byCollector ? "c " + id + "\n" : "r " + id + " " + thread() + "\n");
            } catch (OutOfMemoryError e) {
                heapFull(e);
            }
        }
    }

    @Override
    public synchronized void fellBack(int size, int site) {
        if (!failed && !closed) {
            try {
                write("f " + size + " " + sites.name(site) + "\n");
            } catch (OutOfMemoryError e) {
                heapFull(e);
            }
        }
    }

    private void heapFull(OutOfMemoryError e) {
        failed = true;
        Log.onceIfItCan("trace", "a full Java heap cost the allocation trace a line; it stops here: ", e);
    }

    private void write(String line) {
        if (failed || closed) {
            // Closed at the JVM's end: what threads still ask for after it is not in the trace (as
            // not in the recording), and is no failure.
            return;
        }
        try {
            out.write(line);
        } catch (IOException e) {
            failed = true;
            Log.once("trace", "writing the allocation trace failed; it stops here: " + e);
        }
    }

    /** Set by {@link #close}, at the JVM's end. */
    private boolean closed;

    synchronized void close() {
        closed = true;
        try {
            out.close();
        } catch (IOException e) {
            Log.once("trace", "closing the allocation trace failed: " + e);
        }
    }
}
