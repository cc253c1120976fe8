package dev.pools.memory;

import java.lang.invoke.MethodHandles;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.MemoryMXBean;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.RuntimeMXBean;
import java.lang.management.ThreadMXBean;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import net.bytebuddy.jar.asm.ClassWriter;
import net.bytebuddy.jar.asm.MethodVisitor;
import net.bytebuddy.jar.asm.Opcodes;
import net.bytebuddy.jar.asm.Type;

/**
 * The JDK internals' methods that {@link NativeAccess} calls, as plain bytecode.
 *
 * <p>{@link #compile} writes a subclass whose every method is one direct call of the internal
 * method it was given, found by reflection; the class is defined next to this one, so its calls
 * are checked against the packages the agent exported, as any other class of the agent's. Method
 * handles did the same, but a JVM spins classes of its own for each bound or adapted handle: on
 * JDK 25 some 50 ms of CPU at start, and more again for the compiler. A call that JDK internals
 * may not offer is left abstract when its target is missing; {@link NativeAccess} knows which.
 *
 * <p>How each target is called: a static method directly; an instance method of a class with a
 * receiver in {@code receivers} (an internal singleton, read once by a static getter into a
 * static final field of the subclass) on that receiver; any other instance method on the first
 * argument, cast to the target's class. Parameters the target has beyond the arguments are passed
 * {@code null}; a result the call does not return is dropped.
 */
abstract class InternalCalls {

    /** {@code JavaNioAccess.newDirectByteBuffer(address, capacity, attachment, null)}. */
    abstract ByteBuffer newBuffer(long address, int capacity, Object attachment);

    /** {@code ((DirectBuffer) buffer).attachment()}. */
    abstract Object attachment(Object directBuffer);

    /** {@code ((DirectBuffer) buffer).address()}. */
    abstract long address(Object directBuffer);

    /** {@code Unsafe.setMemory}. */
    abstract void setMemory(long address, long bytes, byte value);

    /** {@code Unsafe.copyMemory(source, destination, bytes)}, between two addresses. */
    abstract void copyMemory(long source, long destination, long bytes);

    /** {@code Unsafe.putLong}. */
    abstract void putLong(long address, long value);

    /** {@code Unsafe.invokeCleaner}. */
    abstract void invokeCleaner(ByteBuffer buffer);

    /** {@code Unsafe.allocateMemory}: the C heap's malloc. */
    abstract long allocateMemory(long bytes);

    /** {@code Unsafe.freeMemory}. */
    abstract void freeMemory(long address);

    /** {@code JavaLangRefAccess.waitForReferenceProcessing}. */
    abstract boolean waitForReferenceProcessing() throws InterruptedException;

    /** {@code JavaNioAccess.reserveMemory}. */
    abstract void reserveMemory(long size, long capacity);

    /** {@code JavaNioAccess.unreserveMemory}. */
    abstract void unreserveMemory(long size, long capacity);

    /** {@code Cleaner.create} of {@code jdk.internal.ref}. */
    abstract Object newCleaner(Object referent, Runnable thunk);

    /** {@code cleaner.clean()}, of {@code jdk.internal.ref}. */
    abstract void clean(Object cleaner);

    /** {@code VM.maxDirectMemory()}: the direct memory limit. */
    abstract long maxDirectMemory();

    /** {@code thread.isVirtual()}, of JDK 21 and later: not internal, but a method handle costs as much. */
    abstract boolean isVirtual(Thread thread);

    // The JVM's management beans, from sun.management.ManagementFactoryHelper (PlatformBeans).

    abstract MemoryMXBean memoryBean();

    abstract List<MemoryPoolMXBean> memoryPoolBeans();

    abstract List<BufferPoolMXBean> bufferPoolBeans();

    abstract ThreadMXBean threadBean();

    abstract RuntimeMXBean runtimeBean();

    private static final String SELF = Type.getInternalName(InternalCalls.class);

    /** How many subclasses were made: each gets a name of its own. */
    private static int compiled;

    /** The instance a subclass's initialiser made, taken by {@link #compile} at once. */
    private static InternalCalls made;

    /** Called by a subclass's initialiser, with an instance of itself. */
    static void made(InternalCalls instance) {
        made = instance;
    }

