package dev.pools.memory;

import java.lang.ref.Reference;
import java.lang.ref.ReferenceQueue;
import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;

/**
 * Releases the leases whose buffers the collector found unreachable: the {@code pools-release}
 * daemon thread, and the handshake with which an allocation that finds no room makes sure every
 * such lease is back in its pool before it spills, falls back or fails.
 *
 * <p><b>Taking and draining.</b> A thread takes leases from {@link #QUEUE} only while it holds
 * the read side of {@link #QUEUE_LOCK} (shared), and a lease it took is back in its pool before it lets go. The release
 * thread holds it while it waits on the queue and releases; an allocation that finds no room holds
 * it too, beside the release thread, and releases batches itself, retrying after each: it does not
 * wait for the release thread's batch. A thread that must know that every lease queued so far is
 * back ({@link #drainNow()}, and {@link #drainUntil} before it gives up) takes the write side, which
 * no new reader takes while it waits: it interrupts the release thread's wait on the queue, and
 * once it holds the write lock no lease is half released anywhere; it releases what is queued itself
 * and lets go. The wait is bounded by {@link #HANDSHAKE_LIMIT_NANOS}; past it the caller goes on with
 * what it has, said once.
 *
 * <p>Nothing the release thread does may be interruptible I/O (an interrupted {@code FileChannel}
 * closes): the allocation trace writes through a plain {@code FileOutputStream}.
 */
final class Releaser {

    /**
     * Where the collector enqueues the lease of every buffer it finds unreachable, and the
     * {@link Collected} sentinel after each collection.
     */
    static final ReferenceQueue<Object> QUEUE = new ReferenceQueue<>();

    /**
     * Comes off {@link #QUEUE} once a collection ran after it was made: its referent is reachable from
     * nothing. Then, where the JDK's direct memory is near its limit ({@link NativeAccess#nearLimit()}),
     * the release thread gives the pools' empty pages back: the JDK collects before it refuses anyone
     * direct memory and retries for half a second, and a request it refuses (a temporary buffer of its
     * own, a library the layout does not intercept, a size no pool takes) would otherwise find the
     * limit held by pages the collection has just emptied.
     */
    private static final class Collected extends WeakReference<Object> {
        Collected() {
            super(new Object(), QUEUE);
        }
    }

    /** The sentinel armed now; held here, since a reference that is itself unreachable is never enqueued. */
    @SuppressWarnings("unused") // held, never read
    private static volatile Collected armed;

    /**
     * Set once {@link NativeAccess} is initialised (at the first allocation): a collection before it
     * does not initialise it on the release thread, and the pools hold no page yet anyway.
     */
    static volatile boolean limitInReach;

    /** Set when a collection found the direct memory near its limit; the release thread looks at the empty pages. */
    private static volatile boolean nearLimitSeen;

    /**
     * How long after a collection near the limit the release thread first looks at the empty pages
     * (the collection's releases are back by then), and how long after that it gives back those still
     * empty: some 40 ms in all, within the half second the JDK retries a refused request.
     */
    static final long LOOK_NANOS = TimeUnit.MILLISECONDS.toNanos(20);

    /** The release thread's own: when it looks next (0: no look pending), and what it saw at the first look. */
    private static long lookAt;

    private static List<Map<Pool, Set<Object>>> firstLook;

    private static List<PoolAllocator> firstLookAllocators;

    /** Whether the release thread took back caches and idle runs since the collection it looks after. */
    private static boolean drainedThisTime;

    /**
     * Whether a collection near the limit came while the release thread was looking after an earlier
     * one: its releases may have come after the first look, which then did not count their pages as
     * empty, and the look would end with them held. So another look follows. Before, such a collection
     * was folded into the look in progress and nothing looked after it: the JDK's own collection, made
     * for a request of its own just after the application's, then found the limit held by pages its
     * releases had emptied, and refused after its half second (seen once in CI, in `ExhaustionIT`).
     */
    private static boolean seenDuringLook;

