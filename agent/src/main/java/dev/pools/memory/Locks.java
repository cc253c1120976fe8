package dev.pools.memory;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;

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
                }
                if (owned != null) {
                    // A lock its holder will never let go of (see OwnedLock): the error, not a wait for ever.
                    owned.failIfAbandoned();
                    waited += WAKE_NANOS;
                    if (waited >= OwnedLock.LOOK_NANOS) {
                        waited = 0;
                        owned.look();
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

    /** The read lock of {@code rw}, likewise. */
    public static void acquireRead(ReentrantReadWriteLock rw) {
        int held = rw.getReadHoldCount();
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    if (rw.readLock().tryLock(WAKE_NANOS, TimeUnit.NANOSECONDS)) {
                        break;
                    }
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        } catch (Throwable t) {
            try {
                if (rw.getReadHoldCount() > held) {
                    rw.readLock().unlock();
                }
            } catch (Throwable again) {
                // As below.
            }
            throw t;
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /** {@code rw}'s write lock, tried, likewise. */
    public static boolean tryAcquireWrite(ReentrantReadWriteLock rw) {
        int held = rw.getWriteHoldCount();
        try {
            return rw.writeLock().tryLock();
        } catch (Throwable t) {
            letGoOfWrite(rw, held);
            throw t;
        }
    }

    /** {@code rw}'s write lock, tried for at most {@code timeout}, likewise. */
    public static boolean tryAcquireWrite(ReentrantReadWriteLock rw, long timeout, TimeUnit unit)
            throws InterruptedException {
        int held = rw.getWriteHoldCount();
        try {
            return rw.writeLock().tryLock(timeout, unit);
        } catch (Throwable t) {
            letGoOfWrite(rw, held);
            throw t;
        }
    }

    private static void letGoOfWrite(ReentrantReadWriteLock rw, int held) {
        try {
            if (rw.getWriteHoldCount() > held) {
                rw.writeLock().unlock();
            }
        } catch (Throwable again) {
            // As below.
        }
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
