package dev.pools.it.apps;

import dev.pools.agent.PoolsRuntime;
import dev.pools.api.MemoryPools;
import dev.pools.memory.PoolAllocator;
import it.host.Tensors;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * A host that recurses to the end of a thread's stack, catches the {@code StackOverflowError} and
 * asks for a buffer at every depth on the way back, {@code args[0]} times; it keeps some, each
 * filled with its own pattern. Then, at a normal depth, it asks for 2 000 more, each checked for
 * zeros and filled, and checks every buffer it holds. Prints
 * {@code overflows N dirty D changed C}, then the pools' usage.
 */
public final class AtTheStackEnd {

    public static final int[] SIZES = {64, 200, 1000, 3000, 5000, 20_000, 70_000};

    /** A buffer kept, and the id of the pattern it was filled with. */
    public record Kept(ByteBuffer buffer, int id) {}

    /** Filled whole before it is stored: one store, which no overflow splits. */
    static final Kept[] RING = new Kept[200];

    static int overflows;
    static int next;

    public static void main(String[] args) throws Exception {
        int rounds = Integer.parseInt(args[0]);
        // The host's class and the pools' paths loaded at a normal depth first: a class that loads at the
        // end of a stack cannot be rewritten there (the JVM says "transform method call failed" and
        // loads it as it is), which is not what this is about.
        for (int size : SIZES) {
            fill(Tensors.allocate(size), 0);
        }
        Thread deep = new Thread(
                null,
                () -> {
                    for (int r = 0; r < rounds; r++) {
                        down();
                    }
                },
                "deep",
                256 * 1024);
        deep.start();
        deep.join();
        int dirty = 0;
        int changed = 0;
        Kept[] later = new Kept[2000];
        for (int i = 0; i < later.length; i++) {
            ByteBuffer b = Tensors.allocate(SIZES[i % SIZES.length]);
            for (int at = 0; at + 8 <= b.capacity(); at += 8) {
                if (b.getLong(at) != 0) {
                    dirty++;
                    break;
                }
            }
            fill(b, 1_000_000 + i);
            later[i] = new Kept(b, 1_000_000 + i);
        }
        for (Kept[] all : new Kept[][] {RING, later}) {
            for (Kept k : all) {
                if (k != null && !holds(k.buffer(), k.id())) {
                    changed++;
                }
            }
        }
        System.out.println("overflows " + overflows + " dirty " + dirty + " changed " + changed);
        System.out.println(MemoryPools.usage());
        PoolAllocator pools = PoolsRuntime.current().allocator();
        if (pools.stoppedBy() == null) {
            // Nothing held any more: every buffer comes back, and the pools are whole (a review saw 4 of 4
            // releases lost between their claim and the pool's lock, at the end of the stack).
            Arrays.fill(RING, null);
            Arrays.fill(later, null);
            System.gc();
            MemoryPools.cleanup();
            pools.checkInvariants();
            System.out.println(
                    "running; live after all was dropped " + MemoryPools.usage().numberAllocs());
        }
    }

    static void down() {
        try {
            down();
        } catch (StackOverflowError e) {
            overflows++;
        }
        try {
            int id = next++;
            ByteBuffer b = Tensors.allocate(SIZES[id % SIZES.length]);
            if (id % 8 == 0) {
                fill(b, id);
                Kept k = new Kept(b, id);
                RING[(id / 8) % RING.length] = k;
            }
        } catch (StackOverflowError e) {
            overflows++;
        }
    }

    /** Fills {@code b} with the pattern of {@code id}. */
    public static void fill(ByteBuffer b, int id) {
        for (int at = 0; at + 8 <= b.capacity(); at += 8) {
            b.putLong(at, ((long) id << 32) ^ at);
        }
    }

    /** Whether {@code b} holds the pattern of {@code id}, whole. */
    public static boolean holds(ByteBuffer b, int id) {
        for (int at = 0; at + 8 <= b.capacity(); at += 8) {
            if (b.getLong(at) != (((long) id << 32) ^ at)) {
                return false;
            }
        }
        return true;
    }
}
