package dev.pools.memory;

import java.lang.management.MemoryMXBean;
import java.lang.reflect.Method;
import java.nio.Buffer;
import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;

/**
 * The few JDK internals the pools stand on, found once by reflection and called as plain bytecode
 * ({@link InternalCalls}).
 *
 * <p>Why each one is needed:
 * <ul>
 *   <li><b>A buffer over an address, with an attachment.</b> A handed-out slice must be a root of
 *       its own: every view of it ({@code asFloatBuffer()}, {@code duplicate()}, {@code slice()})
 *       must keep the slice reserved. {@code JavaNioAccess.newDirectByteBuffer(long, int, Object, segment)}
 *       makes a buffer whose views all hold its attachment, so a phantom reference on the attachment
 *       fires only once the buffer and every view of it are unreachable. Its last parameter's type
 *       differs between releases, so it is found by shape.</li>
 *   <li><b>The attachment and address of any direct buffer or view</b>, through
 *       {@code sun.nio.ch.DirectBuffer}, for an explicit release of a buffer or of one of its views.</li>
 *   <li><b>{@code jdk.internal.misc.Unsafe}</b> to zero and poison memory and to free pages now
 *       rather than when the collector notices ({@code sun.misc.Unsafe}'s memory methods warn on
 *       JDK 24 and later; the internal class does not).</li>
 * </ul>
 *
 * <p>These need {@code jdk.internal.misc}, {@code jdk.internal.access} and {@code sun.nio.ch} exported
 * to this class's module ({@code jdk.internal.ref} too for pages, and {@code java.nio} opened to read
 * the JDK's count of reserved direct memory). The agent does that itself with
 * {@code Instrumentation.redefineModule};
 * tests pass the equivalent command-line flags. When they are missing, {@link #failure()} says why
 * and the pools stay off. {@code sun.management}'s helper, for the recording's management beans
 * ({@link PlatformBeans}), is optional: without its export those come from {@code ManagementFactory}.
 *
 * <p>Pool memory counts against {@code -XX:MaxDirectMemorySize} and shows in the JDK's "direct"
 * buffer pool, exactly like the memory it replaces. A sliced pool's page is reserved and allocated
 * as {@link ByteBuffer#allocateDirect} does it ({@code JavaNioAccess.reserveMemory}, then
 * {@code Unsafe.allocateMemory}, freed by a {@code jdk.internal.ref.Cleaner} if it is ever dropped),
 * but not zeroed: {@link #allocatePage} leaves that to the pool, which zeroes each part of a page
 * the first time it hands it out, so a page's unused part is never written and never resident.
 * Without {@code jdk.internal.ref} (or the reservation hooks) pages come from
 * {@code allocateDirect}, zeroed whole. The other pool kinds' blocks always come from
 * {@code allocateDirect}, zeroed.
 */
final class NativeAccess {

    /** Alignment of every slice address and effective size (docs/POOLS.md §1: a cache line). */
    static final int ALIGNMENT = 64;

    /** The internals' methods as direct calls; null when any of the required ones is out of reach. */
    private static final InternalCalls CALLS;

    private static final Class<?> DIRECT_BUFFER;
    /** Whether {@code JavaLangRefAccess.waitForReferenceProcessing} is in reach. */
    private static final boolean WAITS_FOR_REFERENCES;
    /** Whether pages are allocated as allocateDirect does, without its zeroing: all four page hooks are in reach. */
    private static final boolean PAGE_HOOKS;
    /** Whether the management beans are in reach ({@link #managementBeans()}). */
    private static final boolean MANAGEMENT;

    /** Whether this JDK has virtual threads ({@code Thread.isVirtual}, JDK 21 and later). */
    private static final boolean VIRTUAL_THREADS;

    private static final AtomicLong DIRECT_RESERVED; // Bits.RESERVED_MEMORY, may be null
    /** Bits.TOTAL_CAPACITY and Bits.COUNT, for {@link #tryReserve}; null when out of reach (then the JDK's own reserve). */
    private static final AtomicLong DIRECT_CAPACITY;

