package dev.pools.hosts;

import java.util.List;

/**
 * What the agent knows of one class of a host framework, beyond its {@code allocateDirect} call
 * sites: the fields its hooks read, the hooks, and, where the framework gives no correct signal
 * that a buffer is free, why its buffers are left to the collector. Each host folder declares its
 * classes once; {@link MethodHooks} checks the shape and changes the class from this alone.
 *
 * @param name                internal name, {@code ai/onnxruntime/OnnxTensor}
 * @param fields              every field a hook reads; each must be declared by the class, or read by
 *                            its own code (an inherited field), with this descriptor
 * @param hooks               calls added before the normal returns of methods, under {@code release: close}
 * @param noReleaseAtClose    under {@code release: close}, said once when the class loads: why its
 *                            buffers stay with the collector; null when the hooks release them
 * @param keep                calls added in every release mode that keep memory from the collector's
 *                            release while the host may still read it: a buffer the host makes over
 *                            pool memory by itself (native code's own buffer over an address) replaced
 *                            by a view of the pool buffer; buffers held on to past the host's close
 * @param keepLost            what is not kept when the class is of another shape and gets no keep
 *                            hook, said once; null when {@code keep} is empty
 */
public record HostClass(
        String name,
        List<Field> fields,
        List<MethodHook> hooks,
        String noReleaseAtClose,
        List<MethodHook> keep,
        String keepLost) {

    public HostClass {
        fields = List.copyOf(fields);
        hooks = List.copyOf(hooks);
        keep = List.copyOf(keep);
        if (keep.isEmpty() != (keepLost == null)) {
            throw new IllegalArgumentException(name + ": keep hooks and what is lost without them go together");
        }
    }

    /** A class with no hook that keeps memory. */
    public HostClass(String name, List<Field> fields, List<MethodHook> hooks, String noReleaseAtClose) {
        this(name, fields, hooks, noReleaseAtClose, List.of(), null);
    }

    /** A field of the host class: name and JVM descriptor; or {@link #THIS}, the object itself. */
    public record Field(String name, String descriptor) {

        /** The object whose method is hooked, passed as an {@code Object}. */
        public static final Field THIS = new Field("this", "Ljava/lang/Object;");

        /** Whether this is {@link #THIS}, not a field. */
        public boolean isThis() {
            return this.equals(THIS);
        }
    }

    /**
     * Before each normal return of {@code method} (name and descriptor), or with {@code atEntry} at
     * its start, a static call to {@code owner.name(descriptor)} with the values of {@code args}
     * (fields of {@code this}, in order). With {@code passesResult} (before returns only), the
     * method's return value goes first and the hook's result is returned instead: its descriptor then
     * takes and returns the method's return type. A constructor takes hooks before its returns only.
     */
    public record MethodHook(
            String method,
            boolean atEntry,
            List<Field> args,
            boolean passesResult,
            String owner,
            String name,
            String descriptor) {

        public MethodHook {
            args = List.copyOf(args);
            if (atEntry && (passesResult || method.startsWith("<init>"))) {
                throw new IllegalArgumentException(
                        method + ": a hook at entry has no result to pass, and a constructor's fields are not set yet");
            }
        }

        /** Before each normal return. */
        public MethodHook(
                String method, List<Field> args, boolean passesResult, String owner, String name, String descriptor) {
            this(method, false, args, passesResult, owner, name, descriptor);
        }

        /** At the start of {@code method}, before any of its own code. */
        public static MethodHook atEntry(
                String method, List<Field> args, String owner, String name, String descriptor) {
            return new MethodHook(method, true, args, false, owner, name, descriptor);
        }
    }

    /** The java name, {@code ai.onnxruntime.OnnxTensor}. */
    public String javaName() {
        return name.replace('/', '.');
    }
}
