package dev.pools.hosts;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import net.bytebuddy.jar.asm.ClassReader;
import net.bytebuddy.jar.asm.ClassVisitor;
import net.bytebuddy.jar.asm.ClassWriter;
import net.bytebuddy.jar.asm.FieldVisitor;
import net.bytebuddy.jar.asm.MethodVisitor;
import net.bytebuddy.jar.asm.Opcodes;
import net.bytebuddy.jar.asm.Type;

/**
 * Adds the {@link HostClass.MethodHook}s of one host class. Before each normal return of a hooked
 * method (a real one: bridges, abstract, native and static methods are left alone), or at its start
 * for a hook {@code atEntry}:
 *
 * <pre>
 *   [the return value, with passesResult]
 *   aload_0; getfield arg1   ...   aload_0; getfield argN
 *   invokestatic hook           (with passesResult, its result is what the method returns)
 * </pre>
 *
 * No local variable or branch is added, so the method's stack map frames stay valid as they are
 * (a call at entry comes before the first frame, which holds only the arguments); its max stack
 * grows by the size of the arguments. A method that throws never reaches a hook before its returns:
 * its buffer stays with the collector, the backstop for every buffer.
 *
 * <p>Before any change, the class's shape is checked against the declaration: every hooked method
 * exists, every field a hook reads is declared by the class or read by its own code with that
 * descriptor (an inherited field). A class of another shape (another framework version) is left
 * as it is.
 */
final class MethodHooks {

    private MethodHooks() {}

    /** What of the declared shape is missing from the class for {@code hooks}; null when it all fits. */
    static String missing(byte[] classFile, HostClass declared, List<HostClass.MethodHook> hooks) {
        Set<String> fields = new HashSet<>();
        Set<String> methods = new HashSet<>();
        String self = declared.name();
        new ClassReader(classFile)
                .accept(
                        new ClassVisitor(Opcodes.ASM9) {
                            @Override
                            public FieldVisitor visitField(
                                    int access, String name, String descriptor, String signature, Object value) {
                                fields.add(name + ":" + descriptor);
                                return null;
                            }

                            @Override
                            public MethodVisitor visitMethod(
                                    int access, String name, String descriptor, String signature, String[] exceptions) {
                                if ((access
                                                & (Opcodes.ACC_BRIDGE
                                                        | Opcodes.ACC_ABSTRACT
                                                        | Opcodes.ACC_NATIVE
                                                        | Opcodes.ACC_STATIC))
                                        == 0) {
                                    methods.add(name + descriptor);
                                }
                                return new MethodVisitor(Opcodes.ASM9) {
                                    @Override
                                    public void visitFieldInsn(
                                            int opcode, String owner, String name, String descriptor) {
                                        if (opcode == Opcodes.GETFIELD && owner.equals(self)) {
                                            fields.add(name + ":" + descriptor);
                                        }
                                    }
                                };
                            }
                        },
                        ClassReader.SKIP_DEBUG | ClassReader.SKIP_FRAMES);
        for (HostClass.Field f : declared.fields()) {
            if (!f.isThis() && !fields.contains(f.name() + ":" + f.descriptor())) {
                return "no field " + f.name() + " of type "
                        + Type.getType(f.descriptor()).getClassName();
            }
        }
        for (HostClass.MethodHook h : hooks) {
            if (!methods.contains(h.method())) {
                return "no method " + h.method();
            }
        }
        return null;
    }

    /** The class with {@code hooks}. The caller has checked its shape ({@link #missing}). */
    static byte[] apply(byte[] classFile, HostClass declared, List<HostClass.MethodHook> hooks) {
        ClassReader reader = new ClassReader(classFile);
        ClassWriter writer = new ClassWriter(reader, 0);
        reader.accept(
                new ClassVisitor(Opcodes.ASM9, writer) {
                    @Override
                    public MethodVisitor visitMethod(
                            int access, String name, String descriptor, String signature, String[] exceptions) {
                        MethodVisitor next = super.visitMethod(access, name, descriptor, signature, exceptions);
                        boolean real = (access
                                        & (Opcodes.ACC_BRIDGE
                                                | Opcodes.ACC_SYNTHETIC
                                                | Opcodes.ACC_ABSTRACT
                                                | Opcodes.ACC_NATIVE
                                                | Opcodes.ACC_STATIC))
                                == 0;
                        if (!real) {
                            return next;
                        }
                        MethodVisitor hooked = next;
                        for (HostClass.MethodHook h : hooks) {
                            if (h.method().equals(name + descriptor)) {
                                hooked = new Hook(hooked, declared.name(), h);
                            }
                        }
                        return hooked;
                    }
                },
                0);
        return writer.toByteArray();
    }

    /** The calls in one method. */
    private static final class Hook extends MethodVisitor {
        private final String owner;
        private final HostClass.MethodHook hook;
        private final int extraStack;

        Hook(MethodVisitor next, String owner, HostClass.MethodHook hook) {
            super(Opcodes.ASM9, next);
            this.owner = owner;
            this.hook = hook;
            int slots = 0;
            for (HostClass.Field f : hook.args()) {
                slots += Type.getType(f.descriptor()).getSize();
            }
            this.extraStack = Math.max(slots, 1);
        }

        @Override
        public void visitCode() {
            super.visitCode();
            if (hook.atEntry()) {
                call();
            }
        }

        @Override
        public void visitInsn(int opcode) {
            boolean returns = hook.passesResult() ? opcode == Opcodes.ARETURN : opcode == Opcodes.RETURN;
            if (returns && !hook.atEntry()) {
                call();
            }
            super.visitInsn(opcode);
        }

        private void call() {
            for (HostClass.Field f : hook.args()) {
                super.visitVarInsn(Opcodes.ALOAD, 0);
                if (!f.isThis()) {
                    super.visitFieldInsn(Opcodes.GETFIELD, owner, f.name(), f.descriptor());
                }
            }
            super.visitMethodInsn(Opcodes.INVOKESTATIC, hook.owner(), hook.name(), hook.descriptor(), false);
        }

        @Override
        public void visitMaxs(int maxStack, int maxLocals) {
            super.visitMaxs(maxStack + extraStack + 1, maxLocals);
        }
    }
}
