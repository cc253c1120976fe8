package dev.pools.hosts;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.pools.hosts.onnxruntime.OnnxRuntime;
import dev.pools.memory.CallSites;
import dev.pools.memory.PoolAllocator;
import it.host.Closable;
import it.host.CloseHooks;
import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The transformer on class files: what it changes, and what it never touches. */
class HostTransformerTest {

    private static final HostClass.Field BUFFER = new HostClass.Field("buffer", "Ljava/nio/Buffer;");
    private static final HostClass.Field CLOSED = new HostClass.Field("closed", "Z");

    /** A host class with release hooks, as a host folder would declare one: {@link it.host.Closable}. */
    private static final List<HostClass> CLOSABLE = List.of(new HostClass(
            "it/host/Closable",
            List.of(BUFFER, CLOSED),
            List.of(
                    new HostClass.MethodHook(
                            "close()V",
                            List.of(BUFFER, CLOSED),
                            false,
                            "it/host/CloseHooks",
                            "closed",
                            "(Ljava/nio/Buffer;Z)V"),
                    new HostClass.MethodHook(
                            "bufferRef()Ljava/util/Optional;",
                            List.of(CLOSED),
                            true,
                            "it/host/CloseHooks",
                            "bufferRef",
                            "(Ljava/util/Optional;Z)Ljava/util/Optional;")),
            null));

    /** The same declaration under the name of a class of another shape ({@link ai.onnxruntime.OnnxTensor}'s stand-in). */
    private static final List<HostClass> OTHER_SHAPE = List.of(new HostClass(
            "ai/onnxruntime/OnnxTensor",
            CLOSABLE.get(0).fields(),
            CLOSABLE.get(0).hooks(),
            null));

    /** The loader of the test's classes, which sees the agent's classes (the loader of a host class). */
    private static final ClassLoader LOADER = HostTransformerTest.class.getClassLoader();

    private static byte[] classFile(Class<?> c) throws IOException {
        try (InputStream in = c.getResourceAsStream(c.getSimpleName() + ".class")) {
            assertNotNull(in, c.getName());
            return in.readAllBytes();
        }
    }

    @Test
    void the_agents_own_classes_are_never_rewritten_whatever_the_packages_say() throws Exception {
        HostTransformer t = new HostTransformer(List.of("dev", "it.host"), new CallSites(), OnnxRuntime.CLASSES, true);
        assertFalse(t.intercepts("dev.pools.memory.PoolAllocator"));
        assertFalse(t.intercepts("dev/pools/shaded/asm/ClassReader"));
        assertTrue(t.intercepts("dev.other.Tensors"));
        assertNull(
                t.transform(LOADER, "dev/pools/memory/NativeAccess", null, null, classFile(PoolAllocator.class)),
                "an own class that calls allocateDirect stays as it is");
        assertEquals(0, t.changed(), "nothing changed");
    }

    @Test
    void call_sites_of_allocate_direct_in_an_intercepted_class_are_substituted_and_registered() throws Exception {
        CallSites sites = new CallSites();
        HostTransformer t = new HostTransformer(List.of("it.host"), sites, List.of(), false);
        byte[] out = t.transform(LOADER, "it/host/Tensors", null, null, classFile(it.host.Tensors.class));
        assertNotNull(out, "the class calls allocateDirect: it changes");
        String text = new String(out, StandardCharsets.ISO_8859_1);
        assertTrue(text.contains(CallSiteRewriter.RUNTIME), "calls the pools' entry point");
        assertEquals("it.host.Tensors#allocate", sites.name(1));
        assertEquals(1, t.changed(), "counted as changed");
    }

    @Test
    void a_host_class_of_another_shape_is_named_with_what_it_lacks() throws Exception {
        byte[] stand_in = classFile(ai.onnxruntime.OnnxTensor.class); // a stand-in with a name and another shape
        assertEquals(
                "no field buffer of type java.nio.Buffer",
                MethodHooks.missing(
                        stand_in, OTHER_SHAPE.get(0), OTHER_SHAPE.get(0).hooks()));
        HostTransformer t = new HostTransformer(List.of("ai.onnxruntime"), new CallSites(), OTHER_SHAPE, true);
        byte[] out = t.transform(LOADER, "ai/onnxruntime/OnnxTensor", null, null, stand_in);
        assertNotNull(out, "its allocateDirect call is still substituted");
        assertFalse(new String(out, StandardCharsets.ISO_8859_1).contains("CloseHooks"), "but no hook is added");
    }

