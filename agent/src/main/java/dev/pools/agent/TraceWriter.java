package dev.pools.agent;

import dev.pools.log.Log;
import dev.pools.memory.AllocationTrace;
import dev.pools.memory.CallSites;
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
 *   # pools trace v1
 *   a 1 4096 ai.djl.pytorch.engine.PtNDManager#allocateDirect     allocation 1, 4096 bytes, from that site
 *   r 1                                                            allocation 1 released explicitly
 *   c 2                                                            allocation 2 released by the collector
 *   f 3145728 it.host.Tensors#allocate                             served by the JDK: no pool could
 * </pre>
 *
 * Writes are serialized, and made under the lock of the pool concerned, so that the lines of one
 * pool are in the order the pool saw them; tracing is for measuring runs, not for production.
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
        out.write("# pools trace v1\n");
    }

    @Override
    public synchronized long allocated(int size, int site) {
        long id = ++next;
        write("a " + id + " " + size + " " + sites.name(site) + "\n");
        return id;
    }

    @Override
    public synchronized void released(long id, boolean byCollector) {
        write((byCollector ? "c " : "r ") + id + "\n");
    }

    @Override
    public synchronized void fellBack(int size, int site) {
        write("f " + size + " " + sites.name(site) + "\n");
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
