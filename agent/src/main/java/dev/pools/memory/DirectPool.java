package dev.pools.memory;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The direct pool (docs/POOLS.md §5): every allocation is a block of exactly its effective size;
 * a freed block waits to be reused by a request of the same effective size, most recently freed
 * first, until an explicit cleanup gives it back. Accepts every size a buffer can have, so nothing
 * after it in a layout is reachable. Its report counts live allocations as pages.
 */
final class DirectPool extends Pool {

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
        return size <= Sizes.MAX_PAGE;
    }

    @Override
    boolean takeLocked(Lease lease, boolean retry) {
        int length = Sizes.effective(lease.size);
        ArrayDeque<NativeAccess.Block> reusable = freeBySize.get(length);
        NativeAccess.Block block = reusable == null ? null : reusable.pollLast();
        if (block == null) {
            block = NativeAccess.allocateBlock(length);
            if (block == null) {
                return false;
            }
            bytesHeld += length;
        }
        notePages(numberAllocs + 1);
        lease.slot = block;
        lease.address = block.address;
        return true;
    }

    @Override
    void giveBackLocked(Lease lease) {
        NativeAccess.Block block = (NativeAccess.Block) lease.slot;
        ArrayDeque<NativeAccess.Block> blocks = freeBySize.get(block.size);
        if (blocks == null) {
            blocks = new ArrayDeque<>();
            freeBySize.put(block.size, blocks);
        }
        blocks.addLast(block);
    }

    @Override
    int releaseEmptyPagesLocked() {
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
    List<Object> emptyPagesLocked() {
        List<Object> empty = new ArrayList<>();
        for (ArrayDeque<NativeAccess.Block> blocks : freeBySize.values()) {
            empty.addAll(blocks);
        }
        return empty;
    }

    @Override
    int releaseStillEmptyLocked(Set<Object> earlier) {
        int released = 0;
        for (Iterator<ArrayDeque<NativeAccess.Block>> sizes =
                        freeBySize.values().iterator();
                sizes.hasNext(); ) {
            ArrayDeque<NativeAccess.Block> blocks = sizes.next();
            for (Iterator<NativeAccess.Block> i = blocks.iterator(); i.hasNext(); ) {
                NativeAccess.Block b = i.next();
                if (earlier.contains(b)) {
                    i.remove();
                    NativeAccess.free(b);
                    bytesHeld -= b.size;
                    released++;
                }
            }
            if (blocks.isEmpty()) {
                sizes.remove();
            }
        }
        return released;
    }

    @Override
    long pagesLocked() {
        return numberAllocs;
    }

    @Override
    long bytesReservedLocked() {
        return bytesHeld;
    }

    @Override
    void checkInvariantsLocked() {
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
