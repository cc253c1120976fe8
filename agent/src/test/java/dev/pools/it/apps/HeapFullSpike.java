package dev.pools.it.apps;

import dev.pools.api.MemoryPools;
import dev.pools.recording.Recorder;
import it.host.Tensors;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * A host that fills the Java heap, catches the {@code OutOfMemoryError}, holds the heap full for a
 * moment while the agent's threads run into it, then frees it and goes on: it holds 10 buffers
 * before and 10 after, drops 200 and waits until the collector has brought them back (at most a
 * minute), then prints the agent's threads still alive and ends normally. Run with {@code -Xmx32m}.
 */
public final class HeapFullSpike {

    static final List<ByteBuffer> HELD = new ArrayList<>();
    static List<long[]> heap;

    public static void main(String[] args) throws Exception {
        // Once the recording runs: a full heap in the middle of the agent's or the recording's start
        // can leave them out for the run (a class whose initialiser it interrupts cannot be used
        // again; said on stderr), which is not what this is about.
        // The agent's start thread ended too: the MBean's poller exists (a full heap before that is
        // waited out, MemoryPoolsJmxTest; its end here would depend on when the heap frees).
        for (int i = 0; i < 1200 && (!Recorder.started() || threads().contains("pools-start")); i++) {
            Thread.sleep(50);
        }
        fill(); // every class and call of the program resolved before the spike
        heap = null;
        System.gc();
        hold(10);
        drop(50); // work for the release thread while the heap is full
        fill();
        long until = System.nanoTime() + 1_500_000_000L;
        while (System.nanoTime() < until) {
            Thread.sleep(10);
        }
        heap = null;
        System.gc();
        hold(10);
        drop(200);
        System.gc();
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (MemoryPools.usage().numberAllocs() > HELD.size() && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        System.out.println(
                "held " + HELD.size() + " live " + MemoryPools.usage().numberAllocs());
        System.out.println("threads " + threads());
    }

    static void fill() {
        heap = new ArrayList<>(100_000);
        try {
            while (true) {
                heap.add(new long[1024]);
            }
        } catch (OutOfMemoryError e) {
            // The host goes on.
        }
    }

    static void hold(int n) {
        for (int i = 0; i < n; i++) {
            HELD.add(Tensors.allocate(10_000));
        }
    }

    static void drop(int n) {
        for (int i = 0; i < n; i++) {
            Tensors.allocate(10_000).put(0, (byte) 1);
        }
    }

    static Set<String> threads() {
        Set<String> names = new TreeSet<>();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().startsWith("pools-")) {
                names.add(t.getName());
            }
        }
        return names;
    }
}