    private static final AtomicLong DIRECT_COUNT;
    private static final long DIRECT_MAX;
    private static final Throwable FAILURE;
    private static volatile String lastRefusal;
    /** How many times the JDK refused the pools a page or block: when it grows, room they hold empty is worth giving back. */
    private static final AtomicLong PAGE_REFUSALS = new AtomicLong();

    static {
        InternalCalls calls = null;
        Class<?> directBuffer = null;
        boolean waits = false;
        boolean pageHooks = false;
        boolean virtualThreads = false;
        boolean management = false;
        AtomicLong directReserved = null;
        AtomicLong directCapacity = null;
        AtomicLong directCount = null;
        Throwable failure = null;
        try {
            JdkInternals.open();
            if (JdkInternals.openFailure() != null) {
                throw JdkInternals.openFailure();
            }
            Map<String, Method> targets = new HashMap<>();
            Map<Class<?>, Method> receivers = new HashMap<>();
            Class<?> secrets = Class.forName("jdk.internal.access.SharedSecrets");
            Class<?> nioAccess = Class.forName("jdk.internal.access.JavaNioAccess");
            receivers.put(nioAccess, secrets.getMethod("getJavaNioAccess"));
            targets.put("newBuffer", attachingBuffer(nioAccess));

            directBuffer = Class.forName("sun.nio.ch.DirectBuffer");
            targets.put("attachment", directBuffer.getMethod("attachment"));
            targets.put("address", directBuffer.getMethod("address"));

            Class<?> unsafe = Class.forName("jdk.internal.misc.Unsafe");
            receivers.put(unsafe, unsafe.getMethod("getUnsafe"));
            targets.put("setMemory", unsafe.getMethod("setMemory", long.class, long.class, byte.class));
            targets.put("putLong", unsafe.getMethod("putLong", long.class, long.class));
            targets.put("copyMemory", unsafe.getMethod("copyMemory", long.class, long.class, long.class));
            targets.put("invokeCleaner", unsafe.getMethod("invokeCleaner", ByteBuffer.class));
            targets.put("allocateMemory", unsafe.getMethod("allocateMemory", long.class));
            targets.put("freeMemory", unsafe.getMethod("freeMemory", long.class));
            targets.put("maxDirectMemory", Class.forName("jdk.internal.misc.VM").getMethod("maxDirectMemory"));

            Map<String, Method> waiter = referenceWaiter(secrets, receivers);
            Map<String, Method> hooks = pageHooks(nioAccess);
            targets.putAll(waiter);
            targets.putAll(hooks);
            waits = !waiter.isEmpty();
            pageHooks = !hooks.isEmpty();
            Map<String, Method> beans = managementBeans();
            targets.putAll(beans);
            management = !beans.isEmpty();
            Method isVirtual = virtualThreadTest();
            if (isVirtual != null) {
                targets.put("isVirtual", isVirtual);
                virtualThreads = true;
            }
            calls = InternalCalls.compile(targets, receivers);
            // The JDK's own direct buffer path, initialised here, at the first request, while the stack
            // has room: a request the pools give back to the JDK may come at the end of a thread's
            // stack, where a class first initialised then (DirectByteBuffer's Deallocator) fails, and the
            // JVM does not try again: every later allocateDirect of the host would fail with it.
            calls.invokeCleaner(ByteBuffer.allocateDirect(1));
            directReserved = bitsCounter("RESERVED_MEMORY");
            directCapacity = bitsCounter("TOTAL_CAPACITY");
            directCount = bitsCounter("COUNT");
        } catch (Throwable t) {
            calls = null;
            failure = t;
        }
        long directMax = Long.MAX_VALUE;
        try {
            directMax = calls != null ? calls.maxDirectMemory() : DirectMemory.limit();
        } catch (Throwable t) {
            // A full heap here too (the host's, at the agent's start): the pools are out of reach for
            // the run, said so, rather than this class left unusable for every later call.
            calls = null;
            failure = failure != null ? failure : t;
        }
        CALLS = calls;
        DIRECT_MAX = directMax;
        DIRECT_BUFFER = directBuffer;
        WAITS_FOR_REFERENCES = waits;
        PAGE_HOOKS = pageHooks;
        VIRTUAL_THREADS = virtualThreads;
        MANAGEMENT = management;
        DIRECT_RESERVED = directReserved;
        DIRECT_CAPACITY = directReserved != null && directCount != null ? directCapacity : null;
        DIRECT_COUNT = DIRECT_CAPACITY != null ? directCount : null;
        FAILURE = failure;
        Releaser.limitInReach = true;
    }