    /**
     * Under release: close, a declared hook runs before each normal return with the fields it names,
     * and one that passes the result replaces it. No host folder declares hooks today (neither DJL nor
     * ONNX Runtime gives a close that proves its memory unused); this keeps the mechanism true for one
     * that will.
     */
    @Test
    void a_declared_hook_runs_before_each_return_with_its_fields_and_may_replace_the_result() throws Exception {
        byte[] original = classFile(Closable.class);
        assertNull(
                MethodHooks.missing(original, CLOSABLE.get(0), CLOSABLE.get(0).hooks()));
        Class<?> c = closable(
                MethodHooks.apply(original, CLOSABLE.get(0), CLOSABLE.get(0).hooks()));
        Object o = c.getConstructor().newInstance();
        CloseHooks.CALLS.clear();
        assertTrue(((Optional<?>) c.getMethod("bufferRef").invoke(o)).isPresent());
        c.getMethod("close").invoke(o);
        c.getMethod("close").invoke(o); // the early return
        assertFalse(((Optional<?>) c.getMethod("bufferRef").invoke(o)).isPresent(), "replaced by the hook");
        assertEquals(
                List.of("bufferRef true false", "closed 64 true", "closed 64 true", "bufferRef true true"),
                CloseHooks.CALLS);
    }

    /**
     * A hook at entry runs before the method's own code, with the fields as they are then; beside a
     * hook before the returns of the same method, both run. The keep hooks of DJL's arrays read the
     * buffer this way, before {@code close()} drops it.
     */
    @Test
    void a_hook_at_entry_runs_before_the_methods_own_code_and_beside_one_before_its_returns() throws Exception {
        HostClass declared = new HostClass(
                "it/host/Closable",
                List.of(BUFFER, CLOSED),
                List.of(),
                null,
                List.of(
                        HostClass.MethodHook.atEntry(
                                "close()V",
                                List.of(BUFFER, CLOSED),
                                "it/host/CloseHooks",
                                "closing",
                                "(Ljava/nio/Buffer;Z)V"),
                        CLOSABLE.get(0).hooks().get(0)),
                "nothing, in this test");
        byte[] original = classFile(Closable.class);
        assertNull(MethodHooks.missing(original, declared, declared.keep()));
        Class<?> c = closable(MethodHooks.apply(original, declared, declared.keep()));
        Object o = c.getConstructor().newInstance();
        CloseHooks.CALLS.clear();
        c.getMethod("close").invoke(o);
        c.getMethod("close").invoke(o);
        assertEquals(List.of("closing false", "closed 64 true", "closing true", "closed 64 true"), CloseHooks.CALLS);
    }

    /** A hook at entry passes no result, and a constructor's fields are not set at its entry: refused. */
    @Test
    void a_hook_at_entry_that_passes_a_result_or_sits_in_a_constructor_is_refused() {
        assertThrows(
                IllegalArgumentException.class,
                () -> new HostClass.MethodHook("get()Ljava/lang/Object;", true, List.of(), true, "o", "n", "()V"));
        assertThrows(
                IllegalArgumentException.class,
                () -> HostClass.MethodHook.atEntry("<init>()V", List.of(), "o", "n", "()V"));
    }

