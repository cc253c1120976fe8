package dev.pools.hosts;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.pools.memory.CallSites;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;
import net.bytebuddy.jar.asm.ClassReader;
import net.bytebuddy.jar.asm.ClassVisitor;
import net.bytebuddy.jar.asm.ClassWriter;
import net.bytebuddy.jar.asm.MethodVisitor;
import net.bytebuddy.jar.asm.Opcodes;
import org.junit.jupiter.api.Test;

/**
 * The rewriter decodes only the methods whose code may hold the call; on real class files (the
 * JDK's own callers of {@code allocateDirect}) it must substitute exactly what decoding every method does.
 */
class CallSiteRewriterTest {

    /** Every class file of the running JDK that names allocateDirect, by name. */
    private static Map<String, byte[]> jdkCallers() throws IOException {
        Map<String, byte[]> found = new TreeMap<>();
        for (byte[] b : jdkClassFiles().values()) {
            if (CallSiteRewriter.mayCall(b)) {
                found.put(new ClassReader(b).getClassName(), b);
            }
        }
        return found;
    }

    /** Every class file of the running JDK (module-info apart), by its path in the image. */
    private static Map<String, byte[]> jdkClassFiles() throws IOException {
        Map<String, byte[]> found = new TreeMap<>();
        FileSystem jrt = FileSystems.getFileSystem(URI.create("jrt:/"));
        try (Stream<Path> files = Files.walk(jrt.getPath("/modules"))) {
            for (Path p : (Iterable<Path>) files::iterator) {
                String name = p.toString();
                if (name.endsWith(".class") && !name.endsWith("module-info.class")) {
                    found.put(name, Files.readAllBytes(p));
                }
            }
        }
        return found;
    }

    /** Per method (name and descriptor): how many calls to the pools' entry point and to allocateDirect it makes. */
    private static Map<String, List<Integer>> calls(byte[] classFile) {
        Map<String, List<Integer>> calls = new TreeMap<>();
        new ClassReader(classFile)
                .accept(
                        new ClassVisitor(Opcodes.ASM9) {
                            @Override
                            public MethodVisitor visitMethod(
                                    int access, String name, String descriptor, String signature, String[] ex) {
                                List<Integer> counts = new ArrayList<>(List.of(0, 0));
                                calls.put(name + descriptor, counts);
                                return new MethodVisitor(Opcodes.ASM9) {
                                    @Override
                                    public void visitMethodInsn(
                                            int opcode, String owner, String method, String desc, boolean itf) {
                                        if (method.equals(CallSiteRewriter.NAME)) {
                                            int which = owner.equals(CallSiteRewriter.RUNTIME) ? 0 : 1;
                                            counts.set(which, counts.get(which) + 1);
                                        }
                                    }
                                };
                            }
                        },
                        0);
        return calls;
    }

    private static List<String> names(CallSites sites) {
        List<String> names = new ArrayList<>();
        for (int id = 1; !sites.name(id).equals(sites.name(0)); id++) {
            names.add(sites.name(id));
        }
        return names;
    }

    @Test
    void on_the_jdks_own_callers_it_substitutes_what_decoding_every_method_does() throws Exception {
        Map<String, byte[]> callers = jdkCallers();
        int substituted = 0;
        for (Map.Entry<String, byte[]> e : callers.entrySet()) {
            String name = e.getKey();
            byte[] in = e.getValue();
            CallSites quick = new CallSites();
            CallSites every = new CallSites();
            byte[] fast = CallSiteRewriter.rewrite(in, name, quick);
            byte[] reference = CallSiteRewriter.rewrite(in, name, every, true);
            assertEquals(calls(reference), calls(fast), name);
            assertEquals(names(every), names(quick), name + ": the same call sites, in the same order");
            Set<String> decoded = CallSiteRewriter.methodsThatMayCall(new ClassReader(in));
            for (Map.Entry<String, List<Integer>> m : calls(reference).entrySet()) {
                if (m.getValue().get(0) > 0) {
                    assertTrue(decoded.contains(m.getKey()), name + "." + m.getKey() + " calls it: it is decoded");
                }
                assertEquals(0, m.getValue().get(1), name + "." + m.getKey() + " keeps no call to allocateDirect");
            }
            if (reference == in) {
                assertSame(in, fast, name + " has no call (the name is only a string): it is left as it is");
            }
            substituted += names(every).size();
        }
        // The JDK calls allocateDirect from sun.nio.ch and elsewhere: a corpus of real class files.
        assertTrue(substituted >= 3, "call sites found in the JDK: " + substituted + " in " + callers.keySet());
    }