    private NativeAccess() {}

    /**
     * {@code SharedSecrets.getJavaLangRefAccess()::waitForReferenceProcessing}, as the JDK's own
     * direct memory uses it, with its receiver added to {@code receivers}; empty if out of reach.
     */
    private static Map<String, Method> referenceWaiter(Class<?> secrets, Map<Class<?>, Method> receivers) {
        try {
            Class<?> refAccess = Class.forName("jdk.internal.access.JavaLangRefAccess");
            Map<String, Method> found =
                    Map.of("waitForReferenceProcessing", refAccess.getMethod("waitForReferenceProcessing"));
            receivers.put(refAccess, secrets.getMethod("getJavaLangRefAccess"));
            return found;
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            return Map.of();
        }
    }

    /**
     * {@code JavaNioAccess.reserveMemory} and {@code unreserveMemory}, {@code jdk.internal.ref.Cleaner.create}
     * and {@code clean}: what {@link #allocatePage} needs to allocate as {@code allocateDirect} does;
     * empty if any is out of reach.
     */
    private static Map<String, Method> pageHooks(Class<?> nioAccess) {
        try {
            Class<?> cleaner = Class.forName("jdk.internal.ref.Cleaner");
            return Map.of(
                    "reserveMemory", nioAccess.getMethod("reserveMemory", long.class, long.class),
                    "unreserveMemory", nioAccess.getMethod("unreserveMemory", long.class, long.class),
                    "newCleaner", cleaner.getMethod("create", Object.class, Runnable.class),
                    "clean", cleaner.getMethod("clean"));
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            return Map.of();
        }
    }

    /**
     * {@code sun.management.ManagementFactoryHelper}'s getters of the beans {@link PlatformBeans}
     * reads, when the agent exported that package to itself; empty otherwise.
     */
    private static Map<String, Method> managementBeans() {
        try {
            Module management = MemoryMXBean.class.getModule();
            if (!management.isExported(PlatformBeans.EXPORTED, NativeAccess.class.getModule())) {
                return Map.of();
            }
            Class<?> helper = Class.forName(PlatformBeans.EXPORTED + ".ManagementFactoryHelper");
            return Map.of(
                    "memoryBean", helper.getMethod("getMemoryMXBean"),
                    "memoryPoolBeans", helper.getMethod("getMemoryPoolMXBeans"),
                    "bufferPoolBeans", helper.getMethod("getBufferPoolMXBeans"),
                    "threadBean", helper.getMethod("getThreadMXBean"),
                    "runtimeBean", helper.getMethod("getRuntimeMXBean"));
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            return Map.of();
        }
    }

    /** The JVM's management beans from the internal helper, as plain calls; null when out of reach. */
    static PlatformBeans platformBeans() {
        if (CALLS == null || !MANAGEMENT) {
            return null;
        }
        return new PlatformBeans(
                CALLS.memoryBean(),
                CALLS.memoryPoolBeans(),
                CALLS.bufferPoolBeans(),
                CALLS.threadBean(),
                CALLS.runtimeBean(),
                true);
    }

    /** {@code Thread.isVirtual()}; null before JDK 21. */
    private static Method virtualThreadTest() {
        try {
            return Thread.class.getMethod("isVirtual");
        } catch (NoSuchMethodException e) {
            return null;
        }
    }

    /** Whether {@code t} is a virtual thread; false before JDK 21. Only when {@link #failure()} is null. */
    static boolean isVirtual(Thread t) {
        return VIRTUAL_THREADS && CALLS.isVirtual(t);
    }

