package dev.pools.hosts;

import static net.bytebuddy.matcher.ElementMatchers.isBridge;
import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.not;
import static net.bytebuddy.matcher.ElementMatchers.takesArgument;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;

import dev.pools.agent.AgentLog;
import java.util.List;
import net.bytebuddy.ByteBuddy;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.description.field.FieldDescription;
import net.bytebuddy.description.method.MethodDescription;
import net.bytebuddy.description.type.TypeDescription;
import net.bytebuddy.dynamic.ClassFileLocator;
import net.bytebuddy.dynamic.DynamicType;
import net.bytebuddy.dynamic.scaffold.MethodGraph;
import net.bytebuddy.dynamic.scaffold.TypeValidation;
import net.bytebuddy.implementation.Implementation;
import net.bytebuddy.matcher.ElementMatcher;
import net.bytebuddy.pool.TypePool;

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
 * Each hook is advice around a real method (bridges excluded) that only calls
 * {@code PoolsRuntime.releaseClosed}; a release is idempotent, and the collector stays the
 * backstop for buffers no tensor took. A class whose shape differs from the one expected (another
 * framework version) is left alone, said once.
 */
public final class CloseHooks {

    private record Hook(String className, String field, String fieldType, Class<?> advice, ElementMatcher<MethodDescription> methods) {
    }

    private static final List<Hook> HOOKS = List.of(
            new Hook("ai/djl/pytorch/engine/PtNDArray", "dataRef", "java.nio.ByteBuffer", PtNDArrayClose.class,
                    named("close").and(takesArguments(0)).and(not(isBridge()))),
            new Hook("ai/djl/pytorch/engine/PtNDArray", "dataRef", "java.nio.ByteBuffer", PtNDArraySet.class,
                    named("set").and(takesArguments(1)).and(takesArgument(0, named("java.nio.Buffer"))).and(not(isBridge()))),
            new Hook("ai/onnxruntime/OnnxTensor", "buffer", "java.nio.Buffer", OnnxTensorClose.class,
                    named("close").and(takesArguments(0)).and(not(isBridge()))));

    /** Whether a class (internal name) has release hooks. */
    public boolean hooks(String className) {
        for (Hook h : HOOKS) {
            if (h.className.equals(className)) {
                return true;
            }
        }
        return false;
    }

    /** The class with its hooks, or the same bytes when its shape is not the one expected. */
    byte[] apply(ClassLoader loader, String className, byte[] classFile) {
        String name = className.replace('/', '.');
        ClassFileLocator locator = new ClassFileLocator.Compound(ClassFileLocator.Simple.of(name, classFile),
                loader == null ? ClassFileLocator.ForClassLoader.ofBootLoader() : ClassFileLocator.ForClassLoader.of(loader));
        TypeDescription type = TypePool.Default.of(locator).describe(name).resolve();
        DynamicType.Builder<?> builder = new ByteBuddy()
                .with(TypeValidation.DISABLED)
                .with(Implementation.Context.Disabled.Factory.INSTANCE)
                .with(MethodGraph.Compiler.ForDeclaredMethods.INSTANCE)
                .redefine(type, locator);
        ClassFileLocator adviceLocator = ClassFileLocator.ForClassLoader.of(CloseHooks.class.getClassLoader());
        int applied = 0;
        for (Hook h : HOOKS) {
            if (!h.className.equals(className)) {
                continue;
            }
            String missing = missing(type, h);
            if (missing != null) {
                AgentLog.once("close-hook:" + className, "release: close is not available for " + name
                        + " (" + missing + "); its buffers are released by the collector");
                continue;
            }
            builder = builder.visit(Advice.to(h.advice, adviceLocator).on(h.methods));
            applied++;
        }
        return applied == 0 ? classFile : builder.make().getBytes();
    }

    /** What of the expected shape is missing from {@code type}; null when it all fits. */
    private static String missing(TypeDescription type, Hook h) {
        FieldDescription.InDefinedShape field = type.getDeclaredFields().filter(named(h.field)).stream().findFirst().orElse(null);
        if (field == null || !field.getType().asErasure().getName().equals(h.fieldType)) {
            return "no field " + h.field + " of type " + h.fieldType;
        }
        if (type.getDeclaredMethods().filter(h.methods).isEmpty()) {
            return "no method matching " + h.methods;
        }
        return null;
    }

    /** {@code PtNDArray.close()}: the buffer goes back after the native tensor is deleted. */
    static final class PtNDArrayClose {
        private PtNDArrayClose() {
        }

        @Advice.OnMethodEnter
        static Object enter(@Advice.FieldValue("dataRef") Object dataRef) {
            return dataRef;
        }

        @Advice.OnMethodExit
        static void exit(@Advice.Enter Object dataRef) {
            dev.pools.agent.PoolsRuntime.releaseClosed(dataRef);
        }
    }

    /** {@code PtNDArray.set(Buffer)}: the buffer it replaces goes back once the tensor points at the new one. */
    static final class PtNDArraySet {
        private PtNDArraySet() {
        }

        @Advice.OnMethodEnter
        static Object enter(@Advice.FieldValue("dataRef") Object before) {
            return before;
        }

        @Advice.OnMethodExit
        static void exit(@Advice.Enter Object before, @Advice.FieldValue("dataRef") Object after) {
            if (before != null && before != after) {
                dev.pools.agent.PoolsRuntime.releaseClosed(before);
            }
        }
    }

    /** {@code OnnxTensor.close()}: the buffer goes back when the native value is released, the first time only. */
    static final class OnnxTensorClose {
        private OnnxTensorClose() {
        }

        @Advice.OnMethodEnter
        static Object enter(@Advice.FieldValue("closed") boolean closed, @Advice.FieldValue("buffer") Object buffer) {
            return closed ? null : buffer;
        }

        @Advice.OnMethodExit
        static void exit(@Advice.Enter Object buffer) {
            dev.pools.agent.PoolsRuntime.releaseClosed(buffer);
        }
    }
}
