package dev.pools.memory;

import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The treap's first fit agrees with a plain scan in (page, offset) order, under random changes. */
class FreeSliceTreeTest {

    @Test
    void first_fit_equals_a_linear_scan_after_random_inserts_removes_and_resizes() {
        Random random = new Random(7);
        FreeSliceTree tree = new FreeSliceTree();
        List<Slice> model = new ArrayList<>();
        SlicingPool.Page[] pages = new SlicingPool.Page[8];
        for (int i = 0; i < pages.length; i++) {
            pages[i] = new SlicingPool.Page(i, new NativeAccess.Block(null, 0, 1 << 20, true)); // never read: no memory
        }
        for (int step = 0; step < 20_000; step++) {
            int op = random.nextInt(4);
            if (op == 0 || model.isEmpty()) {
                Slice s = new Slice(
                        pages[random.nextInt(pages.length)],
                        random.nextInt(1 << 20) * 64,
                        (1 + random.nextInt(4096)) * 64);
                if (model.stream().anyMatch(m -> m.key() == s.key())) {
                    continue;
                }
                s.free = true;
                tree.insert(s);
                model.add(s);
            } else if (op == 1) {
                Slice s = model.remove(random.nextInt(model.size()));
                tree.remove(s);
            } else if (op == 2) {
                Slice s = model.get(random.nextInt(model.size()));
                s.length = (1 + random.nextInt(4096)) * 64;
                tree.changed(s);
            } else {
                int want = (1 + random.nextInt(4096)) * 64;
                Slice expected = null;
                for (Slice m : model) {
                    if (m.length >= want && (expected == null || m.key() < expected.key())) {
                        expected = m;
                    }
                }
                assertSame(expected, tree.firstFit(want), "first fit for " + want + " at step " + step);
            }
            if (step % 1000 == 0) {
                tree.check();
            }
        }
        tree.check();
    }
}