    /**
     * {@code JavaNioAccess.newDirectByteBuffer(long address, int capacity, Object attachment, segment)},
     * whatever the segment type: the JDK's constructor of a buffer whose views all hold its attachment.
     */
    private static Method attachingBuffer(Class<?> nioAccess) throws NoSuchMethodException {
        for (Method m : nioAccess.getMethods()) {
            Class<?>[] p = m.getParameterTypes();
            if (m.getName().equals("newDirectByteBuffer")
                    && p.length == 4
                    && p[0] == long.class
                    && p[1] == int.class
                    && p[2] == Object.class
                    && !p[3].isPrimitive()) {
                return m;
            }
        }
        throw new NoSuchMethodException("JavaNioAccess.newDirectByteBuffer(long, int, Object, segment)");
    }

    /** Whether {@link #allocatePage} hands out pages it has not zeroed. */
    static boolean pagesZeroedLazily() {
        return PAGE_HOOKS;
    }

    /**
     * One of the JDK's counts of direct memory ({@code java.nio.Bits}: {@code RESERVED_MEMORY},
     * {@code TOTAL_CAPACITY}, {@code COUNT}), to reserve a page without the JDK's slow refusal; null
     * if out of reach.
     */
    private static AtomicLong bitsCounter(String name) {
        try {
            java.lang.reflect.Field f = Class.forName("java.nio.Bits").getDeclaredField(name);
            f.setAccessible(true);
            return (AtomicLong) f.get(null);
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null;
        }
    }

