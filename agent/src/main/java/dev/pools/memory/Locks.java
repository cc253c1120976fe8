package dev.pools.memory;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Taking a lock so that an error at the end of a thread's stack never leaves it held.
 * {@link ReentrantLock}'s own critical sections may run in the stack's reserved zone near its end
 * ({@code @ReservedStackAccess}, JEP 270), and the JVM then throws the {@code StackOverflowError} it
 * delayed as they return: out of {@code lock()} with the lock held, before the caller's {@code try}
 * begins, so that its {@code finally} never lets go of it, and every later taker waits for ever (a
 * review's deep recursion hung the pools, their recording and the JVM's end that way). Here the
 * error lets go of what the call took before it goes on. The same error on the way out of
 * {@code unlock()} lets go of the lock without waking the next waiter, who would then wait for
 * ever: a waiter here wakes every {@link #WAKE_NANOS} to look again. A lock its holder left without
 * letting go of it (see {@link OwnedLock}) is found so, and {@link #acquire} throws.
 */
public final class Locks {

    /** How long a waiter sleeps before it looks at the lock again, woken or not. */
    static final long WAKE_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

    private Locks() {}

    /**
     * {@link ReentrantLock#lock()}, which returns with the lock held or throws with it as it was. An
     * interrupt meanwhile is kept for the caller, as {@code lock()} keeps it.
     */
    public static void acquire(ReentrantLock lock) {
        int held = lock.getHoldCount();
        boolean interrupted = false;
        try {
            OwnedLock owned = lock instanceof OwnedLock o ? o : null;
            long waited = 0;
            while (true) {
                try {
                    if (lock.tryLock(WAKE_NANOS, TimeUnit.NANOSECONDS)) {
                        break;
                    }
                } catch (InterruptedException e) {
                    interrupted = true;
                } catch (OutOfMemoryError e) {
                    if (withoutQueue(lock)) {
                        break;
                    }
                }
                if (owned != null) {
                    try {
                        waited = waited(owned.watch, owned::look, waited);
                    } catch (OutOfMemoryError e) {
                        // A full heap: looked at again at the next wake.
                    }
                }
            }
        } catch (Throwable t) {
            letGoOfTaken(lock, held);
            throw t;
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /** How long a waiter without a place in the lock's queue sleeps between two tries. */
    static final long POLL_NANOS = TimeUnit.MICROSECONDS.toNanos(100);

    /**
     * The lock, tried between sleeps of {@link #POLL_NANOS} for {@link #WAKE_NANOS}; whether taken. A
     * waiter's place in the lock's queue is an object, which a full Java heap (a host that catches its
     * {@code OutOfMemoryError} goes on) refuses: the wait then threw, and a release thread that had
     * claimed a batch of released buffers lost them to their pools for good (a review: 2 to 4 MiB
     * of a pool in use with nothing live, after 20 moments of a full heap). A try and a sleep make
     * nothing.
     */
    private static boolean withoutQueue(ReentrantLock lock) {
        for (long slept = 0; slept < WAKE_NANOS; slept += POLL_NANOS) {
            if (lock.tryLock()) {
                return true;
            }
            LockSupport.parkNanos(POLL_NANOS);
        }
        return lock.tryLock();
    }

    /**
     * {@link #acquire}, or false, the lock not taken, if it was found abandoned: then the pools
     * stopped (see {@link OwnedLock}), and the caller leaves them as they are.
     */
    static boolean acquireUnlessAbandoned(ReentrantLock lock) {
        try {
            acquire(lock);
            return true;
        } catch (AbandonedLockException e) {
            return false;
        }
    }

    /** {@link ReentrantLock#tryLock()}, likewise. */
    public static boolean tryAcquire(ReentrantLock lock) {
        int held = lock.getHoldCount();
        try {
            return lock.tryLock();
        } catch (Throwable t) {
            letGoOfTaken(lock, held);
            throw t;
        }
    }

    /** {@link ReentrantLock#tryLock(long, TimeUnit)}, likewise. */
    public static boolean tryAcquire(ReentrantLock lock, long timeout, TimeUnit unit) throws InterruptedException {
        int held = lock.getHoldCount();
        try {
            return lock.tryLock(timeout, unit);
        } catch (Throwable t) {
            letGoOfTaken(lock, held);
            throw t;
        }
    }

    /**
     * After a wait of {@link #WAKE_NANOS} that did not take a lock: the error if its holder will never
     * let go of it (see {@link OwnedLock}), not a wait for ever; a look at the holder every {@link
     * Abandonment#LOOK_NANOS}. Returns the time waited since the last look.
     */
    private static long waited(Abandonment watch, Runnable look, long waited) {
        watch.failIfAbandoned();
        long since = waited + WAKE_NANOS;
        if (since < Abandonment.LOOK_NANOS) {
            return since;
        }
        look.run();
        return 0;
    }

    private static void letGoOfTaken(ReentrantLock lock, int held) {
        try {
            if (lock.getHoldCount() > held) {
                lock.unlock();
            }
        } catch (Throwable again) {
            // The stack is still at its end: nothing more can be done here.
        }
    }
}