    /**
     * A subclass whose methods named in {@code targets} call their target. {@code receivers} maps
     * a class to the public static method without parameters that gives its instance.
     */
    static synchronized InternalCalls compile(Map<String, Method> targets, Map<Class<?>, Method> receivers)
            throws ReflectiveOperationException {
        String name = SELF + "$Compiled" + compiled++;
        ClassWriter w = new ClassWriter(ClassWriter.COMPUTE_MAXS);
        w.visit(Opcodes.V17, Opcodes.ACC_FINAL | Opcodes.ACC_SUPER | Opcodes.ACC_SYNTHETIC, name, null, SELF, null);
        List<Class<?>> used = new ArrayList<>();
        List<String> unknown = new ArrayList<>(targets.keySet());
        for (Method declared : InternalCalls.class.getDeclaredMethods()) {
            if (Modifier.isAbstract(declared.getModifiers())) {
                unknown.remove(declared.getName());
            }
        }
        if (!unknown.isEmpty()) {
            throw new IllegalArgumentException("no such call: " + unknown);
        }
        for (Method getter : receivers.values()) {
            if (!Modifier.isStatic(getter.getModifiers()) || getter.getParameterCount() != 0) {
                throw new NoSuchMethodException(getter + " is not a static method without parameters");
            }
            requireAccess(getter);
        }
        for (Method target : targets.values()) {
            requireAccess(target);
        }
        for (Method declared : InternalCalls.class.getDeclaredMethods()) {
            Method target = targets.get(declared.getName());
            if (target == null || !Modifier.isAbstract(declared.getModifiers())) {
                continue;
            }
            MethodVisitor m = w.visitMethod(
                    Opcodes.ACC_FINAL, declared.getName(), Type.getMethodDescriptor(declared), null, null);
            m.visitCode();
            Class<?> owner = target.getDeclaringClass();
            Class<?>[] params = declared.getParameterTypes();
            int local = 1;
            int first = 0;
            if (!Modifier.isStatic(target.getModifiers())) {
                if (receivers.containsKey(owner)) {
                    if (!used.contains(owner)) {
                        used.add(owner);
                    }
                    m.visitFieldInsn(Opcodes.GETSTATIC, name, field(used.indexOf(owner)), Type.getDescriptor(owner));
                } else {
                    if (params.length == 0 || params[0].isPrimitive()) {
                        throw new NoSuchMethodException(
                                target + " needs a receiver, which " + declared.getName() + " does not pass first");
                    }
                    m.visitVarInsn(Opcodes.ALOAD, local++);
                    m.visitTypeInsn(Opcodes.CHECKCAST, Type.getInternalName(owner));
                    first = 1;
                }
            }
            Class<?>[] wanted = target.getParameterTypes();
            if (!fits(params, first, wanted, declared.getReturnType(), target.getReturnType())) {
                throw new NoSuchMethodException(
                        target + " does not take the arguments or give the result of " + declared.getName());
            }
            for (int i = 0; i < wanted.length; i++) {
                int p = first + i;
                if (p >= params.length) {
                    m.visitInsn(Opcodes.ACONST_NULL);
                    continue;
                }
                Type t = Type.getType(params[p]);
                m.visitVarInsn(t.getOpcode(Opcodes.ILOAD), local);
                local += t.getSize();
                if (params[p] != wanted[i]) {
                    m.visitTypeInsn(Opcodes.CHECKCAST, Type.getInternalName(wanted[i]));
                }
            }
            boolean isInterface = owner.isInterface();
            int opcode = Modifier.isStatic(target.getModifiers())
                    ? Opcodes.INVOKESTATIC
                    : isInterface ? Opcodes.INVOKEINTERFACE : Opcodes.INVOKEVIRTUAL;
            m.visitMethodInsn(
                    opcode,
                    Type.getInternalName(owner),
                    target.getName(),
                    Type.getMethodDescriptor(target),
                    isInterface);
            if (declared.getReturnType() == void.class && target.getReturnType() != void.class) {
                m.visitInsn(Type.getType(target.getReturnType()).getSize() == 2 ? Opcodes.POP2 : Opcodes.POP);
            }
            m.visitInsn(Type.getType(declared.getReturnType()).getOpcode(Opcodes.IRETURN));
            m.visitMaxs(0, 0);
            m.visitEnd();
        }
        MethodVisitor init = w.visitMethod(0, "<init>", "()V", null, null);
        init.visitCode();
        init.visitVarInsn(Opcodes.ALOAD, 0);
        init.visitMethodInsn(Opcodes.INVOKESPECIAL, SELF, "<init>", "()V", false);
        init.visitInsn(Opcodes.RETURN);
        init.visitMaxs(0, 0);
        init.visitEnd();
        MethodVisitor clinit = w.visitMethod(Opcodes.ACC_STATIC, "<clinit>", "()V", null, null);
        clinit.visitCode();
        for (int i = 0; i < used.size(); i++) {
            Class<?> owner = used.get(i);
            Method getter = receivers.get(owner);
            w.visitField(
                            Opcodes.ACC_PRIVATE | Opcodes.ACC_STATIC | Opcodes.ACC_FINAL,
                            field(i),
                            Type.getDescriptor(owner),
                            null,
                            null)
                    .visitEnd();
            clinit.visitMethodInsn(
                    Opcodes.INVOKESTATIC,
                    Type.getInternalName(getter.getDeclaringClass()),
                    getter.getName(),
                    Type.getMethodDescriptor(getter),
                    getter.getDeclaringClass().isInterface());
            if (getter.getReturnType() != owner) {
                clinit.visitTypeInsn(Opcodes.CHECKCAST, Type.getInternalName(owner));
            }
            clinit.visitFieldInsn(Opcodes.PUTSTATIC, name, field(i), Type.getDescriptor(owner));
        }
        // The instance is made by the initialiser and handed over: no reflection (on JDK 18 and
        // later a reflective call spins method handles of its own).
        clinit.visitTypeInsn(Opcodes.NEW, name);
        clinit.visitInsn(Opcodes.DUP);
        clinit.visitMethodInsn(Opcodes.INVOKESPECIAL, name, "<init>", "()V", false);
        clinit.visitMethodInsn(Opcodes.INVOKESTATIC, SELF, "made", "(L" + SELF + ";)V", false);
        clinit.visitInsn(Opcodes.RETURN);
        clinit.visitMaxs(0, 0);
        clinit.visitEnd();
        w.visitEnd();
        Class<?> defined = MethodHandles.lookup().defineClass(w.toByteArray());
        made = null;
        Class.forName(defined.getName(), true, defined.getClassLoader());
        InternalCalls instance = made;
        made = null;
        if (instance == null || instance.getClass() != defined) {
            throw new IllegalStateException("the compiled calls were not initialised: " + defined.getName());
        }
        return instance;
    }

