package dev.pools.hosts;

import dev.pools.memory.CallSites;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;
import net.bytebuddy.jar.asm.ClassReader;
import net.bytebuddy.jar.asm.ClassVisitor;
import net.bytebuddy.jar.asm.ClassWriter;
import net.bytebuddy.jar.asm.Handle;
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
 *
 * <p>Only the methods whose code holds the bytes of such a call are decoded and written again; the
 * others are copied as they are. A host class is transformed as it loads, before {@code main} has
 * warmed anything up, and the largest (DJL's {@code PtNDArray}) has hundreds of methods and one call.
 */
final class CallSiteRewriter {

    static final String OWNER = "java/nio/ByteBuffer";
    /** The same static method named through the one public subclass: {@code MappedByteBuffer.allocateDirect(n)} compiles so. */
    static final String MAPPED_OWNER = "java/nio/MappedByteBuffer";

    static final String NAME = "allocateDirect";
    static final String DESCRIPTOR = "(I)Ljava/nio/ByteBuffer;";
    static final String RUNTIME = "dev/pools/hosts/Allocations";
    static final String RUNTIME_DESCRIPTOR = "(II)Ljava/nio/ByteBuffer;";
    /** The entry point of a method reference: the site first, captured by the lambda, then the capacity. */
    static final String REFERENCE_NAME = "allocateDirectAt";

    static final String LAMBDA_METAFACTORY = "java/lang/invoke/LambdaMetafactory";
    /** The most a method's max_stack can say (a u2). */
    static final int MAX_STACK = 0xFFFF;

    private static final byte METHOD_HANDLE = 15;

    private static final byte[] NAME_UTF8 = NAME.getBytes(StandardCharsets.US_ASCII);
    private static final byte METHOD_REF = 10;
    private static final byte INTERFACE_METHOD_REF = 11;
    private static final int INVOKESTATIC = 0xB8;

    private CallSiteRewriter() {}

    /**
     * Cheap pre-check: a class that calls allocateDirect has the name as a string of its constant
     * pool. Walks the constant pool's entries and compares only strings of the name's length: about
     * a quarter of the time of a search through all the class file's bytes, for DJL's classes in a
     * fresh JVM, where every class of an intercepted package passes here as it loads. A class file it
     * cannot walk (a tag it does not know, one cut short) may call: the rewriter decides.
     */
    static boolean mayCall(byte[] classFile) {
        try {
            int count = u2(classFile, 8);
            int at = 10;
            for (int i = 1; i < count; i++) {
                switch (classFile[at]) {
                    case 1 -> { // Utf8
                        int length = u2(classFile, at + 1);
                        if (length == NAME_UTF8.length
                                && Arrays.equals(classFile, at + 3, at + 3 + length, NAME_UTF8, 0, length)) {
                            return true;
                        }
                        at += 3 + length;
                    }
                    case 3, 4, 9, 10, 11, 12, 17, 18 -> at += 5; // Integer, Float, the refs, NameAndType, dynamics
                    case 5, 6 -> { // Long, Double: two entries
                        at += 9;
                        i++;
                    }
                    case 7, 8, 16, 19, 20 -> at += 3; // Class, String, MethodType, Module, Package
                    case 15 -> at += 4; // MethodHandle
                    default -> {
                        return true;
                    }
                }
            }
            return false;
        } catch (IndexOutOfBoundsException e) {
            return true;
        }
    }

    private static int u2(byte[] b, int at) {
        return ((b[at] & 0xFF) << 8) | (b[at + 1] & 0xFF);
    }

    /**
     * Rewrites a class made up here, one method with one call, into sites of no one's: ASM's classes
     * are then loaded and their constants resolved before the host's first class needs them. Called
     * off the main thread at start (the main thread spent 10 to 20 ms there at its first host class).
     * Returns whether the call was substituted.
     */
    static boolean warmUp() {
        ClassWriter w = new ClassWriter(0);
        w.visit(Opcodes.V17, Opcodes.ACC_FINAL | Opcodes.ACC_SUPER, "WarmUp", null, "java/lang/Object", null);
        MethodVisitor m = w.visitMethod(Opcodes.ACC_STATIC, "allocate", "(I)Ljava/nio/ByteBuffer;", null, null);
        m.visitCode();
        m.visitVarInsn(Opcodes.ILOAD, 0);
        m.visitMethodInsn(Opcodes.INVOKESTATIC, OWNER, NAME, DESCRIPTOR, false);
        m.visitInsn(Opcodes.ARETURN);
        m.visitMaxs(1, 1);
        m.visitEnd();
        w.visitEnd();
        byte[] classFile = w.toByteArray();
        CallSites scratch = new CallSites();
        return mayCall(classFile)
                && rewrite(classFile, "WarmUp", scratch) != classFile
                && "WarmUp#allocate".equals(scratch.name(1));
    }

    /** The rewritten class, or the same array when it has no call to substitute. */
    static byte[] rewrite(byte[] classFile, String className, CallSites sites) {
        return rewrite(classFile, className, sites, false);
    }

    /** As above; {@code everyMethod} decodes every method, as a test's reference. */
    static byte[] rewrite(byte[] classFile, String className, CallSites sites, boolean everyMethod) {
        ClassReader reader = new ClassReader(classFile);
        Set<String> calling = everyMethod ? null : methodsThatMayCall(reader);
        if (calling != null && calling.isEmpty()) {
            return classFile;
        }
        ClassWriter writer = new ClassWriter(reader, 0);
        String javaName = className.replace('/', '.');
        boolean[] changed = {false};
        reader.accept(
                new ClassVisitor(Opcodes.ASM9, writer) {
                    @Override
                    public MethodVisitor visitMethod(
                            int access, String method, String descriptor, String signature, String[] exceptions) {
                        MethodVisitor next = super.visitMethod(access, method, descriptor, signature, exceptions);
                        if (calling != null && !calling.contains(method + descriptor)) {
                            return next; // the writer's own visitor: the reader copies the method as it is
                        }
                        return new MethodVisitor(Opcodes.ASM9, next) {
                            private boolean substituted;

                            @Override
                            public void visitMethodInsn(
                                    int opcode, String owner, String name, String desc, boolean isInterface) {
                                if (opcode == Opcodes.INVOKESTATIC && isAllocateDirect(owner, name, desc)) {
                                    super.visitLdcInsn(sites.register(javaName + "#" + method));
                                    super.visitMethodInsn(
                                            Opcodes.INVOKESTATIC, RUNTIME, NAME, RUNTIME_DESCRIPTOR, false);
                                    substituted = true;
                                    changed[0] = true;
                                    return;
                                }
                                super.visitMethodInsn(opcode, owner, name, desc, isInterface);
                            }

                            /**
                             * A method reference, {@code ByteBuffer::allocateDirect}: the lambda's
                             * implementation becomes the pools' entry point, with the site's id
                             * pushed here and captured by the lambda as its first argument.
                             */
                            @Override
                            public void visitInvokeDynamicInsn(
                                    String name, String desc, Handle bootstrap, Object... arguments) {
                                // Only the plain metafactory (altMetafactory's may be serializable, whose
                                // deserialization checks the implementation) and nothing captured (a
                                // static method reference captures nothing; the site is then the one).
                                if (LAMBDA_METAFACTORY.equals(bootstrap.getOwner())
                                        && "metafactory".equals(bootstrap.getName())
                                        && desc.startsWith("()")
                                        && arguments.length >= 3
                                        && arguments[1] instanceof Handle h
                                        && h.getTag() == Opcodes.H_INVOKESTATIC
                                        && isAllocateDirect(h.getOwner(), h.getName(), h.getDesc())) {
                                    Object[] changed = arguments.clone();
                                    changed[1] = new Handle(
                                            Opcodes.H_INVOKESTATIC, RUNTIME, REFERENCE_NAME, RUNTIME_DESCRIPTOR, false);
                                    super.visitLdcInsn(sites.register(javaName + "#" + method));
                                    super.visitInvokeDynamicInsn(name, "(I" + desc.substring(1), bootstrap, changed);
                                    substituted = true;
                                    changed[0] = true;
                                    return;
                                }
                                super.visitInvokeDynamicInsn(name, desc, bootstrap, arguments);
                            }

                            @Override
                            public void visitMaxs(int maxStack, int maxLocals) {
                                if (substituted && maxStack >= MAX_STACK) {
                                    // One more would not fit in max_stack: leave the class as it is.
                                    throw new IllegalStateException(
                                            "its method " + method + " has the largest max_stack a class file allows,"
                                                    + " and a substituted call needs one more");
                                }
                                super.visitMaxs(substituted ? maxStack + 1 : maxStack, maxLocals);
                            }
                        };
                    }
                },
                0);
        return changed[0] ? writer.toByteArray() : classFile;
    }

    /**
     * The methods (name and descriptor) whose code holds an {@code invokestatic} of a constant that
     * names {@code ByteBuffer.allocateDirect(int)}, as bytes: a method without them cannot call it.
     * The bytes may also be operands of other instructions; such a method is decoded for nothing.
     * Null (every method) when a method handle names it: a method reference, whose invokedynamic
     * points at it only through the class's bootstrap methods.
     */
    static Set<String> methodsThatMayCall(ClassReader reader) {
        byte[] b = reader.b;
        char[] chars = new char[reader.getMaxStringLength()];
        int[] constants = new int[reader.getItemCount()];
        int found = 0;
        for (int i = 1; i < reader.getItemCount(); i++) {
            int at = reader.getItem(i);
            if (at == 0 || (b[at - 1] != METHOD_REF && b[at - 1] != INTERFACE_METHOD_REF)) {
                continue;
            }
            int nameAndType = reader.getItem(reader.readUnsignedShort(at + 2));
            if (isAllocateDirect(
                    reader.readClass(at, chars),
                    reader.readUTF8(nameAndType, chars),
                    reader.readUTF8(nameAndType + 2, chars))) {
                constants[found++] = i;
            }
        }
        Set<String> methods = new HashSet<>();
        if (found == 0) {
            return methods;
        }
        for (int i = 1; i < reader.getItemCount(); i++) {
            int at = reader.getItem(i);
            if (at != 0 && b[at - 1] == METHOD_HANDLE) {
                int reference = reader.readUnsignedShort(at + 1);
                for (int c = 0; c < found; c++) {
                    if (constants[c] == reference) {
                        // A method reference to it, in some method's invokedynamic: decode them all.
                        return null;
                    }
                }
            }
        }
        // After the constant pool: access, this, super, the interfaces, the fields, the methods.
        int at = reader.header + 6;
        at += 2 + 2 * reader.readUnsignedShort(at);
        int fields = reader.readUnsignedShort(at);
        at += 2;
        for (int f = 0; f < fields; f++) {
            at = skipAttributes(reader, at + 6, reader.readUnsignedShort(at + 6));
        }
        int count = reader.readUnsignedShort(at);
        at += 2;
        for (int m = 0; m < count; m++) {
            String name = reader.readUTF8(at + 2, chars);
            String descriptor = reader.readUTF8(at + 4, chars);
            int attributes = reader.readUnsignedShort(at + 6);
            at += 8;
            for (int a = 0; a < attributes; a++) {
                int length = reader.readInt(at + 2);
                if ("Code".equals(reader.readUTF8(at, chars))) {
                    // After the attribute's name and length: max_stack, max_locals, code_length, the code.
                    int start = at + 14;
                    if (holdsCall(b, start, start + reader.readInt(at + 10), constants, found)) {
                        methods.add(name + descriptor);
                    }
                }
                at += 6 + length;
            }
        }
        return methods;
    }

    /** Whether a method (its owner, name and descriptor) is {@code ByteBuffer.allocateDirect(int)}. */
    static boolean isAllocateDirect(String owner, String name, String descriptor) {
        return (OWNER.equals(owner) || MAPPED_OWNER.equals(owner))
                && NAME.equals(name)
                && DESCRIPTOR.equals(descriptor);
    }

    private static int skipAttributes(ClassReader reader, int at, int attributes) {
        at += 2;
        for (int a = 0; a < attributes; a++) {
            at += 6 + reader.readInt(at + 2);
        }
        return at;
    }

    private static boolean holdsCall(byte[] b, int start, int end, int[] constants, int found) {
        for (int i = start; i + 2 < end; i++) {
            if ((b[i] & 0xFF) != INVOKESTATIC) {
                continue;
            }
            int constant = ((b[i + 1] & 0xFF) << 8) | (b[i + 2] & 0xFF);
            for (int c = 0; c < found; c++) {
                if (constants[c] == constant) {
                    return true;
                }
            }
        }
        return false;
    }
}
