package dev.pools.hosts;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.pools.memory.CallSites;
import java.io.IOException;
import java.net.URI;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;
import net.bytebuddy.jar.asm.ClassReader;
import net.bytebuddy.jar.asm.ClassVisitor;
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
        FileSystem jrt = FileSystems.getFileSystem(URI.create("jrt:/"));
        try (Stream<Path> files = Files.walk(jrt.getPath("/modules"))) {
            for (Path p : (Iterable<Path>) files::iterator) {
                String name = p.toString();
                if (!name.endsWith(".class") || name.endsWith("module-info.class")) {
                    continue;
                }
                byte[] b = Files.readAllBytes(p);
                if (CallSiteRewriter.mayCall(b)) {
                    found.put(new ClassReader(b).getClassName(), b);
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

    /** The start-up warm-up rewrites the class it makes: ASM's classes are then loaded off the main thread. */
    @Test
    void the_warm_up_substitutes_its_own_call() {
        assertTrue(CallSiteRewriter.warmUp());
    }
}
