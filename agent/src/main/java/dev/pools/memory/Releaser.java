package dev.pools.memory;

import java.lang.ref.Reference;
import java.lang.ref.ReferenceQueue;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Releases the leases whose buffers the collector found unreachable: the {@code pools-release}
 * daemon thread, and the handshake with which an allocation that finds no room makes sure every
 * such lease is back in its pool before it spills, falls back or fails.
 *
 * <p><b>The handshake.</b> Leases leave {@link #QUEUE} only under {@link #DRAIN}, and a lease taken
 * from the queue is back in its pool before {@code DRAIN} is let go. The release thread holds
 * {@code DRAIN} while it waits on the queue; a thread that needs the queue drained now
 * ({@link #drainNow()}) interrupts that wait and takes {@code DRAIN} (a fair lock: the waiting
 * thread gets it before the release thread takes it back). Holding it, that thread knows no lease
 * is half released anywhere, releases whatever is queued itself, and lets go. The wait is bounded
 * by {@link #HANDSHAKE_LIMIT_NANOS}; past it the caller goes on with what it has, said once.
 *
 * <p>Nothing the release thread does may be interruptible I/O (an interrupted {@code FileChannel}
 * closes): the allocation trace writes through a plain {@code FileOutputStream}.
 */
final class Releaser {

    /** Where the collector enqueues the lease of every buffer it finds unreachable. */
    static final ReferenceQueue<Anchor> QUEUE = new ReferenceQueue<>();

    /** The longest an allocation waits for the release thread to let go of the queue. */
    static final long HANDSHAKE_LIMIT_NANOS = TimeUnit.SECONDS.toNanos(10);

    /** Most leases released under one lock acquisition per pool. */
    private static final int BATCH = 256;

    private static final ReentrantLock DRAIN = new ReentrantLock(true);
    private static Thread thread;
    private static volatile boolean handshakeTimedOut;

    private Releaser() {}

    /** The release thread, or null before it started. */
    static synchronized Thread thread() {
        return thread;
    }

    /** Starts the release thread, once per JVM. */
    static synchronized void start() {
        if (thread != null) {
            return;
        }
        Thread t = new Thread("pools-release") {
            @Override
            public void run() {
                loop();
            }
        };
        t.setDaemon(true);
        thread = t;
        t.start();
    }

    private static void loop() {
        Lease[] batch = new Lease[BATCH];
        while (true) {
            DRAIN.lock();
            try {
                batch[0] = (Lease) QUEUE.remove();
                release(batch, pollInto(batch, 1));
            } catch (InterruptedException e) {
                // A thread wants the queue drained now: let go of DRAIN (below) so that it can take it.
            } catch (Throwable t) {
                reportOnce(t);
            } finally {
                DRAIN.unlock();
            }
        }
    }

    /**
     * Returns once every lease the collector has queued so far is back in its pool, including any
     * the release thread was working on. Returns false if the release thread did not let go of the
     * queue within {@link #HANDSHAKE_LIMIT_NANOS} (what was queued is then released later).
     */
    static boolean drainNow() {
        boolean locked = DRAIN.tryLock();
        boolean interrupted = false;
        long deadline = System.nanoTime() + HANDSHAKE_LIMIT_NANOS;
        try {
            while (!locked && System.nanoTime() - deadline < 0) {
                Thread t = thread;
                if (t != null) {
                    t.interrupt();
                }
                try {
                    locked = DRAIN.tryLock(1, TimeUnit.MILLISECONDS);
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
            if (!locked) {
                if (!handshakeTimedOut) {
                    handshakeTimedOut = true;
                    System.err.println("pools: the release thread did not let go of the release queue within "
                            + TimeUnit.NANOSECONDS.toSeconds(HANDSHAKE_LIMIT_NANOS) + " s; going on without it");
                }
                return false;
            }
            Lease[] batch = new Lease[BATCH];
            int n;
            while ((n = pollInto(batch, 0)) > 0) {
                release(batch, n);
            }
            return true;
        } finally {
            if (locked) {
                DRAIN.unlock();
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Fills {@code batch} from the queue without waiting, after {@code n} leases already in it; returns the count. */
    private static int pollInto(Lease[] batch, int n) {
        Reference<? extends Anchor> ref;
        while (n < batch.length && (ref = QUEUE.poll()) != null) {
            batch[n++] = (Lease) ref;
        }
        return n;
    }

    /**
     * Releases queued leases: claims and cleans each outside any pool lock, then frees them pool by
     * pool, one lock acquisition per pool, so that a burst of releases after a collection does not
     * take the lock from allocating threads once per buffer.
     */
    private static void release(Lease[] batch, int n) {
        int kept = 0;
        for (int i = 0; i < n; i++) {
            if (batch[i].pool.owner.claim(batch[i], false)) {
                batch[kept++] = batch[i];
            }
        }
        for (int start = 0; start < kept; ) {
            Pool pool = batch[start].pool;
            int end = start + 1;
            for (int i = end; i < kept; i++) {
                if (batch[i].pool == pool) {
                    Lease t = batch[end];
                    batch[end++] = batch[i];
                    batch[i] = t;
                }
            }
            pool.free(batch, start, end);
            start = end;
        }
        for (int i = 0; i < kept; i++) {
            batch[i].pool.owner.collectorReleased();
        }
        Arrays.fill(batch, 0, n, null);
    }

    private static volatile boolean reported;

    /** Logs the first failure of the release thread; the thread goes on. */
    private static void reportOnce(Throwable t) {
        if (!reported) {
            reported = true;
            System.err.println("pools: releasing a buffer failed, the release thread goes on: " + t);
        }
    }
}
