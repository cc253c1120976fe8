package dev.pools.hosts;

import java.util.List;

/**
 * What the agent knows of one class of a host framework, beyond its {@code allocateDirect} call
 * sites: the fields its hooks read, the hooks, and, where the framework gives no correct signal
 * that a buffer is free, why its buffers are left to the collector. Each host folder declares its
 * classes once; {@link ReturnHooks} checks the shape and changes the class from this alone.
 *
 * @param name                internal name, {@code ai/onnxruntime/OnnxTensor}
 * @param fields              every field a hook reads; each must be declared by the class, or read by
 *                            its own code (an inherited field), with this descriptor
 * @param hooks               calls added before the normal returns of methods, under {@code release: close}
 * @param noReleaseAtClose    under {@code release: close}, said once when the class loads: why its
 *                            buffers stay with the collector; null when the hooks release them
 * @param keep                calls added in every release mode: a buffer the host makes over pool memory
 *                            by itself (native code's own buffer over an address) is replaced by a view
 *                            of the pool buffer, which keeps that memory from the collector's release
 */
public record HostClass(
        String name, List<Field> fields, List<ReturnHook> hooks, String noReleaseAtClose, List<ReturnHook> keep) {

    public HostClass {
        fields = List.copyOf(fields);
        hooks = List.copyOf(hooks);
        keep = List.copyOf(keep);
    }

    /** A class with no hook that keeps memory. */
    public HostClass(String name, List<Field> fields, List<ReturnHook> hooks, String noReleaseAtClose) {
        this(name, fields, hooks, noReleaseAtClose, List.of());
    }

    /** A field of the host class: name and JVM descriptor. */
    public record Field(String name, String descriptor) {}

    /**
     * Before each normal return of {@code method} (name and descriptor), a static call to
     * {@code owner.name(descriptor)} with the values of {@code args} (fields of {@code this}, in
     * order). With {@code passesResult}, the method's return value goes first and the hook's result
     * is returned instead: its descriptor then takes and returns the method's return type.
     */
    public record ReturnHook(
            String method, List<Field> args, boolean passesResult, String owner, String name, String descriptor) {

        public ReturnHook {
            args = List.copyOf(args);
        }
    }

    /** The java name, {@code ai.onnxruntime.OnnxTensor}. */
    public String javaName() {
        return name.replace('/', '.');
    }
}
