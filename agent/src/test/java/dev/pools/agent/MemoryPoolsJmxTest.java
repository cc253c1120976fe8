package dev.pools.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.concurrent.atomic.AtomicInteger;
import javax.management.InstanceAlreadyExistsException;
import org.junit.jupiter.api.Test;

/**
 * The MBean's registration at a full heap: a host that fills the heap while the agent starts, and
 * survives it, keeps the MBean. Before, the start thread died of the error (and the JVM printed
 * "Exception: java.lang.OutOfMemoryError thrown from the UncaughtExceptionHandler in thread
 * pools-start" on the host's stderr), and the MBean was lost for the run.
 */
class MemoryPoolsJmxTest {

    @Test
    void a_full_heap_is_waited_out_until_the_step_is_done() {
        AtomicInteger tries = new AtomicInteger();
        MemoryPoolsJmx.untilTheHeapAllows(
                () -> {
                    if (tries.incrementAndGet() < 3) {
                        throw new OutOfMemoryError("Java heap space");
                    }
                    return true;
                },
                1);
        assertEquals(3, tries.get());
    }

    @Test
    void a_step_not_done_yet_is_tried_again() {
        AtomicInteger tries = new AtomicInteger();
        MemoryPoolsJmx.untilTheHeapAllows(() -> tries.incrementAndGet() == 4, 1);
        assertEquals(4, tries.get());
    }

    /** A registration that the heap failed after it was made is done; any other failure ends the tries. */
    @Test
    void an_mbean_already_registered_or_another_failure_ends_the_tries() {
        AtomicInteger tries = new AtomicInteger();
        MemoryPoolsJmx.untilTheHeapAllows(
                () -> {
                    tries.incrementAndGet();
                    throw new InstanceAlreadyExistsException(MemoryPoolsJmx.NAME);
                },
                1);
        assertEquals(1, tries.get());
        MemoryPoolsJmx.untilTheHeapAllows(
                () -> {
                    tries.incrementAndGet();
                    throw new IllegalStateException("no server");
                },
                1);
        assertEquals(2, tries.get());
        MemoryPoolsJmx.untilTheHeapAllows(
                () -> {
                    tries.incrementAndGet();
                    throw new InterruptedException();
                },
                1);
        assertEquals(3, tries.get());
    }
}
