package dev.pools.bench.jmh;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Field;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Why the pools zero by copying (BENCHMARKS.md, B1, "zeroing by copying zeros"): one off-heap
 * buffer zeroed again and again with {@code Unsafe.setMemory}, by copying from a block of zeros of
 * {@code block} bytes, and word by word. On JDK 25 add
 * {@code -jvmArgs --sun-misc-unsafe-memory-access=allow}. {@code sun.misc.Unsafe} is reached by
 * reflection and called through constant method handles, which the compiler inlines to the calls.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(2)
@State(Scope.Thread)
public class Zeroing {

    private static final MethodHandle ALLOCATE = unsafe("allocateMemory", long.class, long.class);
    private static final MethodHandle FREE = unsafe("freeMemory", void.class, long.class);
    private static final MethodHandle SET = unsafe("setMemory", void.class, long.class, long.class, byte.class);
    private static final MethodHandle COPY = unsafe("copyMemory", void.class, long.class, long.class, long.class);
    private static final MethodHandle PUT_LONG = unsafe("putLong", void.class, long.class, long.class);
    private static final MethodHandle GET_BYTE = unsafe("getByte", byte.class, long.class);

    @Param({"4096", "65536", "1048576"})
    public int size;

    @Param({"4096"})
    public int block;

    private long raw;
    private long buffer;
    private long zerosRaw;
    private long zeros;

    @Setup
    public void setUp() throws Throwable {
        raw = (long) ALLOCATE.invokeExact((long) size + 64);
        buffer = (raw + 63) & -64L;
        zerosRaw = (long) ALLOCATE.invokeExact((long) block + 64);
        zeros = (zerosRaw + 63) & -64L;
        SET.invokeExact(zeros, (long) block, (byte) 0);
        SET.invokeExact(buffer, (long) size, (byte) 1);
    }

    @TearDown
    public void tearDown() throws Throwable {
        for (long at = buffer; at < buffer + size; at += 64) {
            if ((byte) GET_BYTE.invokeExact(at) != 0 || (byte) GET_BYTE.invokeExact(at + 63) != 0) {
                throw new IllegalStateException("not zeroed at " + (at - buffer));
            }
        }
        FREE.invokeExact(raw);
        FREE.invokeExact(zerosRaw);
    }

    @Benchmark
    public void setMemory() throws Throwable {
        SET.invokeExact(buffer, (long) size, (byte) 0);
    }

    @Benchmark
    public void copyFromZeros() throws Throwable {
        for (long done = 0; done < size; done += block) {
            COPY.invokeExact(zeros, buffer + done, Math.min((long) block, size - done));
        }
    }

    @Benchmark
    public void wordByWord() throws Throwable {
        for (long at = buffer, end = buffer + size; at < end; at += 8) {
            PUT_LONG.invokeExact(at, 0L);
        }
    }

    /** {@code sun.misc.Unsafe}'s method {@code name}, bound to the instance. */
    private static MethodHandle unsafe(String name, Class<?> result, Class<?>... parameters) {
        try {
            Class<?> type = Class.forName("sun.misc.Unsafe");
            Field f = type.getDeclaredField("theUnsafe");
            f.setAccessible(true);
            return MethodHandles.lookup()
                    .findVirtual(type, name, MethodType.methodType(result, parameters))
                    .bindTo(f.get(null));
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }
}
