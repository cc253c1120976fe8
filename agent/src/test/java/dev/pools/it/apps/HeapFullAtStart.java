package dev.pools.it.apps;

import java.util.ArrayList;
import java.util.List;

/**
 * A host that fills the Java heap as soon as it starts, while the agent's own start runs beside it,
 * catches the {@code OutOfMemoryError}, holds the heap full for a moment, frees it and ends
 * normally. Run with {@code -Xmx32m}.
 */
public final class HeapFullAtStart {

    static List<long[]> heap;

    public static void main(String[] args) throws Exception {
        heap = new ArrayList<>(100_000);
        try {
            while (true) {
                heap.add(new long[1024]);
            }
        } catch (OutOfMemoryError e) {
            // The host goes on.
        }
        Thread.sleep(1500);
        heap = null;
        System.gc();
        Thread.sleep(1500);
        System.out.println("done");
    }
}
