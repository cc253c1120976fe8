package dev.pools.memory;

/**
 * The free slices of one sliced pool, ordered by (page index, offset), each subtree knowing its
 * longest slice: a treap, so that first fit over every page of the pool costs O(log n) instead of a
 * scan of every slice.
 *
 * <pre>
 *   first fit for length L, from the root:
 *     left subtree has a slice &gt;= L  -&gt; go left   (something earlier fits)
 *     else this slice &gt;= L            -&gt; take it
 *     else                              -&gt; go right  (its maxLength &gt;= L, or nothing fits)
 * </pre>
 *
 * Priorities come from a fixed-seed generator: the shape of the tree never depends on timing,
 * and placement never depends on the shape (only on the key order). Not thread-safe: the pool's
 * lock guards it.
 */
final class FreeSliceTree {
    private Slice root;
    private int seed = 0x9E3779B9;
    private int size;

    int size() {
        return size;
    }

    /** The first free slice, in (page, offset) order, of at least {@code length} bytes; null if none. */
    Slice firstFit(int length) {
        Slice n = root;
        if (n == null || n.maxLength < length) {
            return null;
        }
        while (true) {
            Slice l = n.left;
            if (l != null && l.maxLength >= length) {
                n = l;
            } else if (n.length >= length) {
                return n;
            } else {
                n = n.right;
            }
        }
    }

    void insert(Slice s) {
        s.left = null;
        s.right = null;
        s.maxLength = s.length;
        s.priority = nextPriority();
        root = insert(root, s);
        size++;
    }

    void remove(Slice s) {
        root = remove(root, s.key());
        s.left = null;
        s.right = null;
        size--;
    }

    /** Call after changing a node's length, or its offset within its place in the order. */
    void changed(Slice s) {
        refresh(root, s.key());
    }

    private int nextPriority() {
        int x = seed;
        x ^= x << 13;
        x ^= x >>> 17;
        x ^= x << 5;
        seed = x;
        return x;
    }

    private static Slice insert(Slice t, Slice s) {
        if (t == null) {
            return s;
        }
        if (s.key() < t.key()) {
            t.left = insert(t.left, s);
            if (t.left.priority > t.priority) {
                return rotateRight(t);
            }
        } else {
            t.right = insert(t.right, s);
            if (t.right.priority > t.priority) {
                return rotateLeft(t);
            }
        }
        pull(t);
        return t;
    }

    private static Slice remove(Slice t, long key) {
        if (t == null) {
            throw new AssertionError("free slice missing from the tree: " + key);
        }
        long k = t.key();
        if (key == k) {
            return merge(t.left, t.right);
        }
        if (key < k) {
            t.left = remove(t.left, key);
        } else {
            t.right = remove(t.right, key);
        }
        pull(t);
        return t;
    }

    private static void refresh(Slice t, long key) {
        if (t == null) {
            throw new AssertionError("free slice missing from the tree: " + key);
        }
        long k = t.key();
        if (key < k) {
            refresh(t.left, key);
        } else if (key > k) {
            refresh(t.right, key);
        }
        pull(t);
    }

    private static Slice merge(Slice a, Slice b) {
        if (a == null) {
            return b;
        }
        if (b == null) {
            return a;
        }
        if (a.priority > b.priority) {
            a.right = merge(a.right, b);
            pull(a);
            return a;
        }
        b.left = merge(a, b.left);
        pull(b);
        return b;
    }

    private static Slice rotateRight(Slice t) {
        Slice l = t.left;
        t.left = l.right;
        l.right = t;
        pull(t);
        pull(l);
        return l;
    }

    private static Slice rotateLeft(Slice t) {
        Slice r = t.right;
        t.right = r.left;
        r.left = t;
        pull(t);
        pull(r);
        return r;
    }

    private static void pull(Slice t) {
        int m = t.length;
        if (t.left != null && t.left.maxLength > m) {
            m = t.left.maxLength;
        }
        if (t.right != null && t.right.maxLength > m) {
            m = t.right.maxLength;
        }
        t.maxLength = m;
    }

    /** Checks order, heap property and the subtree maxima; returns the node count. For tests. */
    int check() {
        int[] count = {0};
        check(root, Long.MIN_VALUE, Long.MAX_VALUE, count);
        if (count[0] != size) {
            throw new AssertionError("free tree holds " + count[0] + " slices, expected " + size);
        }
        return count[0];
    }

    private static int check(Slice t, long low, long high, int[] count) {
        if (t == null) {
            return 0;
        }
        if (!t.free) {
            throw new AssertionError("used slice in the free tree: " + t);
        }
        long k = t.key();
        if (k <= low || k >= high) {
            throw new AssertionError("free tree out of order at " + t);
        }
        count[0]++;
        int m = Math.max(t.length, Math.max(check(t.left, low, k, count), check(t.right, k, high, count)));
        if (m != t.maxLength) {
            throw new AssertionError("stale maxLength at " + t + ": " + t.maxLength + " != " + m);
        }
        if ((t.left != null && t.left.priority > t.priority) || (t.right != null && t.right.priority > t.priority)) {
            throw new AssertionError("heap order broken at " + t);
        }
        return m;
    }
}
