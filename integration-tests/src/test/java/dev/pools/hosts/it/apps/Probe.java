package dev.pools.hosts.it.apps;

import dev.pools.agent.PoolsRuntime;
import dev.pools.memory.Usage;
import dev.pools.recording.Recorder;
import java.lang.reflect.Field;
import java.nio.Buffer;
import java.util.Arrays;

/** What the test applications print about the pools, one {@code key value} line at a time. */
final class Probe {

    private Probe() {}

    /** Whether the agent runs in this JVM; without it, its classes are not even on the class path. */
    static boolean attached() {
        try {
            return PoolsRuntime.current() != null;
        } catch (NoClassDefFoundError e) {
            return false;
        }
    }

    /**
     * Under the agent with a recording ({@code report.file} not {@code none}), waits until the
     * recording runs (it starts in the background, about half a second after the JVM), so that a
     * short program is recorded from its first request; at most a minute.
     */
    static void awaitRecording() throws InterruptedException {
        if (!attached() || PoolsRuntime.current().config().reportFile() == null) {
            return;
        }
        for (int i = 0; i < 6000 && !Recorder.started(); i++) {
            Thread.sleep(10);
        }
    }

    /** Whether a buffer is live pool memory: its address lies in a page of the pools. */
    static boolean pooled(Buffer buffer) {
        return attached()
                && buffer != null
                && PoolsRuntime.current().allocator().locate(buffer) != null;
    }

    /** A private field of a host object (the buffer a tensor keeps), read the way a debugger would. */
    static Object field(Object owner, String name) {
        for (Class<?> c = owner.getClass(); c != null; c = c.getSuperclass()) {
            try {
                Field f = c.getDeclaredField(name);
                f.setAccessible(true);
                return f.get(owner);
            } catch (NoSuchFieldException e) {
                // look in the superclass
            } catch (IllegalAccessException e) {
                throw new IllegalStateException(e);
            }
        }
        throw new IllegalStateException("no field " + name + " in " + owner.getClass());
    }

    /** Live allocations, bytes in use and fallbacks. */
    static long[] usage() {
        if (!attached()) {
            return new long[3];
        }
        Usage u = PoolsRuntime.current().allocator().usage();
        return new long[] {u.numberAllocs(), u.bytesInUse(), u.fallbackAllocs()};
    }

    static void print(String key, Object value) {
        System.out.println(key + " " + value);
    }

    static void printUsage(String key) {
        long[] u = usage();
        print(key, u[0] + " " + u[1] + " " + u[2]);
    }

    static String hash(float[] values) {
        return Integer.toHexString(Arrays.hashCode(values)) + "/" + values.length;
    }

    static String hash(double[] values) {
        return Integer.toHexString(Arrays.hashCode(values)) + "/" + values.length;
    }

    /** Collects until the pools hold nothing live, or ten seconds pass; returns the milliseconds it took, or -1. */
    static long drain() throws InterruptedException {
        return drainTo(0);
    }

    /** Collects until the pools hold at most {@code live} allocations, or ten seconds pass; the milliseconds it took, or -1. */
    static long drainTo(long live) throws InterruptedException {
        long start = System.nanoTime();
        while (System.nanoTime() - start < 10_000_000_000L) {
            System.gc();
            if (attached()) {
                PoolsRuntime.current().allocator().cleanup();
            }
            if (usage()[0] <= live) {
                return (System.nanoTime() - start) / 1_000_000;
            }
            Thread.sleep(20);
        }
        return -1;
    }

    /** The collections the pools made for requests a full pool could not serve. */
    static long collections() {
        return attached() ? PoolsRuntime.current().allocator().collections() : 0;
    }

    static long doubleReleases() {
        return attached() ? PoolsRuntime.current().allocator().doubleReleases() : 0;
    }

    static long collectorReleases() {
        return attached() ? PoolsRuntime.current().allocator().collectorReleases() : 0;
    }
}