    /**
     * Refuses a method that the compiled class could not call: its class or itself not public, or
     * its package not exported to this class's module. Checked here, so that a missing export turns
     * the pools off at the start rather than failing an allocation with an {@code IllegalAccessError}.
     */
    private static void requireAccess(Method m) throws IllegalAccessException {
        Class<?> owner = m.getDeclaringClass();
        if (!Modifier.isPublic(owner.getModifiers()) || !Modifier.isPublic(m.getModifiers())) {
            throw new IllegalAccessException(m + " is not public");
        }
        if (!owner.getModule().isExported(owner.getPackageName(), InternalCalls.class.getModule())) {
            throw new IllegalAccessException(
                    owner.getPackageName() + " is not exported to the agent (" + m.getName() + ")");
        }
    }

    /**
     * Whether the arguments from {@code first} on can be passed to {@code wanted}: as many or fewer
     * (the rest get {@code null}, so they are references), each primitive the same, each reference cast;
     * and whether the target's result can be returned as {@code result}.
     */
    private static boolean fits(Class<?>[] params, int first, Class<?>[] wanted, Class<?> result, Class<?> gives) {
        if (wanted.length < params.length - first) {
            return false;
        }
        for (int i = 0; i < wanted.length; i++) {
            int p = first + i;
            Class<?> given = p < params.length ? params[p] : null;
            if (given == null
                    ? wanted[i].isPrimitive()
                    : given.isPrimitive() != wanted[i].isPrimitive() || given.isPrimitive() && given != wanted[i]) {
                return false;
            }
        }
        return result == void.class || (result.isPrimitive() ? result == gives : result.isAssignableFrom(gives));
    }

    private static String field(int i) {
        return "receiver" + i;
    }
}
