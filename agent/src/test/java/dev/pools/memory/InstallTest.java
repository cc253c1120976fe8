package dev.pools.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.pools.api.InstallMemoryPoolsException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

class InstallTest {

    private static final List<PoolSpec> FIRST = List.of(new PoolSpec.Sliced(1 << 20, 1 << 16, PoolSpec.UNCAPPED));
    private static final List<PoolSpec> SECOND =
            List.of(new PoolSpec.Sliced(1 << 22, 1 << 22, 4), new PoolSpec.Direct());

    @Test
    void install_is_refused_while_a_slice_is_live_and_accepted_after_its_release() throws Exception {
        PoolAllocator pools = new PoolAllocator(FIRST);
        ByteBuffer live = pools.allocate(1000, 0);
        ByteBuffer gone = pools.allocate(5000, 0);
        pools.release(gone);

        InstallMemoryPoolsException e = assertThrows(InstallMemoryPoolsException.class, () -> pools.install(SECOND));
        assertEquals(InstallMemoryPoolsException.Kind.POOLS_IN_USE, e.kind());
        assertEquals(1000, e.bytesInUse());
        assertTrue(e.isTransient());
        assertEquals(FIRST, pools.layout(), "the previous layout is kept");
        assertEquals(1, pools.reports().get(0).pages(), "the refused install still ran a cleanup (the page is in use)");

        pools.release(live);
        pools.install(SECOND);
        assertEquals(SECOND, pools.layout());
        List<PoolReport> reports = pools.reports();
        assertEquals(2, reports.size());
        for (PoolReport r : reports) {
            assertEquals(0, r.pages());
            assertEquals(0, r.pagesPeak(), "marks reset at install");
            assertEquals(0, r.largestAlloc());
        }
        assertEquals(Usage.ZERO, pools.usage(), "the old pages went back to the JDK");
        ByteBuffer next = pools.allocate(1000, 0);
        assertEquals(0, pools.locate(next).pool(), "new allocations go to the new layout");
    }

    @Test
    void install_after_shutdown_is_unavailable() {
        PoolAllocator pools = new PoolAllocator(FIRST);
        pools.shutdown();
        InstallMemoryPoolsException e = assertThrows(InstallMemoryPoolsException.class, () -> pools.install(SECOND));
        assertEquals(InstallMemoryPoolsException.Kind.UNAVAILABLE, e.kind());
        assertFalse(e.isTransient());
        assertEquals(FIRST, pools.layout());
    }

    @Test
    void allocations_racing_an_install_end_up_in_exactly_one_layout() throws Exception {
        long blocksBefore = NativeAccess.blockBytesHeld();
        PoolAllocator pools = new PoolAllocator(FIRST);
        int threads = 2;
        Thread[] workers = new Thread[threads];
        AtomicBoolean stop = new AtomicBoolean();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        for (int t = 0; t < threads; t++) {
            workers[t] = new Thread(() -> {
                try {
                    while (!stop.get()) {
                        ByteBuffer b = pools.allocate(512, 0);
                        b.putInt(0, 42);
                        assertTrue(pools.release(b));
                        LockSupport.parkNanos(20_000);
                    }
                } catch (Throwable x) {
                    failure.set(x);
                }
            });
            workers[t].start();
        }
        int installed = 0;
        for (int i = 0; i < 2000; i++) {
            try {
                pools.install(i % 2 == 0 ? SECOND : FIRST);
                installed++;
            } catch (InstallMemoryPoolsException e) {
                assertEquals(InstallMemoryPoolsException.Kind.POOLS_IN_USE, e.kind());
            }
        }
        stop.set(true);
        for (Thread w : workers) {
            w.join();
        }
        if (failure.get() != null) {
            throw new AssertionError(failure.get());
        }
        assertTrue(installed > 0, "some installs found the pools idle");
        assertEquals(0, pools.usage().numberAllocs());
        pools.checkInvariants();
        pools.cleanup();
        // Every page of every layout went back: none kept by a slice a thread cached or served while an
        // install retired its pool.
        assertEquals(blocksBefore, NativeAccess.blockBytesHeld());
    }
}
