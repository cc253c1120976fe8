package dev.pools.bench.jmh;

import dev.pools.memory.PoolAllocator;
import dev.pools.memory.PoolSpec;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * B1: allocate and release one direct buffer, time on the allocating thread, against the peers of
 * BENCHMARKS.md. Run with {@code -t 1} and {@code -t 2}. Every allocator is checked once, outside
 * the timed loop: its buffers are zero-filled, do not overlap, and are all given back.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(
        value = 3,
        jvmArgsAppend = {
            "-Xmx1g",
            "-XX:MaxDirectMemorySize=256m",
            "--add-opens",
            "java.base/java.nio=ALL-UNNAMED",
            "--add-exports",
            "java.base/jdk.internal.misc=ALL-UNNAMED",
            "--add-exports",
            "java.base/sun.nio.ch=ALL-UNNAMED",
            "--add-exports",
            "java.base/jdk.internal.access=ALL-UNNAMED",
            "--add-exports",
            "java.base/jdk.internal.ref=ALL-UNNAMED"
        })
@State(Scope.Benchmark)
public class AllocateRelease {

    @Param({"64", "4096", "65536", "1048576"})
    int size;

    /** Shared by all benchmark threads, as the JVM's pools and Netty's default allocator are. */
    @State(Scope.Benchmark)
    public static class Shared {
        PoolAllocator pools;
        /** Thousands of small live slices spread over the pages: allocation must not scan them. */
        @Param({"0", "10000"})
        int liveSlices;

        final List<ByteBuffer> background = new ArrayList<>();
        PooledByteBufAllocator netty;
        ByteBuf nettyKeepAlive;
        Object unsafe;
        Method invokeCleaner;

        @Setup(Level.Trial)
        public void setUp(AllocateRelease b) throws Exception {
            pools = new PoolAllocator(List.of(new PoolSpec.Sliced(4 << 20, 4 << 20, PoolSpec.UNCAPPED)));
            List<ByteBuffer> holes = new ArrayList<>();
            for (int i = 0; i < liveSlices; i++) {
                background.add(pools.allocate(64, 0));
                holes.add(pools.allocate(64 + 64 * (i % 3), 0));
            }
            holes.forEach(pools::release);
            netty = new PooledByteBufAllocator(true);
            nettyKeepAlive = netty.directBuffer(b.size, b.size); // keeps Netty's chunk alive: see BENCHMARKS.md
            Field f = Class.forName("sun.misc.Unsafe").getDeclaredField("theUnsafe");
            f.setAccessible(true);
            unsafe = f.get(null);
            invokeCleaner = unsafe.getClass().getMethod("invokeCleaner", ByteBuffer.class);
            Correctness.check("pools", b.size, () -> pools.allocate(b.size, 0), pools::release);
            Correctness.check("allocateDirect", b.size, () -> ByteBuffer.allocateDirect(b.size), this::clean);
            if (pools.usage().numberAllocs() != liveSlices) {
                throw new AssertionError("pools lost a release: " + pools.usage());
            }
        }

        void clean(ByteBuffer buffer) {
            try {
                invokeCleaner.invoke(unsafe, buffer);
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException(e);
            }
        }

        @TearDown(Level.Trial)
        public void tearDown() throws InterruptedException {
            nettyKeepAlive.release();
            background.forEach(pools::release);
            // Buffers left to the collector come back once it has found them unreachable.
            for (int i = 0; i < 100 && pools.usage().numberAllocs() != 0; i++) {
                System.gc();
                pools.cleanup();
                Thread.sleep(10);
            }
            if (pools.usage().numberAllocs() != 0 || pools.doubleReleases() != 0) {
                throw new AssertionError("pools did not get everything back: " + pools.usage());
            }
        }
    }

    /** The floor: a free list of preallocated, page-backed slices; pop, zero, push. */
    @State(Scope.Thread)
    public static class Floor {
        final ArrayDeque<ByteBuffer> free = new ArrayDeque<>();
        ByteBuffer page;
        byte[] zeros;

        @Setup(Level.Trial)
        public void setUp(AllocateRelease b) {
            page = ByteBuffer.allocateDirect(b.size * 4);
            for (int i = 0; i < 4; i++) {
                free.push(page.slice(i * b.size, b.size));
            }
            zeros = new byte[b.size];
        }
    }

    @Benchmark
    public void pools(Shared s, Blackhole bh) {
        ByteBuffer b = s.pools.allocate(size, 0);
        bh.consume(b);
        s.pools.release(b);
    }

    /** Dropped, not released: the pools' release thread takes it back (and zeroes it) once the collector finds it unreachable. */
    @Benchmark
    public void poolsLeftToGc(Shared s, Blackhole bh) {
        bh.consume(s.pools.allocate(size, 0));
    }

    @Benchmark
    public void allocateDirectInvokeCleaner(Shared s, Blackhole bh) {
        ByteBuffer b = ByteBuffer.allocateDirect(size);
        bh.consume(b);
        s.clean(b);
    }

    @Benchmark
    public void allocateDirectLeftToGc(Blackhole bh) {
        bh.consume(ByteBuffer.allocateDirect(size));
    }

    @Benchmark
    public void nettyPooled(Shared s, Blackhole bh) {
        ByteBuf b = s.netty.directBuffer(size, size);
        bh.consume(b);
        b.release();
    }

    @Benchmark
    public void nettyPooledSetZero(Shared s, Blackhole bh) {
        ByteBuf b = s.netty.directBuffer(size, size);
        b.setZero(0, size);
        bh.consume(b);
        b.release();
    }

    @Benchmark
    public void floorFreeListZero(Floor f, Blackhole bh) {
        ByteBuffer b = f.free.pop();
        b.put(0, f.zeros, 0, size);
        bh.consume(b);
        f.free.push(b);
    }
}
