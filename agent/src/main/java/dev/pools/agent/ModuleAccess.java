package dev.pools.agent;

import dev.pools.memory.JdkInternals;
import dev.pools.memory.PlatformBeans;
import java.lang.instrument.Instrumentation;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Opens to the agent the JDK internals the pools need (see {@code NativeAccess}), so the user
 * passes no {@code --add-opens} flag: the packages of {@link JdkInternals}, opened or exported to
 * this jar's module only; and exports {@code java.management}'s {@code sun.management}, from which
 * the recording reads the JVM's management beans ({@link PlatformBeans}), which works without it.
 */
final class ModuleAccess {

    private ModuleAccess() {}

    static void open(Instrumentation inst) {
        Module base = Object.class.getModule();
        Module self = ModuleAccess.class.getModule();
        Set<Module> us = Set.of(self);
        Map<String, Set<Module>> exports = new HashMap<>();
        for (String p : JdkInternals.EXPORTED) {
            exports.put(p, us);
        }
        Map<String, Set<Module>> opens = new HashMap<>();
        for (String p : JdkInternals.OPENED) {
            opens.put(p, us);
        }
        inst.redefineModule(base, Set.of(), exports, opens, Set.of(), Map.of());
        // The recording's management beans without ManagementFactory's look-up (PlatformBeans). Not
        // needed by the pools: should the JVM refuse, the recording takes the usual way.
        try {
            Optional<Module> management = ModuleLayer.boot().findModule(PlatformBeans.MODULE);
            if (management.isPresent()) {
                inst.redefineModule(
                        management.get(), Set.of(), Map.of(PlatformBeans.EXPORTED, us), Map.of(), Set.of(), Map.of());
            }
        } catch (RuntimeException e) {
            // PlatformBeans falls back to ManagementFactory.
        }
    }
}