    /**
     * The pre-check, on every class file of the running JDK: it passes every class with a call to
     * allocateDirect (ASM's decoding says which), and a class it passes holds the name's bytes. A class
     * file cut short, or with a constant of a tag it does not know, passes, without an exception.
     */
    @Test
    void the_pre_check_passes_every_caller_of_the_jdk_and_whatever_it_cannot_walk() throws Exception {
        byte[] name = CallSiteRewriter.NAME.getBytes(StandardCharsets.US_ASCII);
        int classes = 0;
        int passed = 0;
        int callers = 0;
        byte[] some = null;
        for (Map.Entry<String, byte[]> f : jdkClassFiles().entrySet()) {
            String file = f.getKey();
            byte[] b = f.getValue();
            classes++;
            boolean may = CallSiteRewriter.mayCall(b);
            boolean calls = calls(b).values().stream().anyMatch(c -> c.get(1) > 0);
            if (calls) {
                callers++;
                assertTrue(may, file + " calls allocateDirect");
            }
            if (may) {
                passed++;
                assertTrue(contains(b, name), file + " passed without the name's bytes");
            }
            if (some == null && b.length > 64) {
                some = b;
            }
        }
        assertTrue(callers >= 3 && passed >= callers && passed < classes / 10, callers + " " + passed + " " + classes);
        for (int cut : new int[] {9, 11, 40, some.length / 2}) {
            assertTrue(CallSiteRewriter.mayCall(Arrays.copyOf(some, cut)), "cut at " + cut);
        }
        byte[] unknownTag = some.clone();
        unknownTag[10] = 2; // no constant has tag 2
        assertTrue(CallSiteRewriter.mayCall(unknownTag));
    }

    private static boolean contains(byte[] b, byte[] part) {
        outer:
        for (int i = 0; i + part.length <= b.length; i++) {
            for (int j = 0; j < part.length; j++) {
                if (b[i + j] != part[j]) {
                    continue outer;
                }
            }
            return true;
        }
        return false;
    }

    /** The start-up warm-up rewrites the class it makes: ASM's classes are then loaded off the main thread. */
    @Test
    void the_warm_up_substitutes_its_own_call() {
        assertTrue(CallSiteRewriter.warmUp());
    }

    /** A class with one static method that calls allocateDirect, its max_stack as given. */
    private static byte[] callerWithMaxStack(int maxStack) {
        ClassWriter w = new ClassWriter(0);
        w.visit(Opcodes.V1_8, Opcodes.ACC_PUBLIC | Opcodes.ACC_SUPER, "x/Deep", null, "java/lang/Object", null);
        MethodVisitor m =
                w.visitMethod(Opcodes.ACC_PUBLIC | Opcodes.ACC_STATIC, "alloc", "(I)Ljava/nio/ByteBuffer;", null, null);
        m.visitCode();
        m.visitVarInsn(Opcodes.ILOAD, 0);
        m.visitMethodInsn(
                Opcodes.INVOKESTATIC,
                CallSiteRewriter.OWNER,
                CallSiteRewriter.NAME,
                CallSiteRewriter.DESCRIPTOR,
                false);
        m.visitInsn(Opcodes.ARETURN);
        m.visitMaxs(maxStack, 1);
        m.visitEnd();
        w.visitEnd();
        return w.toByteArray();
    }

    /**
     * A method whose max_stack is already the largest a class file allows cannot take the site's id
     * on its stack: the rewrite refuses (the class is then left as it is, said once), where it wrote
     * 65536 into two bytes, 0, and the class failed to verify.
     */
    @Test
    void a_method_at_the_largest_max_stack_is_refused_not_written_with_a_max_stack_of_zero() {
        byte[] fits = CallSiteRewriter.rewrite(callerWithMaxStack(0xFFFE), "x/Deep", new CallSites());
        int[] maxStack = {-1};
        new ClassReader(fits)
                .accept(
                        new ClassVisitor(Opcodes.ASM9) {
                            @Override
                            public MethodVisitor visitMethod(
                                    int access, String name, String descriptor, String signature, String[] ex) {
                                return new MethodVisitor(Opcodes.ASM9) {
                                    @Override
                                    public void visitMaxs(int stack, int locals) {
                                        maxStack[0] = stack;
                                    }
                                };
                            }
                        },
                        0);
        assertEquals(0xFFFF, maxStack[0]);
        IllegalStateException e = assertThrows(
                IllegalStateException.class,
                () -> CallSiteRewriter.rewrite(callerWithMaxStack(0xFFFF), "x/Deep", new CallSites()));
        assertTrue(e.getMessage().contains("max_stack"), e.getMessage());
    }
}
