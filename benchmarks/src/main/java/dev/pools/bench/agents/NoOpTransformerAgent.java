package dev.pools.bench.agents;

import java.lang.instrument.ClassFileTransformer;
import java.lang.instrument.Instrumentation;
import java.security.ProtectionDomain;

/**
 * B4's floor for an agent that rewrites classes as they load: it registers a transformer that
 * changes nothing. From then on the JVM hands every class it loads to the transformer, those of
 * its class-data archive included, which it would otherwise map without reading their class files.
 */
public final class NoOpTransformerAgent {

    private NoOpTransformerAgent() {}

    public static void premain(String args, Instrumentation inst) {
        inst.addTransformer(new Unchanged(), false);
    }

    /** Sees every class, changes none. */
    private static final class Unchanged implements ClassFileTransformer {
        @Override
        public byte[] transform(
                ClassLoader loader, String name, Class<?> redefined, ProtectionDomain domain, byte[] classFile) {
            return null;
        }
    }
}
