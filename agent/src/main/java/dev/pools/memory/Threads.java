package dev.pools.memory;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

/** What the per-thread state of the pools needs to know about a thread. */
public final class Threads {

    private Threads() {}

    /**
     * Whether {@code t} may keep per-thread state (a cache, unpublished releases): a platform thread,
     * not a virtual one (they come and go by the thousand and would each leave some behind).
     */
    public static boolean isPlatform(Thread t) {
        if (NativeAccess.failure() == null) {
            return !NativeAccess.isVirtual(t);
        }
        return Unresolved.isPlatform(t);
    }

    /** Where the JDK internals are out of reach: a method handle, which the JVM spins a class for. */
    private static final class Unresolved {
        private static final MethodHandle IS_VIRTUAL = isVirtual();

        private static MethodHandle isVirtual() {
            try {
                return MethodHandles.publicLookup()
                        .findVirtual(Thread.class, "isVirtual", MethodType.methodType(boolean.class));
            } catch (ReflectiveOperationException e) {
                return null; // before JDK 21: every thread is a platform thread
            }
        }

        static boolean isPlatform(Thread t) {
            try {
                return IS_VIRTUAL == null || !(boolean) IS_VIRTUAL.invokeExact(t);
            } catch (Throwable e) {
                return false;
            }
        }
    }
}
