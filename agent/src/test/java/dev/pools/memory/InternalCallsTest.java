package dev.pools.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Method;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The JDK internals' calls, compiled to plain bytecode: each kind of target is reached as written
 * (a static method, an instance method on a receiver read once, an instance method on the first
 * argument, through a class or an interface), a call whose target is missing is left out, and
 * {@link NativeAccess}'s own calls reach the JDK as they did through method handles.
 */
class InternalCallsTest {

    @Test
    void each_kind_of_target_is_called_with_the_arguments_given() throws Exception {
        AtomicInteger ran = new AtomicInteger();
        InternalCalls calls = InternalCalls.compile(
                Map.of(
                        // static, with a long argument and result
                        "allocateMemory", Long.class.getMethod("reverse", long.class),
                        // on a receiver read once by a static getter (a class, invokevirtual)
                        "waitForReferenceProcessing", FileSystem.class.getMethod("isOpen"),
                        // on the first argument, cast to a class
                        "attachment", String.class.getMethod("trim"),
                        // on the first argument, cast to an interface
                        "clean", Runnable.class.getMethod("run"),
                        // static, with two arguments of two slots, its result dropped
                        "putLong", Math.class.getMethod("multiplyHigh", long.class, long.class)),
                Map.of(FileSystem.class, FileSystems.class.getMethod("getDefault")));

        assertEquals(Long.reverse(12345L), calls.allocateMemory(12345L));
        assertTrue(calls.waitForReferenceProcessing());
        assertEquals("a b", calls.attachment("  a b "));
        calls.clean((Runnable) ran::incrementAndGet);
        assertEquals(1, ran.get());
        calls.putLong(1L << 40, 1L << 40);
        assertThrows(ClassCastException.class, () -> calls.attachment(42));
    }

    @Test
    void a_call_without_a_target_is_left_out_and_the_others_still_work() throws Exception {
        InternalCalls calls =
                InternalCalls.compile(Map.of("allocateMemory", Long.class.getMethod("reverse", long.class)), Map.of());
        assertEquals(Long.reverse(7L), calls.allocateMemory(7L));
        assertThrows(AbstractMethodError.class, () -> calls.freeMemory(7L));
    }

    @Test
    void a_target_whose_shape_does_not_fit_the_call_is_refused() throws Exception {
        for (Method unfit : List.of(
                Runtime.class.getMethod("availableProcessors"), // no receiver: the call's first argument is a long
                Math.class.getMethod("abs", long.class), // static, but fewer arguments than the call's two
                Math.class.getMethod("floorMod", int.class, int.class))) { // ints where the call passes longs
            assertThrows(
                    NoSuchMethodException.class,
                    () -> InternalCalls.compile(Map.of("reserveMemory", unfit), Map.of()),
                    unfit.toString());
        }
        Method givesString = String.class.getMethod("valueOf", long.class); // a String where the call returns a long
        assertThrows(
                NoSuchMethodException.class,
                () -> InternalCalls.compile(Map.of("allocateMemory", givesString), Map.of()));
        Method reverse = Long.class.getMethod("reverse", long.class);
        assertThrows(
                IllegalArgumentException.class,
                () -> InternalCalls.compile(Map.of("allocateMemroy", reverse), Map.of()),
                "a name that is no call");
        assertThrows(
                NoSuchMethodException.class,
                () -> InternalCalls.compile(
                        Map.of("waitForReferenceProcessing", FileSystem.class.getMethod("isOpen")),
                        Map.of(FileSystem.class, FileSystems.class.getMethod("getFileSystem", URI.class))),
                "a receiver's getter that takes an argument");
    }

    /**
     * A package the agent did not export is refused when the calls are compiled, so that the pools
     * stay off from the start; the call itself would throw {@code IllegalAccessError} at an allocation.
     */
    @Test
    void a_target_in_a_package_not_exported_to_the_agent_is_refused() throws Exception {
        Method notExported =
                Class.forName("jdk.internal.util.random.RandomSupport").getMethod("mixMurmur64", long.class);
        IllegalAccessException e = assertThrows(
                IllegalAccessException.class,
                () -> InternalCalls.compile(Map.of("allocateMemory", notExported), Map.of()));
        assertTrue(e.getMessage().contains("jdk.internal.util.random is not exported"), e.getMessage());
        Method notPublic = NativeAccess.class.getDeclaredMethod("blockBytesHeld");
        assertThrows(
                IllegalAccessException.class,
                () -> InternalCalls.compile(Map.of("maxDirectMemory", notPublic), Map.of()));
    }

