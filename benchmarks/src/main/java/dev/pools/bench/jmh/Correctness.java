package dev.pools.bench.jmh;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Supplier;

/** What a benchmark checks once, outside its timed loop, so that a fast wrong answer cannot count. */
final class Correctness {

    private Correctness() {}

    /** Sixteen buffers at once: each of the size asked, zero-filled, not overlapping; then a round of reuse, zero again. */
    static void check(String name, int size, Supplier<ByteBuffer> allocate, Consumer<ByteBuffer> release) {
        for (int round = 0; round < 2; round++) {
            List<ByteBuffer> live = new ArrayList<>();
            for (int i = 0; i < 16; i++) {
                ByteBuffer b = allocate.get();
                if (b.capacity() != size || !b.isDirect()) {
                    throw new AssertionError(name + ": wrong buffer " + b);
                }
                for (int j = 0; j < size; j++) {
                    if (b.get(j) != 0) {
                        throw new AssertionError(name + ": not zero-filled at " + j + " in round " + round);
                    }
                }
                for (int j = 0; j < size; j++) {
                    b.put(j, (byte) (i + 1));
                }
                live.add(b);
            }
            for (int i = 0; i < live.size(); i++) {
                ByteBuffer b = live.get(i);
                for (int j = 0; j < size; j++) {
                    if (b.get(j) != (byte) (i + 1)) {
                        throw new AssertionError(name + ": buffers overlap");
                    }
                }
            }
            live.forEach(release);
        }
    }
}
