package dev.pools.memory;

import java.lang.ref.Reference;
import java.lang.ref.ReferenceQueue;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

/**
 * Releases the leases whose buffers the collector found unreachable: the {@code pools-release}
 * daemon thread, and the handshake with which an allocation that finds no room makes sure every
 * such lease is back in its pool before it spills, falls back or fails.
 *
 * <p><b>The handshake.</b> Leases leave {@link #QUEUE} only under {@link #DRAIN}, and a lease taken
 * from the queue is back in its pool before {@code DRAIN} is let go. The release thread holds
 * {@code DRAIN} while it waits on the queue; a thread that needs the queue drained now
 * ({@link #drainNow()}, {@link #drainUntil}) interrupts that wait and takes {@code DRAIN} (a fair
 * lock: the waiting thread gets it before the release thread takes it back). Holding it, that
 * thread knows no lease is half released anywhere, releases what is queued itself (all of it, or,
 * for an allocation, batches until it is served), and lets go. The wait is bounded
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
        return drain(() -> null) != TIMED_OUT;
    }

    /**
     * Releases what the collector has queued, a batch at a time, and calls {@code attempt} after
     * each batch; returns its first non-null answer at once and leaves the rest of the queue to the
     * release thread. Otherwise it goes on until the queue is empty and returns what a last call of
     * {@code attempt} gives: so a null answer means that every lease queued so far, including any the
     * release thread was working on, is back in its pool. An allocation that needs one slice does
     * not wait until the millions of buffers one old-generation collection can find are all back.
     * If the release thread does not let go of the queue within {@link #HANDSHAKE_LIMIT_NANOS}, this
     * is said once and {@code attempt} is called without draining.
     */
    @SuppressWarnings("unchecked") // drain returns what attempt gave, or TIMED_OUT
    static <T> T drainUntil(Supplier<T> attempt) {
        Object answer = drain(attempt);
        return answer == TIMED_OUT ? attempt.get() : (T) answer;
    }

    /** What {@link #drain} returns when the release thread did not let go of the queue in time. */
    private static final Object TIMED_OUT = new Object();

    private static Object drain(Supplier<?> attempt) {
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
                return TIMED_OUT;
            }
            Lease[] batch = new Lease[BATCH];
            int n;
            while ((n = pollInto(batch, 0)) > 0) {
                release(batch, n);
                Object done = attempt.get();
                if (done != null) {
                    return done;
                }
            }
            return attempt.get();
        } finally {
            if (locked) {
                DRAIN.unlock();
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * For tests: takes the queue from the release thread, as an allocation does, and keeps it until
     * {@link #letGoOfQueue()}; the calling thread may drain meanwhile (the lock is reentrant).
     */
    static void holdQueue() throws InterruptedException {
        while (!DRAIN.tryLock(1, TimeUnit.MILLISECONDS)) {
            Thread t = thread;
            if (t != null) {
                t.interrupt();
            }
        }
    }

    static void letGoOfQueue() {
        DRAIN.unlock();
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
            if (batch[i].pool.owner.claimCollected(batch[i])) {
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
