package dev.pools.memory;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The release queue's read-write lock, which makes no object while it is taken, waited for or let go
 * of. The JDK's {@code ReentrantReadWriteLock} counts a reader's holds in an object of the reader's
 * thread, made as it takes the lock while another reader holds it, after the lock counted the hold: a
 * full Java heap refused that object, and the hold was then never let go of (a review, at
 * {@code -Xmx64m}, 20 threads filling the heap over and over under a capped layout: in one run of four
 * the release thread waited for the read lock and a drain for the write lock, and the JVM never
 * ended; in the others, a drain said after 10 s that the release thread did not let go of the queue).
 * Here a hold is a count in one {@code int}, and a waiter's place is its own stack: it sleeps, from
 * {@link #FIRST_PAUSE_NANOS} up to {@link #LAST_PAUSE_NANOS}, and tries again, woken early when the
 * lock may have become its to take (up to {@link #SLEEPER_SLOTS} waiters; any more sleep their time).
 *
 * <p>The writer is known, and its hold found let go of for ever as {@link OwnedLock}'s: {@link
 * #acquireRead} looks at it every {@link Abandonment#LOOK_NANOS} of waiting. Readers are not known by
 * thread, so a read hold left so is not found; a writer takes the lock only for a time ({@link
 * #tryWrite(long, Runnable)}), and while it waits, no new reader takes it (the release thread, which
 * takes it again as soon as it let go of it, would otherwise keep it for ever). Write holds are
 * reentrant, and the writer may take the read lock too; a reader that takes it again while a writer
 * waits waits for the writer's time to end.
 */
final class OwnedReadWriteLock {

    /** The bit of {@link #state} that says the write lock is held; the bits below count read holds. */
    private static final int WRITE = 1 << 30;

    /** A waiter's first sleep, doubled at each try up to {@link #LAST_PAUSE_NANOS}. */
    static final long FIRST_PAUSE_NANOS = TimeUnit.MICROSECONDS.toNanos(20);

    static final long LAST_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

    private static final VarHandle STATE;

    private static final VarHandle WAITING;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            STATE = lookup.findVarHandle(OwnedReadWriteLock.class, "state", int.class);
            WAITING = lookup.findVarHandle(OwnedReadWriteLock.class, "writersWaiting", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    final Abandonment watch;

    /** {@link #WRITE} if the write lock is held, plus the count of read holds. */
    @SuppressWarnings("unused") // through STATE
    private volatile int state;

    /** Writers waiting for the lock: while any is, no new reader takes it. */
    @SuppressWarnings("unused") // through WAITING
    private volatile int writersWaiting;

    /** The thread that holds the write lock; null while none does, or for a moment after it took it. */
    private volatile Thread writer;

    /** The writer's holds; read and written by the writer only. */
    private int writeHolds;

    /** How many waiters at a time are woken when the lock may be theirs; any more sleep their time. */
    static final int SLEEPER_SLOTS = 8;

    /**
     * The waiters asleep, each in a slot of its own, woken (all of them) when the writer lets go, when
     * the last reader lets go while a writer waits, and when a writer gives up; made with the lock.
     */
    private final AtomicReferenceArray<Thread> sleepers = new AtomicReferenceArray<>(SLEEPER_SLOTS);

    private final Supplier<Thread> owner = () -> writer;

    private final long firstPauseNanos;

    private final long lastPauseNanos;

    /** {@code holders}: the classes whose code takes the write lock; {@code onAbandoned}: told once, first. */
    OwnedReadWriteLock(Consumer<AbandonedLockException> onAbandoned, Class<?>... holders) {
        this(FIRST_PAUSE_NANOS, LAST_PAUSE_NANOS, onAbandoned, holders);
    }

    /** For tests: with a waiter's sleeps of {@code firstPauseNanos} doubled up to {@code lastPauseNanos}. */
    OwnedReadWriteLock(
            long firstPauseNanos,
            long lastPauseNanos,
            Consumer<AbandonedLockException> onAbandoned,
            Class<?>... holders) {
        this.firstPauseNanos = firstPauseNanos;
        this.lastPauseNanos = lastPauseNanos;
        this.watch = new Abandonment(onAbandoned, holders);
    }

    /** The read lock if no writer holds it or waits for it (or this thread is the writer); whether taken. */
    boolean tryRead() {
        Thread me = Thread.currentThread();
        while (true) {
            int s = (int) STATE.getVolatile(this);
            if (!readable(s, me)) {
                return false;
            }
            if (STATE.compareAndSet(this, s, s + 1)) {
                return true;
            }
        }
    }

    private boolean readable(int s, Thread me) {
        return (s & WRITE) != 0 ? writer == me : (int) WAITING.getVolatile(this) == 0;
    }

    /**
     * The read lock, waited for. Returns whether the thread was interrupted meanwhile: its status is
     * then cleared (a sleep would not sleep), and the caller sets it again once it holds the lock in its
     * {@code try}, where an error cannot leave the hold behind. Throws {@link AbandonedLockException},
     * the lock not taken and the interrupt set again, if the writer left its hold for ever.
     */
    boolean acquireRead() {
        if (tryRead()) {
            return false;
        }
        Thread me = Thread.currentThread();
        int slot = -1;
        boolean interrupted = false;
        try {
            long pause = firstPauseNanos;
            long lookAt = System.nanoTime() + Abandonment.LOOK_NANOS;
            while (true) {
                watch.failIfAbandoned();
                if (Thread.interrupted()) {
                    interrupted = true;
                }
                // Asleep only once in a slot and still kept out: a waker that lets it in after the look
                // finds it there.
                slot = sleepIn(me);
                if (!readable((int) STATE.getVolatile(this), me)) {
                    LockSupport.parkNanos(pause);
                    pause = Math.min(pause * 2, lastPauseNanos);
                }
                slot = awake(slot, me);
                if (tryRead()) {
                    return interrupted; // nothing left to do with the lock held, no call that could fail
                }
                if (System.nanoTime() - lookAt >= 0) {
                    lookAt = System.nanoTime() + Abandonment.LOOK_NANOS;
                    try {
                        look();
                    } catch (OutOfMemoryError e) {
                        // The look makes the writer's stack; a full heap: looked at again next time.
                    }
                }
            }
        } catch (Throwable t) {
            if (slot >= 0) {
                awake(slot, me);
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
            throw t;
        }
    }

    /** A free slot of {@link #sleepers}, now {@code me}'s; -1 if none is free (then it sleeps its time). */
    private int sleepIn(Thread me) {
        for (int i = 0; i < SLEEPER_SLOTS; i++) {
            if (sleepers.get(i) == null && sleepers.compareAndSet(i, null, me)) {
                return i;
            }
        }
        return -1;
    }

    /** Lets go of {@code me}'s slot, if it has one; returns -1, its slot from now on. */
    private int awake(int slot, Thread me) {
        if (slot >= 0) {
            sleepers.compareAndSet(slot, me, null);
        }
        return -1;
    }

    /** Wakes every waiter asleep: the lock may be theirs now. */
    private void wakeSleepers() {
        for (int i = 0; i < SLEEPER_SLOTS; i++) {
            Thread t = sleepers.get(i);
            if (t != null) {
                LockSupport.unpark(t);
            }
        }
    }

    void unlockRead() {
        while (true) {
            int s = (int) STATE.getVolatile(this);
            if ((s & ~WRITE) == 0) {
                throw new IllegalMonitorStateException("no read hold to let go of");
            }
            if (STATE.compareAndSet(this, s, s - 1)) {
                if (s == 1 && (int) WAITING.getVolatile(this) != 0) {
                    wakeSleepers();
                }
                return;
            }
        }
    }

    /** The write lock if no one else holds the lock; whether taken. */
    boolean tryWrite() {
        Thread me = Thread.currentThread();
        if (writer == me) {
            writeHolds++;
            return true;
        }
        if ((int) STATE.getVolatile(this) == 0 && STATE.compareAndSet(this, 0, WRITE)) {
            writer = me;
            writeHolds = 1;
            return true;
        }
        return false;
    }

    /**
     * The write lock, waited for at most {@code timeoutNanos}; whether taken. No new reader takes the
     * lock meanwhile; {@code nudge} runs before each sleep (it asks the readers to let go). Throws
     * {@link InterruptedException}, the lock not taken, if the thread is interrupted.
     */
    boolean tryWrite(long timeoutNanos, Runnable nudge) throws InterruptedException {
        if (tryWrite()) {
            return true;
        }
        Thread me = Thread.currentThread();
        long deadline = System.nanoTime() + timeoutNanos;
        long pause = firstPauseNanos;
        boolean waiting = false;
        int slot = -1;
        try {
            while (true) {
                WAITING.getAndAdd(this, 1);
                waiting = true;
                if (Thread.interrupted()) {
                    throw new InterruptedException();
                }
                slot = sleepIn(me);
                nudge.run();
                if ((int) STATE.getVolatile(this) != 0) {
                    LockSupport.parkNanos(pause); // woken early when the last reader lets go
                    pause = Math.min(pause * 2, lastPauseNanos);
                }
                // Out of the slot and no longer waiting before the last try: once the lock is held, no call
                // is left that could fail with it held.
                slot = awake(slot, me);
                WAITING.getAndAdd(this, -1);
                waiting = false;
                if (tryWrite()) {
                    return true;
                }
                if (System.nanoTime() - deadline >= 0) {
                    wakeSleepers(); // the readers this writer kept out
                    return false;
                }
            }
        } catch (Throwable t) {
            if (slot >= 0) {
                awake(slot, me);
            }
            if (waiting) {
                WAITING.getAndAdd(this, -1);
                wakeSleepers();
            }
            throw t;
        }
    }

    void unlockWrite() {
        if (writer != Thread.currentThread()) {
            throw new IllegalMonitorStateException("this thread holds no write lock");
        }
        watch.released();
        if (--writeHolds == 0) {
            writer = null;
            STATE.getAndAdd(this, -WRITE);
            wakeSleepers();
        }
    }

    /** The read holds in place, for tests. */
    int readHolds() {
        return (int) STATE.getVolatile(this) & ~WRITE;
    }

    /** Whether the write lock is held, for tests. */
    boolean writeHeld() {
        return ((int) STATE.getVolatile(this) & WRITE) != 0;
    }

    /** See {@link Abandonment#look}: at the writer. */
    void look() {
        watch.look(owner);
    }
}
