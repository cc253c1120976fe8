package dev.pools.memory;

import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.lang.management.ManagementFactory;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * Whether a lock's holder left it held for ever (see {@link OwnedLock}): what its takers look at. The
 * look is exact, not a guess from how long a taker waited: the holder's stack is read between two
 * reads of the count of releases ({@link #released}), and a hold that spans both reads with no frame
 * of the holders' code on the holder's stack (or a holder that ended) was abandoned.
 */
final class Abandonment {

    /** How long a taker waits between two looks at the holder. */
    static final long LOOK_NANOS = 100_000_000L;

    private static final VarHandle RELEASES;

    static {
        try {
            RELEASES = MethodHandles.lookup().findVarHandle(Abandonment.class, "releases", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** The classes whose frames may hold the lock; a hold in none of them was abandoned. */
    private final Class<?>[] holders;

    private final Consumer<AbandonedLockException> onAbandoned;

    /** Holds let go of, counted before each is; written by the holder, under the lock. */
    @SuppressWarnings("unused") // through RELEASES
    private volatile long releases;

    /** How many times a taker looked at the holder ({@link #look}); for tests and diagnostics. */
    volatile long looks;

    /** Set once the lock is found abandoned; then no one takes it again. */
    private volatile AbandonedLockException abandoned;

    /** {@code holders}: the classes whose code takes the lock; {@code onAbandoned}: told once, first. */
    Abandonment(Consumer<AbandonedLockException> onAbandoned, Class<?>... holders) {
        this.onAbandoned = onAbandoned;
        this.holders = holders.clone();
    }

    /**
     * Counts a hold let go of; called by the holder before it lets go. A taker that sees the count
     * unchanged across its look at the holder's stack saw one hold throughout (see #abandonedBy).
     */
    void released() {
        RELEASES.setRelease(this, (long) RELEASES.getOpaque(this) + 1);
    }

    /** Throws the error that says the lock was abandoned, if it was found so. */
    void failIfAbandoned() {
        AbandonedLockException e = abandoned;
        if (e != null) {
            throw e;
        }
    }

    /**
     * Looks whether the hold in place ({@code owner}: its holder, null if none) was abandoned; if so,
     * says so once ({@link #onAbandoned}) and throws. Called by a taker that waited; it allocates (the
     * holder's stack), and may throw that allocation's {@code OutOfMemoryError} instead.
     */
    void look(Supplier<Thread> owner) {
        failIfAbandoned();
        Thread holder = abandonedBy(owner);
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

    /** A thread that holds the lock outside the holders' code on purpose (a test), or null. */
    volatile Thread heldOnPurpose;

    /** The thread that abandoned the hold in place, or null if no hold is in place or it may go on. */
    Thread abandonedBy(Supplier<Thread> owner) {
        long before = (long) RELEASES.getVolatile(this);
        Thread holder = owner.get();
        if (holder == null || holder == Thread.currentThread() || holder == heldOnPurpose) {
            return null;
        }
        boolean inside = holder.isAlive() && inside(holder.getStackTrace(), holders, stackDepthLimit());
        long after = (long) RELEASES.getVolatile(this);
        return !inside && owner.get() == holder && before == after ? holder : null;
    }

    /**
     * Whether {@code stack}, a holder's, may be in the holders' code. A stack the JVM could not read
     * may be: no hold is called abandoned on a guess. From JDK 21 on, a thread's stack comes back cut
     * to its {@code limit} most recent frames ({@code -XX:MaxJavaStackTraceDepth}, 1024 by default): the
     * holders' code never goes that deep under a lock, but under a limit set lower, a stack cut to it
     * may hide the frame that holds the lock, and may be inside too.
     */
    static boolean inside(StackTraceElement[] stack, Class<?>[] holders, int limit) {
        if (stack.length == 0 || (stack.length >= limit && limit < DEFAULT_STACK_DEPTH)) {
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

    /** {@code -XX:MaxJavaStackTraceDepth}'s default. */
    static final int DEFAULT_STACK_DEPTH = 1024;

    private static volatile int stackDepthLimit;

    /** The JVM's {@code MaxJavaStackTraceDepth} (0, no limit, as {@link Integer#MAX_VALUE}), read at the first look. */
    private static int stackDepthLimit() {
        int limit = stackDepthLimit;
        if (limit == 0) {
            try {
                int value = Integer.parseInt(ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class)
                        .getVMOption("MaxJavaStackTraceDepth")
                        .getValue());
                limit = value > 0 ? value : Integer.MAX_VALUE;
            } catch (RuntimeException | LinkageError e) {
                limit = DEFAULT_STACK_DEPTH; // not a HotSpot JVM, or no management: the usual limit
            }
            stackDepthLimit = limit;
        }
        return limit;
    }
}
