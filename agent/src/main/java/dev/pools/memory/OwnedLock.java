package dev.pools.memory;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

/**
 * A lock of the pools that its waiters can find let go of for ever. At a full Java heap, the JVM may
 * unwind compiled frames without running their handlers: when it deoptimizes a frame whose objects
 * the compiler had kept in registers and cannot make them again on the heap, it throws an {@code
 * OutOfMemoryError} from that frame and pops it, {@code finally} blocks included. A frame that held
 * the lock then never lets go of it, and every later taker waited for ever (measured: a replay of
 * {@code suggest --fit} that filled its heap hung in about one run of two on JDK 25, the lock
 * {@code Locked by thread replay-2}, a thread that had ended; none hung in ten runs with the
 * compiler's scalar replacement off).
 *
 * <p>{@link Locks#acquire} looks, every {@link #LOOK_NANOS} of waiting, whether the holder has left
 * the code that takes the lock ({@link #holders}) while it still holds it, or has ended: then no one
 * will ever let go of it. The look is exact, not a guess from how long it waited: the holder's stack
 * is read between two reads of the count of releases ({@link #unlock}), and a hold that spans both
 * reads with no frame of the holders' code on its stack was abandoned. The change it was making may
 * be half made, so {@link #onAbandoned} stops the pools (see {@link PoolAllocator#stoppedBy}), and
 * every waiter, then and later, gets the error instead of the lock.
 */
public final class OwnedLock extends ReentrantLock {

    private static final long serialVersionUID = 1L;

    /** How long a taker waits between two looks at the holder. */
    static final long LOOK_NANOS = 100_000_000L;

    private static final VarHandle RELEASES;

    static {
        try {
            RELEASES = MethodHandles.lookup().findVarHandle(OwnedLock.class, "releases", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** The classes whose frames may hold this lock; a hold in none of them was abandoned. */
    private final transient Class<?>[] holders;

    private final transient Consumer<AbandonedLockException> onAbandoned;

    /** Holds let go of, counted before each is; written by the holder, under the lock. */
    @SuppressWarnings("unused") // through RELEASES
    private volatile long releases;

    /** How many times a taker looked at the holder ({@link #look}); for tests and diagnostics. */
    volatile long looks;

    /** Set once the lock is found abandoned; then no one takes it again. */
    private volatile AbandonedLockException abandoned;

    /** {@code holders}: the classes whose code takes the lock; {@code onAbandoned}: told once, first. */
    OwnedLock(Consumer<AbandonedLockException> onAbandoned, Class<?>... holders) {
        this.onAbandoned = onAbandoned;
        this.holders = holders.clone();
    }

    @Override
    public void unlock() {
        // Counted before the lock is let go of: a waiter that sees the count unchanged across its look
        // at the holder's stack saw one hold throughout (see #abandonedBy).
        RELEASES.setRelease(this, (long) RELEASES.getOpaque(this) + 1);
        super.unlock();
    }

    /** Throws the error that says the lock was abandoned, if it was found so. */
    void failIfAbandoned() {
        AbandonedLockException e = abandoned;
        if (e != null) {
            throw e;
        }
    }

    /**
     * Looks whether the hold in place was abandoned; if so, says so once ({@link #onAbandoned}) and
     * throws. Called by a taker that waited; it allocates (the holder's stack), and may throw that
     * allocation's {@code OutOfMemoryError} instead.
     */
    void look() {
        failIfAbandoned();
        Thread holder = abandonedBy();
        looks++; // racy among takers: a count for tests, which look from one taker
        if (holder == null) {
            return;
        }
        AbandonedLockException e = new AbandonedLockException("thread " + holder.getName()
                + (holder.isAlive() ? " left" : " ended in")
                + " the pools' code without letting go of a lock it took there (an error that unwound its"
                + " frames without their handlers, as the JVM does at a full heap when it deoptimizes compiled"
                + " code), so the change it was making may be half made");
        synchronized (this) {
            if (abandoned == null) {
                abandoned = e;
                onAbandoned.accept(e);
            }
        }
        failIfAbandoned();
    }

    /** The thread that abandoned the hold in place, or null if no hold is in place or it may go on. */
    Thread abandonedBy() {
        long before = (long) RELEASES.getVolatile(this);
        Thread holder = getOwner();
        if (holder == null || holder == Thread.currentThread()) {
            return null;
        }
        boolean inside = holder.isAlive() && inHolders(holder.getStackTrace());
        long after = (long) RELEASES.getVolatile(this);
        return !inside && getOwner() == holder && before == after ? holder : null;
    }

    private boolean inHolders(StackTraceElement[] stack) {
        // A thread whose stack the JVM could not read reads as inside: no hold is called abandoned on a guess.
        if (stack.length == 0) {
            return true;
        }
        for (StackTraceElement frame : stack) {
            for (Class<?> c : holders) {
                if (frame.getClassName().equals(c.getName())) {
                    return true;
                }
            }
        }
        return false;
    }
}
