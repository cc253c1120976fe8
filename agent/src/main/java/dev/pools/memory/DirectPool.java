package dev.pools.memory;

import java.lang.ref.ReferenceQueue;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;

/**
 * The direct pool (POOLS.md §5): every allocation is a block of exactly its effective size;
 * a freed block waits to be reused by a request of the same effective size, most recently freed
 * first, until an explicit cleanup gives it back. Accepts every size, so nothing after it in a
 * layout is reachable. Its report counts live allocations as pages.
 */
final class DirectPool extends Pool {

    /** A block in use, holding its lease so that the lease outlives the buffer's anchor. */
    private static final class Held {
        final NativeAccess.Block block;
        Lease lease;

        Held(NativeAccess.Block block) {
            this.block = block;
        }
    }

    private final PoolSpec.Direct spec;
    private final Map<Integer, ArrayDeque<NativeAccess.Block>> freeBySize = new HashMap<>();
    private long bytesHeld;

    DirectPool(PoolAllocator owner, int index, PoolSpec.Direct spec) {
        super(owner, index);
        this.spec = spec;
    }

    @Override
    PoolSpec spec() {
        return spec;
    }

    @Override
    boolean accepts(int size) {
        return true;
    }

    @Override
    Anchor reserve(int size, int site, ReferenceQueue<Anchor> queue) {
        int length = Sizes.effective(size);
        lock.lock();
        try {
            if (retired) {
                return null;
            }
            ArrayDeque<NativeAccess.Block> reusable = freeBySize.get(length);
            NativeAccess.Block block = reusable == null ? null : reusable.pollLast();
            if (block == null) {
                block = NativeAccess.allocateBlock(length);
                if (block == null) {
                    return null;
                }
                bytesHeld += length;
            }
            served(size);
            notePages(numberAllocs);
            Held held = new Held(block);
            Anchor anchor = new Anchor(this, held, block.address, size, site, queue);
            held.lease = anchor.lease;
            return anchor;
        } finally {
            lock.unlock();
        }
    }

    @Override
    void freeLocked(Lease lease) {
        Held held = (Held) lease.slot;
        NativeAccess.Block block = held.block;
        assert held.lease == lease : "releasing a block that is not this lease's";
        held.lease = null;
        returned(lease.size);
        freeBySize.computeIfAbsent(block.size, k -> new ArrayDeque<>()).addLast(block);
    }

    @Override
    int releaseEmptyPages() {
        int released = 0;
        for (ArrayDeque<NativeAccess.Block> blocks : freeBySize.values()) {
            for (NativeAccess.Block b : blocks) {
                NativeAccess.free(b);
                bytesHeld -= b.size;
                released++;
            }
        }
        freeBySize.clear();
        return released;
    }

    @Override
    long pages() {
        return numberAllocs;
    }

    @Override
    long bytesReserved() {
        return bytesHeld;
    }

    @Override
    void checkInvariants() {
        long freeBytes = 0;
        for (Map.Entry<Integer, ArrayDeque<NativeAccess.Block>> e : freeBySize.entrySet()) {
            for (NativeAccess.Block b : e.getValue()) {
                if (b.size != e.getKey()) {
                    throw new AssertionError("block of " + b.size + " B filed under " + e.getKey());
                }
                freeBytes += b.size;
            }
        }
        if (bytesHeld != freeBytes + bytesInUse + bytesPadding) {
            throw new AssertionError("direct pool holds " + bytesHeld + " B, free " + freeBytes + " B, in use "
                    + (bytesInUse + bytesPadding) + " B");
        }
    }
}