    @Test
    void a_virtual_thread_is_told_from_a_platform_thread() throws Exception {
        assertTrue(Threads.isPlatform(Thread.currentThread()));
        Method start;
        try {
            start = Thread.class.getMethod("startVirtualThread", Runnable.class);
        } catch (NoSuchMethodException e) {
            assertTrue(Runtime.version().feature() < 21, "no virtual threads before JDK 21 only");
            return;
        }
        AtomicReference<Boolean> platform = new AtomicReference<>();
        Thread virtual =
                (Thread) start.invoke(null, (Runnable) () -> platform.set(Threads.isPlatform(Thread.currentThread())));
        virtual.join();
        assertEquals(Boolean.FALSE, platform.get(), "a virtual thread keeps no per-thread state");
        assertTrue(NativeAccess.isVirtual(virtual));
    }

    @Test
    void every_call_of_the_pools_reaches_the_jdk() {
        assertNull(NativeAccess.failure(), "the internals resolved: " + NativeAccess.failure());
        assertTrue(NativeAccess.pagesZeroedLazily(), "the page hooks resolved");

        NativeAccess.Block page = NativeAccess.allocatePage(4096);
        assertNotNull(page);
        assertFalse(page.zeroed);
        assertEquals(0, page.address % NativeAccess.ALIGNMENT);
        Object owner = new Object();
        ByteBuffer buffer = NativeAccess.newBuffer(page.address, 4096, owner);
        assertTrue(buffer.isDirect());
        assertEquals(4096, buffer.capacity());
        assertEquals(page.address, NativeAccess.address(buffer));
        for (ByteBuffer view : List.of(buffer, buffer.duplicate(), buffer.slice(64, 128))) {
            assertSame(owner, NativeAccess.attachment(view), "a view holds the attachment");
        }
        assertEquals(page.address + 64, NativeAccess.address(buffer.slice(64, 128)));

        NativeAccess.fill(page.address, 4096, (byte) 0x5A); // setMemory
        NativeAccess.fill(page.address + 64, 64, (byte) 0x11); // putLong, word by word
        assertEquals(0x5A, buffer.get(0));
        assertEquals(0x11, buffer.get(64));
        assertEquals(0x11, buffer.get(127));
        assertEquals(0x5A, buffer.get(128));
        assertEquals(0x5A, buffer.get(4095));

        // zeroing copies from a block of zeros of 4 KiB: here in three copies, the last one short
        NativeAccess.Block wide = NativeAccess.allocatePage(3 * 4096);
        ByteBuffer wideBuffer = NativeAccess.newBuffer(wide.address, 3 * 4096, owner);
        NativeAccess.fill(wide.address, 3 * 4096, (byte) 0x5A);
        int zeroedEnd = 64 + 2 * 4096 + 128;
        NativeAccess.fill(wide.address + 64, zeroedEnd - 64, (byte) 0);
        for (int i = 0; i < 3 * 4096; i++) {
            assertEquals(i >= 64 && i < zeroedEnd ? 0 : 0x5A, wideBuffer.get(i), "byte " + i);
        }
        NativeAccess.free(wide);

        long held = NativeAccess.blockBytesHeld();
        NativeAccess.free(page); // the page's cleaner: freeMemory and unreserveMemory
        assertEquals(held - 4096, NativeAccess.blockBytesHeld());

        NativeAccess.Block block = NativeAccess.allocateBlock(256); // allocateDirect
        assertNotNull(block);
        assertTrue(block.zeroed);
        NativeAccess.free(block); // invokeCleaner
        NativeAccess.mallocAndFree(1 << 20); // allocateMemory and freeMemory
        NativeAccess.awaitReferenceProcessing(); // waitForReferenceProcessing
        assertEquals(0, NativeAccess.emptyBuffer().capacity());
    }
}
