package dev.pools.agent;

import java.lang.instrument.Instrumentation;
import java.util.Map;
import java.util.Set;

/**
 * Opens to the agent the JDK internals the pools need (see {@code NativeAccess}), so the user
 * passes no {@code --add-opens} flag: {@code java.nio} opened, and {@code jdk.internal.misc},
 * {@code jdk.internal.access} and {@code sun.nio.ch} exported, to this jar's module only.
 */
final class ModuleAccess {

    private ModuleAccess() {}

    static void open(Instrumentation inst) {
        Module base = Object.class.getModule();
        Module self = ModuleAccess.class.getModule();
        Set<Module> us = Set.of(self);
        inst.redefineModule(
                base,
                Set.of(),
                Map.of("jdk.internal.misc", us, "jdk.internal.access", us, "sun.nio.ch", us),
                Map.of("java.nio", us),
                Set.of(),
                Map.of());
    }
}
