package dev.pools.memory;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Constructor;
import java.nio.Buffer;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * The few JDK internals the pools stand on, resolved once into method handles.
 *
 * <p>Why each one is needed:
 * <ul>
 *   <li><b>A buffer over an address, with an attachment.</b> A handed-out slice must be a root of
 *       its own: every view of it ({@code asFloatBuffer()}, {@code duplicate()}, {@code slice()})
 *       must keep the slice reserved. {@code DirectByteBuffer(long, int, Object, segment)} makes a
 *       buffer whose views all hold its attachment, so a phantom reference on the attachment fires
 *       only once the buffer and every view of it are unreachable. The constructor is private to
 *       {@code java.nio}; its last parameter's type differs between releases, so it is found by
 *       shape.</li>
 *   <li><b>The attachment and address of any direct buffer or view</b>, through
 *       {@code sun.nio.ch.DirectBuffer}, for an explicit release of a buffer or of one of its views.</li>
 *   <li><b>{@code jdk.internal.misc.Unsafe}</b> to zero and poison memory and to free pages now
 *       rather than when the collector notices ({@code sun.misc.Unsafe}'s memory methods warn on
 *       JDK 24 and later; the internal class does not).</li>
 * </ul>
 *
 * <p>These need {@code java.nio} opened and {@code jdk.internal.misc} and {@code sun.nio.ch} exported
 * to this class's module ({@code jdk.internal.access} too, to wait for reference processing). The agent does that itself with {@code Instrumentation.redefineModule};
 * tests pass the equivalent command-line flags. When they are missing, {@link #failure()} says why
 * and the pools stay off.
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

    private static final MethodHandle NEW_BUFFER; // (long address, int capacity, Object attachment) ByteBuffer
    private static final MethodHandle ATTACHMENT; // (Object directBuffer) Object
    private static final MethodHandle ADDRESS; // (Object directBuffer) long
    private static final MethodHandle SET_MEMORY; // (long address, long bytes, byte value) void
    private static final MethodHandle
            PUT_LONG; // (long address, long value) void: an intrinsic, unlike setMemory on JDK 17
    private static final MethodHandle FREE_BUFFER; // (ByteBuffer page) void
    private static final MethodHandle MALLOC; // (long bytes) long: Unsafe.allocateMemory, the C heap's malloc
    private static final MethodHandle FREE; // (long address) void: Unsafe.freeMemory
    private static final Class<?> DIRECT_BUFFER;
    private static final MethodHandle WAIT_FOR_REFERENCES; // () boolean, may be null
    // Pages allocated as allocateDirect does, without its zeroing; all null if any is out of reach.
    private static final MethodHandle RESERVE; // (long size, long capacity) void: JavaNioAccess.reserveMemory
    private static final MethodHandle UNRESERVE; // (long size, long capacity) void: JavaNioAccess.unreserveMemory
    private static final MethodHandle NEW_CLEANER; // (Object referent, Runnable thunk) Object: the JDK's Cleaner.create
    private static final MethodHandle CLEAN; // (Object cleaner) void: the JDK's internal Cleaner.clean
    private static final AtomicLong DIRECT_RESERVED; // Bits.RESERVED_MEMORY, may be null
    private static final long DIRECT_MAX = DirectMemory.limit();
    private static final Throwable FAILURE;
    private static volatile String lastRefusal;

    static {
        MethodHandle newBuffer = null;
        MethodHandle attachment = null;
        MethodHandle address = null;
        MethodHandle setMemory = null;
        MethodHandle putLong = null;
        MethodHandle freeBuffer = null;
        MethodHandle malloc = null;
        MethodHandle free = null;
        Class<?> directBuffer = null;
        MethodHandle waitForReferences = null;
        MethodHandle[] pageHooks = null;
        AtomicLong directReserved = null;
        Throwable failure = null;
        try {
            JdkInternals.open(); // done already by DIRECT_MAX's initialiser; said again for the reader
            if (JdkInternals.openFailure() != null) {
                throw JdkInternals.openFailure();
            }
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            Class<?> dbb = Class.forName("java.nio.DirectByteBuffer");
            MethodHandles.Lookup nio = MethodHandles.privateLookupIn(dbb, lookup);
            newBuffer = MethodHandles.insertArguments(
                            nio.unreflectConstructor(attachingConstructor(dbb)), 3, (Object) null)
                    .asType(MethodType.methodType(ByteBuffer.class, long.class, int.class, Object.class));

            directBuffer = Class.forName("sun.nio.ch.DirectBuffer");
            attachment = lookup.findVirtual(directBuffer, "attachment", MethodType.methodType(Object.class))
                    .asType(MethodType.methodType(Object.class, Object.class));
            address = lookup.findVirtual(directBuffer, "address", MethodType.methodType(long.class))
                    .asType(MethodType.methodType(long.class, Object.class));

            Class<?> unsafeClass = Class.forName("jdk.internal.misc.Unsafe");
            Object unsafe = lookup.findStatic(unsafeClass, "getUnsafe", MethodType.methodType(unsafeClass))
                    .invoke();
            setMemory = lookup.findVirtual(
                            unsafeClass,
                            "setMemory",
                            MethodType.methodType(void.class, long.class, long.class, byte.class))
                    .bindTo(unsafe);
            putLong = lookup.findVirtual(
                            unsafeClass, "putLong", MethodType.methodType(void.class, long.class, long.class))
                    .bindTo(unsafe);
            freeBuffer = lookup.findVirtual(
                            unsafeClass, "invokeCleaner", MethodType.methodType(void.class, ByteBuffer.class))
                    .bindTo(unsafe);
            malloc = lookup.findVirtual(unsafeClass, "allocateMemory", MethodType.methodType(long.class, long.class))
                    .bindTo(unsafe);
            free = lookup.findVirtual(unsafeClass, "freeMemory", MethodType.methodType(void.class, long.class))
                    .bindTo(unsafe);
            waitForReferences = referenceProcessingWaiter(lookup);
            pageHooks = pageHooks(lookup);
            directReserved = directReserved();
        } catch (Throwable t) {
            failure = t;
        }
        WAIT_FOR_REFERENCES = waitForReferences;
        RESERVE = pageHooks == null ? null : pageHooks[0];
        UNRESERVE = pageHooks == null ? null : pageHooks[1];
        NEW_CLEANER = pageHooks == null ? null : pageHooks[2];
        CLEAN = pageHooks == null ? null : pageHooks[3];
        DIRECT_RESERVED = directReserved;
        NEW_BUFFER = newBuffer;
        ATTACHMENT = attachment;
        ADDRESS = address;
        SET_MEMORY = setMemory;
        PUT_LONG = putLong;
        FREE_BUFFER = freeBuffer;
        MALLOC = malloc;
        FREE = free;
        DIRECT_BUFFER = directBuffer;
        FAILURE = failure;
    }

    private NativeAccess() {}

    /** {@code DirectByteBuffer(long address, int capacity, Object attachment, <segment>)}, whatever the segment type. */
    private static Constructor<?> attachingConstructor(Class<?> dbb) throws NoSuchMethodException {
        for (Constructor<?> c : dbb.getDeclaredConstructors()) {
            Class<?>[] p = c.getParameterTypes();
            if (p.length == 4
                    && p[0] == long.class
                    && p[1] == int.class
                    && p[2] == Object.class
                    && !p[3].isPrimitive()) {
                return c;
            }
        }
        throw new NoSuchMethodException("java.nio.DirectByteBuffer(long, int, Object, segment)");
    }

    /** {@code SharedSecrets.getJavaLangRefAccess()::waitForReferenceProcessing}, as the JDK's own direct memory uses it; null if out of reach. */
    private static MethodHandle referenceProcessingWaiter(MethodHandles.Lookup lookup) {
        try {
            Class<?> secrets = Class.forName("jdk.internal.access.SharedSecrets");
            Class<?> access = Class.forName("jdk.internal.access.JavaLangRefAccess");
            Object refAccess = lookup.findStatic(secrets, "getJavaLangRefAccess", MethodType.methodType(access))
                    .invoke();
            return lookup.findVirtual(access, "waitForReferenceProcessing", MethodType.methodType(boolean.class))
                    .bindTo(refAccess);
        } catch (Throwable t) {
            return null;
        }
    }

    /**
     * {@code JavaNioAccess.reserveMemory} and {@code unreserveMemory}, {@code jdk.internal.ref.Cleaner.create}
     * and {@code clean}: what {@link #allocatePage} needs to allocate as {@code allocateDirect} does; null if
     * any is out of reach.
     */
    private static MethodHandle[] pageHooks(MethodHandles.Lookup lookup) {
        try {
            Class<?> secrets = Class.forName("jdk.internal.access.SharedSecrets");
            Class<?> access = Class.forName("jdk.internal.access.JavaNioAccess");
            Object nioAccess = lookup.findStatic(secrets, "getJavaNioAccess", MethodType.methodType(access))
                    .invoke();
            MethodType sizes = MethodType.methodType(void.class, long.class, long.class);
            Class<?> cleaner = Class.forName("jdk.internal.ref.Cleaner");
            return new MethodHandle[] {
                lookup.findVirtual(access, "reserveMemory", sizes).bindTo(nioAccess),
                lookup.findVirtual(access, "unreserveMemory", sizes).bindTo(nioAccess),
                lookup.findStatic(cleaner, "create", MethodType.methodType(cleaner, Object.class, Runnable.class))
                        .asType(MethodType.methodType(Object.class, Object.class, Runnable.class)),
                lookup.findVirtual(cleaner, "clean", MethodType.methodType(void.class))
                        .asType(MethodType.methodType(void.class, Object.class))
            };
        } catch (Throwable t) {
            return null;
        }
    }

    /** Whether {@link #allocatePage} hands out pages it has not zeroed. */
    static boolean pagesZeroedLazily() {
        return CLEAN != null;
    }

    /** The JDK's count of direct memory reserved, to refuse a page before the JDK's own slow refusal; null if out of reach. */
    private static AtomicLong directReserved() {
        try {
            java.lang.reflect.Field f = Class.forName("java.nio.Bits").getDeclaredField("RESERVED_MEMORY");
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
            if (WAIT_FOR_REFERENCES == null) {
                Thread.sleep(20);
                return;
            }
            for (int i = 0; i < 1000 && (boolean) WAIT_FOR_REFERENCES.invokeExact(); i++) {
                Thread.onSpinWait();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Throwable t) {
            throw new IllegalStateException("cannot wait for reference processing", t);
        }
    }

    /**
     * Lets the collector's pending references reach their queues, as {@link #awaitReferenceProcessing}
     * does, but only where the JDK's hook is in reach: never sleeps.
     */
    static void processPendingReferences() {
        if (WAIT_FOR_REFERENCES != null) {
            awaitReferenceProcessing();
        }
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
        try {
            return (ByteBuffer) NEW_BUFFER.invokeExact(address, capacity, attachment);
        } catch (Throwable t) {
            throw new IllegalStateException("cannot make a direct buffer", t);
        }
    }

    /** The attachment of a direct buffer or of any view of one; null for anything else. */
    static Object attachment(Buffer buffer) {
        if (buffer == null || !buffer.isDirect() || !DIRECT_BUFFER.isInstance(buffer)) {
            return null;
        }
        try {
            return (Object) ATTACHMENT.invokeExact((Object) buffer);
        } catch (Throwable t) {
            throw new IllegalStateException("cannot read a buffer's attachment", t);
        }
    }

    /** The address of a direct buffer (of its position 0 for a view: where the view starts). */
    static long address(Buffer buffer) {
        try {
            return (long) ADDRESS.invokeExact((Object) buffer);
        } catch (Throwable t) {
            throw new IllegalStateException("cannot read a buffer's address", t);
        }
    }

    /** Below this many bytes, filling word by word beats the call into {@code setMemory}. */
    private static final int SMALL_FILL = 512;

    /**
     * Fills {@code bytes} bytes at {@code address}, rounded up to a multiple of 8: callers fill
     * slices, whose effective size is a multiple of the alignment, so the rounding stays inside.
     */
    static void fill(long address, long bytes, byte value) {
        try {
            if (bytes <= SMALL_FILL) {
                long word = (value & 0xFFL) * 0x0101010101010101L;
                for (long at = address, end = address + bytes; at < end; at += 8) {
                    PUT_LONG.invokeExact(at, word);
                }
            } else {
                SET_MEMORY.invokeExact(address, bytes, value);
            }
        } catch (Throwable t) {
            throw new IllegalStateException("cannot fill memory", t);
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
        try {
            memory = ByteBuffer.allocateDirect(Math.addExact(bytes, ALIGNMENT - 1));
        } catch (OutOfMemoryError | ArithmeticException e) {
            lastRefusal = e.getMessage();
            return null;
        }
        long raw = address(memory);
        long aligned = (raw + ALIGNMENT - 1) & -ALIGNMENT;
        BLOCK_BYTES.add(bytes);
        return new Block(memory, aligned, bytes, true);
    }

    /**
     * At the direct memory limit the JDK collects and sleeps for up to half a second before it
     * refuses; the pools' own exhaustion path (release what is queued, then collect) does better.
     */
    private static boolean overLimit(int bytes) {
        if (DIRECT_RESERVED != null && DIRECT_RESERVED.get() + bytes + ALIGNMENT > DIRECT_MAX) {
            lastRefusal = "the direct memory limit: " + DIRECT_RESERVED.get() + " of " + DIRECT_MAX
                    + " B reserved (-XX:MaxDirectMemorySize)";
            return true;
        }
        return false;
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
        if (CLEAN == null) {
            return allocateBlock(bytes);
        }
        if (overLimit(bytes)) {
            return null;
        }
        long size = bytes + (long) ALIGNMENT - 1;
        long raw;
        try {
            RESERVE.invokeExact(size, size);
        } catch (OutOfMemoryError e) {
            lastRefusal = e.getMessage();
            return null;
        } catch (Throwable t) {
            throw new IllegalStateException("cannot reserve direct memory for a page", t);
        }
        try {
            raw = (long) MALLOC.invokeExact(size);
        } catch (Throwable t) {
            unreserve(size);
            if (t instanceof OutOfMemoryError) {
                lastRefusal = t.getMessage();
                return null;
            }
            throw new IllegalStateException("cannot allocate a page", t);
        }
        long aligned = (raw + ALIGNMENT - 1) & -ALIGNMENT;
        Block block = new Block(null, aligned, bytes, false);
        try {
            block.cleaner = (Object) NEW_CLEANER.invokeExact((Object) block, (Runnable) new PageMemory(raw, size));
        } catch (Throwable t) {
            new PageMemory(raw, size).run();
            throw new IllegalStateException("cannot register a page's cleaner", t);
        }
        BLOCK_BYTES.add(bytes);
        int fill = freshPageFill;
        if (fill >= 0) {
            fill(aligned, bytes, (byte) fill);
        }
        return block;
    }

    private static void unreserve(long size) {
        try {
            UNRESERVE.invokeExact(size, size);
        } catch (Throwable t) {
            throw new IllegalStateException("cannot unreserve direct memory", t);
        }
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
                FREE.invokeExact(raw);
                UNRESERVE.invokeExact(size, size);
            } catch (Throwable t) {
                System.err.println("pools: freeing a page failed: " + t);
            }
        }
    }

    /** Gives a block's memory back to the JDK now. */
    static void free(Block block) {
        try {
            if (block.memory != null) {
                FREE_BUFFER.invokeExact(block.memory);
            } else {
                CLEAN.invokeExact(block.cleaner);
            }
            BLOCK_BYTES.add(-block.size);
        } catch (Throwable t) {
            throw new IllegalStateException("cannot free a page", t);
        }
    }

    /**
     * Takes {@code bytes} from the C heap and gives them back at once, untouched (no page of it is
     * faulted in); see {@link MallocThresholds} for why.
     */
    static void mallocAndFree(long bytes) {
        try {
            long address = (long) MALLOC.invokeExact(bytes);
            FREE.invokeExact(address);
        } catch (OutOfMemoryError e) {
            // Nothing was taken; nothing to give back.
        } catch (Throwable t) {
            throw new IllegalStateException("cannot allocate and free " + bytes + " B of native memory", t);
        }
    }

    /** One piece of memory from the JDK: the owning buffer keeps it alive until {@link #free}. */
    static final class Block {
        /** The buffer that owns the memory, for a block from {@code allocateDirect}; null for a page of {@link #allocatePage}. */
        final ByteBuffer memory;
        /** The JDK's internal cleaner that frees a page of {@link #allocatePage}; set once, just after construction. */
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