    /** {@link Closable} from {@code classFile}, defined by a loader of its own that sees the test's classes. */
    private static Class<?> closable(byte[] classFile) throws ClassNotFoundException {
        ClassLoader alone = new ClassLoader(LOADER) {
            @Override
            protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
                if (name.equals("it.host.Closable")) {
                    synchronized (getClassLoadingLock(name)) {
                        Class<?> c = findLoadedClass(name);
                        return c != null ? c : defineClass(name, classFile, 0, classFile.length);
                    }
                }
                return super.loadClass(name, resolve);
            }
        };
        Class<?> c = alone.loadClass("it.host.Closable");
        assertEquals(alone, c.getClassLoader(), "the hooked copy");
        return c;
    }

    /** The rewriting code is warmed up at the first class of an intercepted package, never before. */
    @Test
    void the_warm_up_starts_with_the_first_intercepted_class() throws Exception {
        HostTransformer t = new HostTransformer(List.of("it.host"), new CallSites(), List.of(), false);
        assertNull(t.transform(LOADER, "java/lang/Object", null, null, classFile(Object.class)));
        assertNull(t.transform(LOADER, "dev/pools/memory/PoolAllocator", null, null, classFile(PoolAllocator.class)));
        assertFalse(t.warming(), "no host class yet");
        t.transform(LOADER, "it/host/Tensors", null, null, classFile(it.host.Tensors.class));
        assertTrue(t.warming());
    }

    /**
     * A host class whose loader does not see the agent's classes (its parent is the platform loader)
     * is left as it is: rewritten, its first allocation would throw {@code NoClassDefFoundError} into
     * the host. A loader that delegates to the agent's is rewritten as before.
     */
    @Test
    void a_class_whose_loader_does_not_see_the_agent_keeps_its_own_allocations() throws Exception {
        HostTransformer t = new HostTransformer(List.of("it.host"), new CallSites(), List.of(), false);
        byte[] tensors = classFile(it.host.Tensors.class);
        URL host = it.host.Tensors.class.getProtectionDomain().getCodeSource().getLocation();
        URL agent = Allocations.class.getProtectionDomain().getCodeSource().getLocation();
        try (URLClassLoader isolated =
                        new URLClassLoader(new URL[] {host, agent}, ClassLoader.getPlatformClassLoader());
                URLClassLoader child = new URLClassLoader(new URL[0], LOADER)) {
            assertFalse(t.seesAgent(isolated, "it/host/Tensors"), "a copy of the agent's classes of its own");
            assertNull(t.transform(isolated, "it/host/Tensors", null, null, tensors), "left as it is");
            assertNull(
                    t.transform(ClassLoader.getPlatformClassLoader(), "it/host/Tensors", null, null, tensors),
                    "a loader that does not find the agent's classes at all");
            assertEquals(0, t.changed(), "nothing changed");
            assertNotNull(t.transform(child, "it/host/Tensors", null, null, tensors), "a loader that delegates");
            assertEquals(1, t.changed());
        }
    }

    /** Under release: close a rewritten class also calls its host folder's hooks: those must resolve too. */
    @Test
    void the_hooks_classes_are_checked_under_release_at_close() throws Exception {
        String hooks = OTHER_SHAPE.get(0).hooks().get(0).owner().replace('/', '.');
        ClassLoader withoutHooks = new ClassLoader(LOADER) {
            @Override
            protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
                if (name.equals(hooks)) {
                    throw new ClassNotFoundException(name);
                }
                return super.loadClass(name, resolve);
            }
        };
        HostTransformer calls = new HostTransformer(List.of("ai.onnxruntime"), new CallSites(), OTHER_SHAPE, false);
        assertTrue(calls.seesAgent(withoutHooks, "ai/onnxruntime/OnnxTensor"), "no hook without release: close");
        HostTransformer hooked = new HostTransformer(List.of("ai.onnxruntime"), new CallSites(), OTHER_SHAPE, true);
        assertFalse(hooked.seesAgent(withoutHooks, "ai/onnxruntime/OnnxTensor"), hooks + " not found");
        assertTrue(hooked.seesAgent(LOADER, "ai/onnxruntime/OnnxTensor"));
    }

    /** A loader of the host's that fails in its own way, even in its toString, is a loader that does not see the agent. */
    @Test
    void a_loader_that_throws_is_left_alone_without_throwing() throws Exception {
        ClassLoader broken = new ClassLoader(LOADER) {
            @Override
            protected Class<?> loadClass(String name, boolean resolve) {
                throw new IllegalStateException("closed");
            }

            @Override
            public String toString() {
                throw new IllegalStateException("no name");
            }
        };
        HostTransformer t = new HostTransformer(List.of("it.host"), new CallSites(), List.of(), false);
        assertNull(t.transform(broken, "it/host/Tensors", null, null, classFile(it.host.Tensors.class)));
        assertFalse(t.seesAgent(broken, "it/host/Tensors"), "remembered");
        assertEquals(0, t.changed());
    }
}
