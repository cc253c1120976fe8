package dev.pools.hosts;

import dev.pools.agent.AgentLog;
import java.util.List;
import net.bytebuddy.jar.asm.ClassReader;
import net.bytebuddy.jar.asm.ClassVisitor;
import net.bytebuddy.jar.asm.ClassWriter;
import net.bytebuddy.jar.asm.FieldVisitor;
import net.bytebuddy.jar.asm.MethodVisitor;
import net.bytebuddy.jar.asm.Opcodes;

/**
 * {@code release: close} (HOSTS.md §3): slices go back when the tensor that owns them is closed,
 * not when the collector notices.
 *
 * <table>
 *   <caption>Where a tensor lets go of its buffer</caption>
 *   <tr><th>class</th><th>method</th><th>releases</th></tr>
 *   <tr><td>{@code ai.djl.pytorch.engine.PtNDArray}</td><td>{@code close()}</td>
 *       <td>{@code dataRef}, after the native tensor is deleted</td></tr>
 *   <tr><td>{@code ai.djl.pytorch.engine.PtNDArray}</td><td>{@code set(Buffer)}</td>
 *       <td>the {@code dataRef} it replaces</td></tr>
 *   <tr><td>{@code ai.onnxruntime.OnnxTensor}</td><td>{@code close()}</td>
 *       <td>{@code buffer}, on the first close only</td></tr>
 * </table>
 *
 * Each hooked method (a real one: bridges, abstract and native methods are left alone) gets two
 * calls and nothing else:
 *
 * <pre>
 *   aload_0; invokestatic PoolsRuntime.entering(Object)    at the start: notes the buffer the object holds
 *   aload_0; invokestatic PoolsRuntime.leaving(Object)     before each return: releases it if the object let go
 * </pre>
 *
 * No local variable or branch is added, so the method's stack map frames stay valid as they are;
 * its max stack grows by one. A method that throws never reaches {@code leaving}: its buffer stays
 * with the collector, the backstop for every buffer. A release is idempotent. A class whose shape
 * differs from the one expected (another framework version) is left alone, said once.
 */
public final class CloseHooks {

    /** The hooked methods of one class, and the field that holds the buffer. */
    private record Hooked(String className, String field, String fieldDescriptor, List<String> methods) {
    }

    private static final String RUNTIME = "dev/pools/agent/PoolsRuntime";

    private static final List<Hooked> HOOKED = List.of(
            new Hooked("ai/djl/pytorch/engine/PtNDArray", "dataRef", "Ljava/nio/ByteBuffer;",
                    List.of("close()V", "set(Ljava/nio/Buffer;)V")),
            new Hooked("ai/onnxruntime/OnnxTensor", "buffer", "Ljava/nio/Buffer;", List.of("close()V")));

    /** Whether a class (internal name) has release hooks. */
    public boolean hooks(String className) {
        return hooked(className) != null;
    }

    private static Hooked hooked(String className) {
        for (Hooked h : HOOKED) {
            if (h.className.equals(className)) {
                return h;
            }
        }
        return null;
    }

    /** The class with its hooks, or the same bytes when its shape is not the one expected. */
    byte[] apply(String className, byte[] classFile) {
        Hooked h = hooked(className);
        ClassReader reader = new ClassReader(classFile);
        String missing = missing(reader, h);
        if (missing != null) {
            AgentLog.once("close-hook:" + className, "release: close is not available for " + className.replace('/', '.')
                    + " (" + missing + "); its buffers are released by the collector");
            return classFile;
        }
        ClassWriter writer = new ClassWriter(reader, 0);
        reader.accept(new ClassVisitor(Opcodes.ASM9, writer) {
            @Override
            public MethodVisitor visitMethod(int access, String name, String descriptor, String signature, String[] exceptions) {
                MethodVisitor next = super.visitMethod(access, name, descriptor, signature, exceptions);
                boolean real = (access & (Opcodes.ACC_BRIDGE | Opcodes.ACC_SYNTHETIC | Opcodes.ACC_ABSTRACT | Opcodes.ACC_NATIVE
                        | Opcodes.ACC_STATIC)) == 0;
                return real && h.methods.contains(name + descriptor) ? new Hook(next) : next;
            }
        }, 0);
        return writer.toByteArray();
    }

    /** What of the expected shape is missing from the class; null when it all fits. */
    private static String missing(ClassReader reader, Hooked h) {
        boolean[] field = {false};
        java.util.Set<String> methods = new java.util.HashSet<>();
        reader.accept(new ClassVisitor(Opcodes.ASM9) {
            @Override
            public FieldVisitor visitField(int access, String name, String descriptor, String signature, Object value) {
                field[0] |= name.equals(h.field) && descriptor.equals(h.fieldDescriptor);
                return null;
            }

            @Override
            public MethodVisitor visitMethod(int access, String name, String descriptor, String signature, String[] exceptions) {
                if ((access & (Opcodes.ACC_BRIDGE | Opcodes.ACC_ABSTRACT | Opcodes.ACC_NATIVE)) == 0) {
                    methods.add(name + descriptor);
                }
                return null;
            }
        }, ClassReader.SKIP_CODE);
        if (!field[0]) {
            return "no field " + h.field + " of type " + h.fieldDescriptor.substring(1, h.fieldDescriptor.length() - 1).replace('/', '.');
        }
        for (String m : h.methods) {
            if (!methods.contains(m)) {
                return "no method " + m;
            }
        }
        return null;
    }

    /** The two calls in one method. */
    private static final class Hook extends MethodVisitor {
        Hook(MethodVisitor next) {
            super(Opcodes.ASM9, next);
        }

        @Override
        public void visitCode() {
            super.visitCode();
            super.visitVarInsn(Opcodes.ALOAD, 0);
            super.visitMethodInsn(Opcodes.INVOKESTATIC, RUNTIME, "entering", "(Ljava/lang/Object;)V", false);
        }

        @Override
        public void visitInsn(int opcode) {
            if (opcode == Opcodes.RETURN) {
                super.visitVarInsn(Opcodes.ALOAD, 0);
                super.visitMethodInsn(Opcodes.INVOKESTATIC, RUNTIME, "leaving", "(Ljava/lang/Object;)V", false);
            }
            super.visitInsn(opcode);
        }

        @Override
        public void visitMaxs(int maxStack, int maxLocals) {
            super.visitMaxs(Math.max(maxStack, 1) + 1, maxLocals);
        }
    }
}