    /** The allocators whose empty pages go back at the limit; weakly, as tests make many. */
    private static final List<WeakReference<PoolAllocator>> WATCHED = new CopyOnWriteArrayList<>();

    /** The longest an allocation waits for the release thread to let go of the queue. */
    static final long HANDSHAKE_LIMIT_NANOS = TimeUnit.SECONDS.toNanos(10);

    /** Most leases released under one lock acquisition per pool. */
    private static final int BATCH = 256;

    /**
     * Found abandoned (see {@link OwnedLock}), the queue can no longer be drained: every pool the
     * collector releases into stops, and the release thread ends.
     */
    private static final OwnedReadWriteLock QUEUE_LOCK =
            new OwnedReadWriteLock(Releaser::stopAll, Releaser.class, OwnedReadWriteLock.class);

    private static Thread thread;
    private static volatile boolean handshakeTimedOut;

    /** For tests: run by the release thread after it took a batch from the queue, before it releases it; null otherwise. */
    static volatile Runnable beforeReleasingBatch;

    /** For tests: run by a release of queued leases between freeing their room and counting their call sites; null otherwise. */
    static volatile Runnable betweenFreeAndCount;

    private Releaser() {}

    private static void stopAll(AbandonedLockException e) {
        for (WeakReference<PoolAllocator> ref : WATCHED) {
            PoolAllocator pools = ref.get();
            if (pools != null && pools.stoppedBy == null) {
                pools.stoppedBy = e;
            }
        }
    }

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
                // A full heap outside the loop's own handlers (its batch at its start, or inside a
                // handler): the thread outlives it, as it does inside, or no buffer the collector finds
                // comes back. A class the JVM could not initialise stays unusable: then it ends.
                while (true) {
                    try {
                        if (!loopOnce()) {
                            return;
                        }
                    } catch (Throwable heapFull) {
                        // Even its handler met the full heap: again, after the pause (LockSupport is
                        // initialised at the agent's start, so the pause itself allocates nothing).
                        try {
                            LockSupport.parkNanos(PAUSE_AFTER_FAILURE_NANOS);
                        } catch (Throwable again) {
                            // again
                        }
                    }
                }
            }
        };
        t.setDaemon(true);
        thread = t;
        armed = new Collected();
        t.start();
    }

    /** Gives {@code allocator}'s empty pages back when a collection finds the direct memory near its limit. */
    static void watch(PoolAllocator allocator) {
        WATCHED.removeIf(w -> w.get() == null);
        WATCHED.add(new WeakReference<>(allocator));
    }

    /** Collections seen so far (each clears the armed sentinel); only the release thread counts. */
    private static volatile long collectionsSeen;

    /** How many collections the release thread has seen (a young one too): a clock of the collector's work. */
    static long collectionsSeen() {
        return collectionsSeen;
    }

    /** A collection ran: arms the next sentinel and, near the limit, has the release thread look at the empty pages. */
    private static void collected() {
        collectionsSeen++; // one writer: the thread that takes the sentinel
        arm();
        if (limitInReach && NativeAccess.nearLimit()) {
            nearLimitSeen = true;
            Thread t = thread;
            if (t != null && t != Thread.currentThread()) {
                t.interrupt();
            }
        }
    }

    /** Whether no sentinel is armed: the heap refused the last one; the release thread tries again. */
    private static volatile boolean unarmed;

    /** For tests: while set, every new sentinel is refused, as a full heap refuses it. */
    static volatile boolean refuseSentinels;

    /** How long the release thread waits on the queue at most while no sentinel is armed. */
    static final long REARM_MILLIS = 10;

    /**
     * Arms the next sentinel; false if the heap refused it (the release thread then tries again within
     * {@link #REARM_MILLIS}; the collections meanwhile are not seen). Never throws: it runs while
     * leases taken from the queue wait in a batch, and a full heap's error here, at a host that
     * catches its {@code OutOfMemoryError} and goes on, lost them to their pools for good, and no
     * collection was seen again (a review: up to 188 slices of 1 KiB of a capped pool in use with
     * nothing live, in one run of two, after 20 moments of a full heap; the pool then refused a host
     * that held nothing).
     */
    private static boolean arm() {
        try {
            if (refuseSentinels) {
                throw new OutOfMemoryError("test: no room for a sentinel");
            }
            armed = new Collected();
            unarmed = false;
            return true;
        } catch (OutOfMemoryError e) {
            unarmed = true;
            return false;
        }
    }

    /** Whether a sentinel is armed, for tests. */
    static boolean armed() {
        return !unarmed;
    }

    /** How long the release thread may wait on the queue: until its next look, or for good (0). */
    private static long waitMillis() {
        long rearm = unarmed && !arm() ? REARM_MILLIS : 0;
        if (lookAt == 0) {
            return rearm;
        }
        long look = Math.max(1, TimeUnit.NANOSECONDS.toMillis(lookAt - System.nanoTime()) + 1);
        return rearm == 0 ? look : Math.min(look, rearm);
    }

    /**
     * On the release thread, holding no lock. After a collection near the limit: a first look at every
     * watched allocator's empty pages, then, still near the limit, those still empty go back.
     */
    private static void lookAtEmptyPages() {
        if (nearLimitSeen) {
            nearLimitSeen = false;
            if (lookAt == 0) {
                lookAt = System.nanoTime() + LOOK_NANOS;
            } else {
                seenDuringLook = true;
            }
        }
        if (lookAt == 0 || System.nanoTime() - lookAt < 0) {
            return;
        }
        if (firstLook == null) {
            firstLook = new ArrayList<>();
            firstLookAllocators = new ArrayList<>();
            for (WeakReference<PoolAllocator> w : WATCHED) {
                PoolAllocator allocator = w.get();
                if (allocator != null) {
                    firstLookAllocators.add(allocator);
                    firstLook.add(allocator.emptyPages());
                }
            }
            lookAt = System.nanoTime() + LOOK_NANOS;
            return;
        }
        if (NativeAccess.nearLimit()) {
            for (int i = 0; i < firstLook.size(); i++) {
                firstLookAllocators.get(i).giveBackStillEmpty(firstLook.get(i));
            }
            if (!drainedThisTime && NativeAccess.nearLimit()) {
                // Room held in threads' caches or idle runs is empty at neither look: take it back,
                // once per collection, and look twice more (a thread that released slices and idles
                // kept the limit in pages otherwise).
                boolean emptied = false;
                for (PoolAllocator allocator : firstLookAllocators) {
                    emptied |= allocator.drainForGiveBack();
                }
                if (emptied) {
                    drainedThisTime = true;
                    firstLook = null;
                    firstLookAllocators = null;
                    lookAt = System.nanoTime() + LOOK_NANOS;
                    return;
                }
            }
        }
        firstLook = null;
        firstLookAllocators = null;
        drainedThisTime = false;
        if (seenDuringLook) {
            seenDuringLook = false;
            lookAt = System.nanoTime() + LOOK_NANOS;
        } else {
            lookAt = 0;
        }
    }

    /** How long the release thread waits after it failed to take the queue (a full heap). */
    private static final long PAUSE_AFTER_FAILURE_NANOS = 10_000_000L;

    /** {@link #loop}; whether to run it again: after a full heap, which it pauses for first. */
    private static boolean loopOnce() {
        try {
            loop();
            return false;
        } catch (OutOfMemoryError e) {
            reportOnce(e);
            LockSupport.parkNanos(PAUSE_AFTER_FAILURE_NANOS);
            return true;
        } catch (Throwable t) {
            reportOnce(t);
            return false;
        }
    }

    private static void loop() {
        Lease[] batch = new Lease[BATCH];
        while (true) {
            try {
                // An interrupt meanwhile was a drain's ask to let go of the lock, which it has now let go of.
                QUEUE_LOCK.acquireRead();
            } catch (AbandonedLockException e) {
                reportEnd(e);
                return; // the pools stopped (see QUEUE_LOCK)
            } catch (Throwable t) {
                // The thread must outlive any error (a review saw it die of a full heap while it waited
                // for the JDK's lock), or no buffer the collector finds comes back again. A pause first,
                // so that a heap that stays full is not made to collect over and over by this thread.
                reportOnce(t);
                LockSupport.parkNanos(PAUSE_AFTER_FAILURE_NANOS);
                continue;
            }
            boolean failed = false;
            try {
                long wait = waitMillis();
                Reference<?> first = wait == 0 ? QUEUE.remove() : QUEUE.remove(wait);
                int n = first == null ? 0 : take(batch, first);
                n = pollInto(batch, n);
                if (n > 0) {
                    Runnable hook = beforeReleasingBatch;
                    if (hook != null) {
                        hook.run();
                    }
                    release(batch, n);
                }
            } catch (InterruptedException e) {
                // A thread wants the queue drained now: let go of the read lock (below) so that it can take
                // the write lock; or a collection found the direct memory near its limit (below).
            } catch (Throwable t) {
                reportOnce(t);
                failed = true;
            } finally {
                QUEUE_LOCK.unlockRead();
            }
            try {
                lookAtEmptyPages();
            } catch (Throwable t) {
                firstLook = null;
                firstLookAllocators = null;
                lookAt = 0;
                drainedThisTime = false;
                seenDuringLook = false;
                reportOnce(t);
                failed = true;
            }
            if (failed) {
                // As above: the queue's lock is let go of first, so that a drain does not wait for the pause.
                LockSupport.parkNanos(PAUSE_AFTER_FAILURE_NANOS);
            }
        }
    }

    /**
     * Returns once every lease the collector has queued so far is back in its pool, including any
     * another thread was working on. Returns false if the release thread did not let go of the
     * queue within {@link #HANDSHAKE_LIMIT_NANOS} (what was queued is then released later).
     */
    static boolean drainNow() {
        return drain(() -> null, false, true) != TIMED_OUT;
    }

    /**
     * Releases what the collector has queued, a batch at a time, and calls {@code attempt} after
     * each batch; returns its first non-null answer at once and leaves the rest of the queue to the
     * release thread. Otherwise it goes on until the queue is empty and returns what a last call of
     * {@code attempt} gives: so a null answer means that every lease queued so far, including any
     * another thread was working on, is back in its pool. An allocation that needs one slice does
     * not wait until the millions of buffers one old-generation collection can find are all back,
     * nor for the batch the release thread is working on.
     * If the release thread does not let go of the queue within {@link #HANDSHAKE_LIMIT_NANOS}, this
     * is said once and {@code attempt} is called without draining.
     */
    static <T> T drainUntil(Supplier<T> attempt) {
        return answer(drain(attempt, false, true), attempt);
    }

    /**
     * Like {@link #drainUntil}, right after a collection, while the JVM's reference handler may
     * still be handing what it found to the queue: when the queue is empty, waits for the next lease
     * (at most {@link #NEXT_LEASE_MILLIS} at a time) and goes on, so that a request is served as soon
     * as the first leases the collection found are back, not only once the reference handler has
     * queued all of them (the JDK's own direct memory goes on after each buffer its reference
     * handler frees). When none comes in that time, waits until the reference handler is done
     * ({@link NativeAccess#awaitReferenceProcessing()}) and drains the rest as {@link #drainUntil}
     * does; so a null answer still means that every lease the collection found is back.
     */
    static <T> T drainAfterCollection(Supplier<T> attempt) {
        return answer(drain(attempt, true, true), attempt);
    }

    /**
     * Releases what the collector has queued, a batch at a time beside the release thread, and
     * calls {@code attempt} after each batch; returns its first non-null answer, or null once the
     * queue is empty. Unlike {@link #drainUntil}, null promises nothing about leases other threads
     * are releasing: it never waits for them.
     */
    static <T> T releaseQueued(Supplier<T> attempt) {
        return answer(drain(attempt, false, false), attempt);
    }

    /** How long {@link #drainAfterCollection} waits on an empty queue for the next lease. */
    static final long NEXT_LEASE_MILLIS = 1;

    @SuppressWarnings("unchecked") // drain returns what attempt gave, or TIMED_OUT
    private static <T> T answer(Object answer, Supplier<T> attempt) {
        return answer == TIMED_OUT ? attempt.get() : (T) answer;
    }

    /** What {@link #drain} returns when the release thread did not let go of the queue in time. */
    private static final Object TIMED_OUT = new Object();

    private static Object drain(Supplier<?> attempt, boolean afterCollection, boolean untilAllBack) {
        Lease[] batch = new Lease[BATCH];
        boolean interrupted = false;
        boolean drained = false;
        try {
            // Beside the release thread: release batches and retry after each.
            try {
                interrupted |= QUEUE_LOCK.acquireRead();
            } catch (AbandonedLockException e) {
                return TIMED_OUT; // for good: every pool stopped (see QUEUE_LOCK)
            }
            try {
                boolean waitForNext = afterCollection;
                while (true) {
                    int n = pollInto(batch, 0);
                    if (n == 0 && waitForNext) {
                        try {
                            Reference<?> next = QUEUE.remove(NEXT_LEASE_MILLIS);
                            if (next != null) {
                                n = pollInto(batch, take(batch, next));
                            }
                        } catch (InterruptedException e) {
                            interrupted = true;
                        }
                        if (n == 0) {
                            // None came: the reference handler is done, or slow; wait until it is done.
                            NativeAccess.awaitReferenceProcessing();
                            waitForNext = false;
                            continue;
                        }
                    }
                    if (n == 0) {
                        break;
                    }
                    release(batch, n);
                    Object done = attempt.get();
                    if (done != null) {
                        return done;
                    }
                }
            } finally {
                QUEUE_LOCK.unlockRead();
            }
            if (!untilAllBack) {
                return null;
            }
            // Alone: once the write lock is held, every lease another thread took from the queue is back.
            long deadline = System.nanoTime() + HANDSHAKE_LIMIT_NANOS;
            drained = QUEUE_LOCK.tryWrite();
            long left;
            while (!drained && (left = deadline - System.nanoTime()) > 0) {
                try {
                    drained = QUEUE_LOCK.tryWrite(left, Releaser::interruptReleaseThread);
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
            if (!drained) {
                if (!handshakeTimedOut) {
                    handshakeTimedOut = true;
                    System.err.println("pools: the release thread did not let go of the release queue within "
                            + TimeUnit.NANOSECONDS.toSeconds(HANDSHAKE_LIMIT_NANOS) + " s; going on without it");
                }
                return TIMED_OUT;
            }
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
            if (drained) {
                QUEUE_LOCK.unlockWrite();
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
        while (!QUEUE_LOCK.tryWrite(HANDSHAKE_LIMIT_NANOS, Releaser::interruptReleaseThread)) {
            // The release thread lets go of the read lock when interrupted; a drain holds it for a time.
        }
        // Held outside this class's code on purpose: not a hold left by an unwound frame.
        QUEUE_LOCK.watch.heldOnPurpose = Thread.currentThread();
    }

    static void letGoOfQueue() {
        QUEUE_LOCK.watch.heldOnPurpose = null;
        QUEUE_LOCK.unlockWrite();
    }

    /** Asks the release thread to let go of the read lock: its wait on the queue ends at an interrupt. */
    private static void interruptReleaseThread() {
        Thread t = thread;
        if (t != null) {
            t.interrupt();
        }
    }

    /**
     * For tests, holding the queue ({@link #holdQueue}): takes every lease queued now, as a release
     * does, and loses those of {@code owner}, as a release cut short would; releases the others.
     * Returns how many it lost.
     */
    static int loseQueuedForTest(PoolAllocator owner) {
        Lease[] batch = new Lease[BATCH];
        int lost = 0;
        int n;
        while ((n = pollInto(batch, 0)) > 0) {
            int kept = 0;
            for (int i = 0; i < n; i++) {
                if (batch[i].pool.owner == owner) {
                    lost++;
                } else {
                    batch[kept++] = batch[i];
                }
            }
            Arrays.fill(batch, kept, n, null);
            if (kept > 0) {
                release(batch, kept);
            }
        }
        return lost;
    }

    /** The queue's lock, for tests. */
    static OwnedReadWriteLock queueLock() {
        return QUEUE_LOCK;
    }

    /** Fills {@code batch} from the queue without waiting, after {@code n} leases already in it; returns the count. */
    private static int pollInto(Lease[] batch, int n) {
        Reference<?> ref;
        while (n < batch.length && (ref = QUEUE.poll()) != null) {
            if (ref instanceof Lease lease) {
                batch[n++] = lease;
            } else {
                collected();
            }
        }
        return n;
    }

    /** Puts {@code ref}, the first taken from the queue, in an empty {@code batch}; returns the count. */
    private static int take(Lease[] batch, Reference<?> ref) {
        if (ref instanceof Lease lease) {
            batch[0] = lease;
            return 1;
        }
        collected();
        return 0;
    }

    /**
     * Releases queued leases: claims and cleans each outside any pool lock, frees them pool by pool,
     * one lock acquisition per pool, then counts the released bytes once per run of leases of one call
     * site, so that a burst of releases after a collection neither takes the lock from allocating
     * threads once per buffer nor writes a site's shared counter once per buffer.
     */
    /** Releases leases found dropped ({@link PoolAllocator#recoverDropped}) as the collector's are. */
    static void releaseFound(Lease[] batch, int n) {
        release(batch, n);
    }

    private static void release(Lease[] batch, int n) {
        try {
            releaseClaimed(batch, n);
        } catch (Throwable t) {
            if (!(t instanceof OutOfMemoryError)) {
                // Leases claimed and not yet back in their pools (an allocating thread at the end of its
                // stack releases queued leases too) are lost to them: their pools stop
                // (PoolAllocator#stoppedBy). Field writes only, no call.
                for (int i = 0; i < n; i++) {
                    if (batch[i] != null) {
                        batch[i].pool.owner.stoppedBy = t;
                    }
                }
            }
            throw t;
        }
    }

    private static void releaseClaimed(Lease[] batch, int n) {
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
        Runnable between = betweenFreeAndCount;
        if (between != null) {
            between.run();
        }
        // The call sites once the room is back, never before (PoolAllocator#collected).
        for (int start = 0; start < kept; ) {
            PoolAllocator owner = batch[start].pool.owner;
            int site = batch[start].site;
            long bytes = 0;
            int end = start;
            while (end < kept && batch[end].pool.owner == owner && batch[end].site == site) {
                bytes += batch[end++].size;
            }
            owner.collected(site, bytes, end - start);
            start = end;
        }
        Arrays.fill(batch, 0, n, null);
    }

    private static volatile boolean reported;

    /** Says why the release thread ends (the queue's lock found abandoned); never throws, as below. */
    private static void reportEnd(Throwable t) {
        try {
            System.err.println("pools: the release thread ends, every pool stopped: " + t);
        } catch (Throwable ignored) {
            // As below: nothing more can be said.
        }
    }

    /**
     * Logs the first failure of the release thread; the thread goes on. Never throws: with the Java
     * heap full (a host may catch its {@code OutOfMemoryError} and go on) the message itself cannot
     * be made, and the thread must outlive that, or no buffer the collector finds comes back again.
     */
    private static void reportOnce(Throwable t) {
        if (!reported) {
            try {
                System.err.println("pools: releasing a buffer failed, the release thread goes on: " + t);
                reported = true;
            } catch (Throwable heapFull) {
                // Said at a later failure, if the heap has room then.
            }
        }
    }
}