    /**
     * Waits until the collector's pending references have all been handed to their queues, as the
     * JDK does before it refuses direct memory. Without the internal hook, waits a short while.
     */
    static void awaitReferenceProcessing() {
        try {
            if (!WAITS_FOR_REFERENCES) {
                Thread.sleep(20);
                return;
            }
            for (int i = 0; i < 1000 && CALLS.waitForReferenceProcessing(); i++) {
                Thread.onSpinWait();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Lets the collector's pending references reach their queues, as {@link #awaitReferenceProcessing}
     * does, but only where the JDK's hook is in reach: never sleeps.
     */
    static void processPendingReferences() {
        if (WAITS_FOR_REFERENCES) {
            awaitReferenceProcessing();
        }
    }

    /** How many times the JDK refused a page or block so far. */
    static long pageRefusals() {
        return PAGE_REFUSALS.get();
    }

    /** The JDK's message the last time it refused a page, or null. */
    static String lastRefusal() {
        return lastRefusal;
    }

    /** Null when everything resolved; otherwise what is missing. */
    static Throwable failure() {
        return FAILURE;
    }

    static void requireAvailable() {
        if (FAILURE != null) {
            throw new IllegalStateException(
                    "pools need JDK internals opened to them (the agent does this; without it pass "
                            + String.join(" ", JdkInternals.commandLineFlags()) + "): " + FAILURE,
                    FAILURE);
        }
    }

    /** A zero-capacity buffer: zero-byte requests take no room in any pool. */
    static ByteBuffer emptyBuffer() {
        return newBuffer(EmptyBlock.ADDRESS, 0, null);
    }

    /** The memory behind every zero-capacity buffer: held for the JVM's life, so the address stays valid. */
    private static final class EmptyBlock {
        static final Block BLOCK = allocateBlock(ALIGNMENT);
        static final long ADDRESS = BLOCK.address;
    }

    /** A direct buffer of {@code capacity} bytes at {@code address}; all its views hold {@code attachment}. */
    static ByteBuffer newBuffer(long address, int capacity, Object attachment) {
        return CALLS.newBuffer(address, capacity, attachment);
    }

    /** The attachment of a direct buffer or of any view of one; null for anything else. */
    static Object attachment(Buffer buffer) {
        if (buffer == null || !buffer.isDirect() || !DIRECT_BUFFER.isInstance(buffer)) {
            return null;
        }
        return CALLS.attachment(buffer);
    }

    /** The address of a direct buffer (of its position 0 for a view: where the view starts). */
    static long address(Buffer buffer) {
        return CALLS.address(buffer);
    }

    /** Below this many bytes, filling word by word beats the call into {@code setMemory}. */
    private static final int SMALL_FILL = 512;

    /** Bytes of {@link #ZERO_BLOCK}: small enough to stay in the first-level cache. */
    private static final int ZEROS = 4096;

    /**
     * A block of {@link #ZEROS} zero bytes, never written after it is made, that zeroing copies from
     * (0 when the internals are out of reach). The compiler turns {@code Unsafe.copyMemory} into the
     * JVM's vectorized copy routine, while {@code Unsafe.setMemory} stores a word at a time on JDK 17
     * to 25: copying zeros is about twice as fast from 4 KiB up (BENCHMARKS.md, B1, 2026-12-03).
     */
    private static final long ZERO_BLOCK = zeroBlock();

    private static long zeroBlock() {
        if (CALLS == null) {
            return 0;
        }
        try {
            long raw = CALLS.allocateMemory(ZEROS + ALIGNMENT);
            long aligned = (raw + ALIGNMENT - 1) & -ALIGNMENT;
            CALLS.setMemory(aligned, ZEROS, (byte) 0);
            return aligned;
        } catch (OutOfMemoryError e) {
            return 0;
        }
    }

    /**
     * Fills {@code bytes} bytes at {@code address}, rounded up to a multiple of 8: callers fill
     * slices, whose effective size is a multiple of the alignment, so the rounding stays inside.
     */
    static void fill(long address, long bytes, byte value) {
        if (bytes <= SMALL_FILL) {
            long word = (value & 0xFFL) * 0x0101010101010101L;
            for (int at = 0, end = (int) bytes; at < end; at += 8) { // an int loop: the JIT unrolls it
                CALLS.putLong(address + at, word);
            }
        } else if (value == 0 && ZERO_BLOCK != 0) {
            for (long done = 0; done < bytes; done += ZEROS) {
                CALLS.copyMemory(ZERO_BLOCK, address + done, Math.min(ZEROS, bytes - done));
            }
        } else {
            CALLS.setMemory(address, bytes, value);
        }
    }

    /**
     * A fresh, zero-filled block of at least {@code bytes} bytes whose {@link Block#address} is
     * aligned to {@link #ALIGNMENT}; null when the JDK refuses the memory.
     */
    /** Bytes of the blocks {@link #allocateBlock} handed out and {@link #free} did not take back; for tests. */
    private static final LongAdder BLOCK_BYTES = new LongAdder();

    static long blockBytesHeld() {
        return BLOCK_BYTES.sum();
    }

    static Block allocateBlock(int bytes) {
        if (overLimit(bytes)) {
            return null;
        }
        ByteBuffer memory;
        long size = bytes + (long) ALIGNMENT - 1;
        try {
            memory = ByteBuffer.allocateDirect(Math.toIntExact(size));
        } catch (OutOfMemoryError | ArithmeticException e) {
            PAGE_REFUSALS.incrementAndGet();
            lastRefusal = e.getMessage();
            return null;
        }
        long raw = address(memory);
        long aligned = (raw + ALIGNMENT - 1) & -ALIGNMENT;
        Block block = new Block(memory, aligned, bytes, true);
        if (PAGE_HOOKS) {
            // Its share counted off once, by free or when the collector finds the block dropped (the JDK's
            // own cleaner then frees it): a share left counted would make every later outside read low.
            block.cleaner = CALLS.newCleaner(memory, new PageShare(size));
            PAGE_DIRECT.addAndGet(size); // after the JDK counted it: see PAGE_DIRECT
        }
        BLOCK_BYTES.add(bytes);
        return block;
    }

    /**
     * The direct memory the pools' pages hold as the JDK counts it (their alignment included): raised
     * just after the JDK's count as a page is reserved, lowered just before it as one is freed, so that
     * it is never above the pages' share of the JDK's count, and the outside read from it errs high.
     */
    private static final AtomicLong PAGE_DIRECT = new AtomicLong();

    /** How many times {@link #directOutsidePages} reads again when a page came or went meanwhile. */
    private static final int OUTSIDE_READS = 16;

    /**
     * The JDK's direct memory outside the pools' pages now: {@code jdkDirect} (its count) read between
     * two reads of the pages' share that agree, so that no page came or went in between; -1 when
     * {@code jdkDirect} gives -1. Before, the pools' figure came from their reports, taken before the
     * JDK's count: a page reserved in between counted as outside.
     */
    /** {@link #directOutsidePages} by the JDK's own count; -1 where that is out of reach. */
    static long directOutsidePagesNow() {
        AtomicLong reserved = DIRECT_RESERVED;
        return reserved == null ? -1 : directOutsidePages(reserved::get);
    }

    static long directOutsidePages(LongSupplier jdkDirect) {
        long direct = -1;
        long pages = 0;
        for (int i = 0; i < OUTSIDE_READS; i++) {
            pages = PAGE_DIRECT.get();
            direct = jdkDirect.getAsLong();
            if (PAGE_DIRECT.get() == pages) {
                break;
            }
        }
        return direct < 0 ? -1 : Math.max(0, direct - pages);
    }

    /**
     * At the direct memory limit the JDK collects and sleeps for up to half a second before it
     * refuses; the pools' own exhaustion path (release what is queued, then collect) does better.
     */
    private static boolean overLimit(int bytes) {
        if (DIRECT_RESERVED != null && DIRECT_RESERVED.get() + bytes + ALIGNMENT > DIRECT_MAX) {
            PAGE_REFUSALS.incrementAndGet();
            lastRefusal = "the direct memory limit: " + DIRECT_RESERVED.get() + " of " + DIRECT_MAX
                    + " B reserved (-XX:MaxDirectMemorySize)";
            return true;
        }
        return false;
    }

    /**
     * Reserves {@code size} bytes of direct memory for a page, as the JDK's {@code Bits.tryReserveMemory}
     * does (JDK 17 to 25): against the limit, without the collection and the half second of sleeps
     * with which {@code Bits.reserveMemory} refuses. A page is reserved under its pool's lock: those
     * sleeps held it, and the release thread with it. Where the JDK's counts are out of reach, its own
     * reserve. False when refused (counted, and said by {@link #lastRefusal}).
     */
    private static boolean tryReserve(long size) {
        AtomicLong capacity = DIRECT_CAPACITY;
        if (capacity == null) {
            try {
                CALLS.reserveMemory(size, size);
                return true;
            } catch (OutOfMemoryError e) {
                PAGE_REFUSALS.incrementAndGet();
                lastRefusal = e.getMessage();
                return false;
            }
        }
        long total;
        while (size <= DIRECT_MAX - (total = capacity.get())) {
            if (capacity.compareAndSet(total, total + size)) {
                DIRECT_RESERVED.addAndGet(size);
                DIRECT_COUNT.incrementAndGet();
                return true;
            }
        }
        PAGE_REFUSALS.incrementAndGet();
        lastRefusal = "the direct memory limit: " + capacity.get() + " of " + DIRECT_MAX
                + " B reserved (-XX:MaxDirectMemorySize)";
        return false;
    }

    /**
     * Whether {@code ByteBuffer.allocateDirect(bytes)} would fit under the direct memory limit now,
     * without the JDK's collection; true when the JDK's counts are out of reach.
     */
    static boolean fitsUnderLimit(int bytes) {
        return DIRECT_RESERVED == null || DIRECT_RESERVED.get() + bytes <= DIRECT_MAX;
    }

    /**
     * Whether less than an eighth of the direct memory limit is left unreserved, where a request of
     * anyone's (the JDK's own temporary buffers, a library the layout does not intercept) may be
     * refused while the pools hold empty pages; false when the JDK's counts are out of reach.
     */
    static boolean nearLimit() {
        return DIRECT_RESERVED != null && DIRECT_MAX - DIRECT_RESERVED.get() < DIRECT_MAX / 8;
    }

    /** For tests: a byte written over every fresh page before the pool gets it (as recycled memory can hold anything); -1 for none. */
    private static volatile int freshPageFill = -1;

    static void fillFreshPages(int value) {
        freshPageFill = value;
    }

    /**
     * A page of at least {@code bytes} bytes whose {@link Block#address} is aligned to
     * {@link #ALIGNMENT}, reserved against the direct memory limit as {@code allocateDirect}
     * reserves; not zeroed ({@link Block#zeroed} says which) when {@link #pagesZeroedLazily()}.
     * Null when the JDK refuses the memory.
     */
    static Block allocatePage(int bytes) {
        if (!PAGE_HOOKS) {
            return allocateBlock(bytes);
        }
        if (overLimit(bytes)) {
            return null;
        }
        long size = bytes + (long) ALIGNMENT - 1;
        long raw;
        if (!tryReserve(size)) {
            return null;
        }
        PAGE_DIRECT.addAndGet(size);
        try {
            raw = CALLS.allocateMemory(size);
        } catch (OutOfMemoryError e) {
            PAGE_DIRECT.addAndGet(-size);
            CALLS.unreserveMemory(size, size);
            PAGE_REFUSALS.incrementAndGet();
            lastRefusal = e.getMessage();
            return null;
        } catch (RuntimeException e) {
            PAGE_DIRECT.addAndGet(-size);
            CALLS.unreserveMemory(size, size);
            throw e;
        }
        long aligned = (raw + ALIGNMENT - 1) & -ALIGNMENT;
        Block block = new Block(null, aligned, bytes, false);
        try {
            block.cleaner = CALLS.newCleaner(block, new PageMemory(raw, size));
        } catch (RuntimeException | Error e) {
            new PageMemory(raw, size).run();
            throw e;
        }
        BLOCK_BYTES.add(bytes);
        int fill = freshPageFill;
        if (fill >= 0) {
            fill(aligned, bytes, (byte) fill);
        }
        return block;
    }

    /**
     * Frees a page's memory and its reservation: run once, by {@link #free} or, for a page dropped
     * without it, by the reference handler. Never throws: the JDK's cleaner would end the JVM.
     */
    private static final class PageMemory implements Runnable {
        private final long raw;
        private final long size;

        PageMemory(long raw, long size) {
            this.raw = raw;
            this.size = size;
        }

        @Override
        public void run() {
            try {
                PAGE_DIRECT.addAndGet(-size);
                CALLS.freeMemory(raw);
                CALLS.unreserveMemory(size, size);
            } catch (Throwable t) {
                System.err.println("pools: freeing a page failed: " + t);
            }
        }
    }

    /** Counts a block of {@link #allocateBlock} off the pages' share of the JDK's direct memory; run once. */
    private static final class PageShare implements Runnable {
        private final long size;

        PageShare(long size) {
            this.size = size;
        }

        @Override
        public void run() {
            PAGE_DIRECT.addAndGet(-size);
        }
    }

    /** Gives a block's memory back to the JDK now. */
    static void free(Block block) {
        if (block.memory != null) {
            if (block.cleaner != null) {
                CALLS.clean(block.cleaner); // its share first: see PAGE_DIRECT
            }
            CALLS.invokeCleaner(block.memory);
        } else {
            CALLS.clean(block.cleaner);
        }
        BLOCK_BYTES.add(-block.size);
    }

    /**
     * Takes {@code bytes} from the C heap and gives them back at once, untouched (no page of it is
     * faulted in); see {@link MallocThresholds} for why.
     */
    static void mallocAndFree(long bytes) {
        try {
            CALLS.freeMemory(CALLS.allocateMemory(bytes));
        } catch (OutOfMemoryError e) {
            // Nothing was taken; nothing to give back.
        }
    }

    /** One piece of memory from the JDK: the owning buffer keeps it alive until {@link #free}. */
    static final class Block {
        /** The buffer that owns the memory, for a block from {@code allocateDirect}; null for a page of {@link #allocatePage}. */
        final ByteBuffer memory;
        /**
         * The JDK's internal cleaner that frees a page of {@link #allocatePage}, or that counts a block of {@link
         * #allocateBlock} off {@link #PAGE_DIRECT}; set once, just after construction.
         */
        Object cleaner;

        final long address;
        final int size;
        /** Whether the whole block was zero when it was handed out. */
        final boolean zeroed;

        Block(ByteBuffer memory, long address, int size, boolean zeroed) {
            this.memory = memory;
            this.address = address;
            this.size = size;
            this.zeroed = zeroed;
        }
    }
}
