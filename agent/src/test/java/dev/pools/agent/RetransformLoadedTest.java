package dev.pools.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.pools.hosts.HostTransformer;
import dev.pools.memory.CallSites;
import it.host.Lambdas;
import it.host.Tensors;
import java.lang.instrument.Instrumentation;
import java.lang.instrument.UnmodifiableClassException;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Classes loaded before the agent: which are retransformed, and in how many calls. */
class RetransformLoadedTest {

    /** A JVM's instrumentation as far as retransformation goes: records each call, fails where told. */
    private static final class FakeJvm {
        final List<List<Class<?>>> calls = new ArrayList<>();
        final List<String> transformers = new ArrayList<>();
        final Class<?>[] loaded;
        final boolean batchFails;
        final Class<?> failing;

        FakeJvm(boolean batchFails, Class<?> failing, Class<?>... loaded) {
            this.loaded = loaded;
            this.batchFails = batchFails;
            this.failing = failing;
        }

        Instrumentation instrumentation() {
            return (Instrumentation) Proxy.newProxyInstance(
                    getClass().getClassLoader(), new Class<?>[] {Instrumentation.class}, (proxy, method, args) -> {
                        switch (method.getName()) {
                            case "getAllLoadedClasses":
                                return loaded.clone();
                            case "isModifiableClass":
                                // As the JVM: hidden classes and arrays cannot be changed.
                                Class<?> c = (Class<?>) args[0];
                                return !c.isHidden() && !c.isArray();
                            case "retransformClasses":
                                Class<?>[] classes = (Class<?>[]) args[0];
                                calls.add(List.of(classes));
                                if (classes.length > 1 && batchFails) {
                                    throw new UnmodifiableClassException("one of them");
                                }
                                if (classes.length == 1 && classes[0] == failing) {
                                    throw new UnmodifiableClassException(failing.getName());
                                }
                                return null;
                            case "addTransformer":
                            case "removeTransformer":
                                transformers.add(method.getName()
                                        + (args.length > 1 && Boolean.TRUE.equals(args[1]) ? " retransforming" : ""));
                                return method.getReturnType() == boolean.class ? Boolean.TRUE : null;
                            default:
                                throw new UnsupportedOperationException(method.getName());
                        }
                    });
        }
    }

    private static HostTransformer transformer() {
        return new HostTransformer(List.of("it.host"), new CallSites(), List.of(), false);
    }

    @Test
    void the_loaded_classes_of_intercepted_packages_are_retransformed_in_one_call_without_hidden_ones() {
        Class<?> lambda = Lambdas.allocator().getClass();
        assertEquals(true, lambda.isHidden(), "the lambda's class is hidden: " + lambda);
        FakeJvm jvm = new FakeJvm(false, null, Tensors.class, lambda, String.class, Lambdas.class, Tensors[].class);
        int done = PoolsAgent.retransformLoaded(jvm.instrumentation(), transformer(), true, false);
        assertEquals(2, done);
        assertEquals(List.of(List.of(Tensors.class, Lambdas.class)), jvm.calls, "one call, no hidden class, no array");
    }

    @Test
    void when_the_one_call_fails_each_class_is_tried_alone_and_the_others_still_change() {
        FakeJvm jvm = new FakeJvm(true, Tensors.class, Tensors.class, Lambdas.class);
        int done = PoolsAgent.retransformLoaded(jvm.instrumentation(), transformer(), true, false);
        assertEquals(1, done, "Lambdas changes, Tensors cannot");
        assertEquals(
                List.of(List.of(Tensors.class, Lambdas.class), List.of(Tensors.class), List.of(Lambdas.class)),
                jvm.calls);
    }

    @Test
    void nothing_loaded_from_an_intercepted_package_means_no_call() {
        FakeJvm jvm = new FakeJvm(false, null, String.class, Lambdas.allocator().getClass());
        assertEquals(0, PoolsAgent.retransformLoaded(jvm.instrumentation(), transformer(), true, false));
        assertEquals(List.of(), jvm.calls);
    }

    /**
     * Another agent may retransform these classes later; the JVM then starts over from their class
     * files as loaded, and only a retransformation-capable transformer registered then puts the
     * substitution back. Before, it was removed after the agent's own call, and a later
     * retransformation dropped the substitution without a word.
     */
    @Test
    void the_retransforming_transformer_stays_registered_for_later_retransformations() {
        FakeJvm jvm = new FakeJvm(false, null, Tensors.class);
        assertEquals(1, PoolsAgent.retransformLoaded(jvm.instrumentation(), transformer(), true, false));
        assertEquals(List.of("addTransformer retransforming"), jvm.transformers);
    }
}
