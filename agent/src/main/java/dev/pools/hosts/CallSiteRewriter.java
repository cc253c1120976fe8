package dev.pools.hosts;

import dev.pools.memory.CallSites;
import java.nio.charset.StandardCharsets;
import net.bytebuddy.jar.asm.ClassReader;
import net.bytebuddy.jar.asm.ClassVisitor;
import net.bytebuddy.jar.asm.ClassWriter;
import net.bytebuddy.jar.asm.MethodVisitor;
import net.bytebuddy.jar.asm.Opcodes;

/**
 * Call-site substitution (docs/HOSTS.md §3): in one class, every
 * {@code invokestatic java/nio/ByteBuffer.allocateDirect(I)} becomes
 *
 * <pre>
 *   ldc            siteId                     // this class#method, registered now
 *   invokestatic   dev/pools/hosts/Allocations.allocateDirect(II)Ljava/nio/ByteBuffer;
 * </pre>
 *
 * The operand stack grows by one at the call, so each changed method's max stack grows by one;
 * no branch target moves relative to its code, so the stack map frames stay valid as they are.
 */
final class CallSiteRewriter {

    static final String OWNER = "java/nio/ByteBuffer";
    static final String NAME = "allocateDirect";
    static final String DESCRIPTOR = "(I)Ljava/nio/ByteBuffer;";
    static final String RUNTIME = "dev/pools/hosts/Allocations";
    static final String RUNTIME_DESCRIPTOR = "(II)Ljava/nio/ByteBuffer;";

    private static final byte[] NAME_UTF8 = NAME.getBytes(StandardCharsets.US_ASCII);

    private CallSiteRewriter() {}

    /** Cheap pre-check: a class that calls allocateDirect has the name in its constant pool. */
    static boolean mayCall(byte[] classFile) {
        outer:
        for (int i = 0, last = classFile.length - NAME_UTF8.length; i <= last; i++) {
            for (int j = 0; j < NAME_UTF8.length; j++) {
                if (classFile[i + j] != NAME_UTF8[j]) {
                    continue outer;
                }
            }
            return true;
        }
        return false;
    }

    /** The rewritten class, or the same array when it has no call to substitute. */
    static byte[] rewrite(byte[] classFile, String className, CallSites sites) {
        ClassReader reader = new ClassReader(classFile);
        ClassWriter writer = new ClassWriter(reader, 0);
        String javaName = className.replace('/', '.');
        boolean[] changed = {false};
        reader.accept(
                new ClassVisitor(Opcodes.ASM9, writer) {
                    @Override
                    public MethodVisitor visitMethod(
                            int access, String method, String descriptor, String signature, String[] exceptions) {
                        MethodVisitor next = super.visitMethod(access, method, descriptor, signature, exceptions);
                        return new MethodVisitor(Opcodes.ASM9, next) {
                            private boolean substituted;

                            @Override
                            public void visitMethodInsn(
                                    int opcode, String owner, String name, String desc, boolean isInterface) {
                                if (opcode == Opcodes.INVOKESTATIC
                                        && OWNER.equals(owner)
                                        && NAME.equals(name)
                                        && DESCRIPTOR.equals(desc)) {
                                    super.visitLdcInsn(sites.register(javaName + "#" + method));
                                    super.visitMethodInsn(
                                            Opcodes.INVOKESTATIC, RUNTIME, NAME, RUNTIME_DESCRIPTOR, false);
                                    substituted = true;
                                    changed[0] = true;
                                    return;
                                }
                                super.visitMethodInsn(opcode, owner, name, desc, isInterface);
                            }

                            @Override
                            public void visitMaxs(int maxStack, int maxLocals) {
                                super.visitMaxs(substituted ? maxStack + 1 : maxStack, maxLocals);
                            }
                        };
                    }
                },
                0);
        return changed[0] ? writer.toByteArray() : classFile;
    }
}
