package dev.pools.agent;

import dev.pools.hosts.HostClass;
import dev.pools.hosts.djl.Djl;
import dev.pools.hosts.onnxruntime.OnnxRuntime;
import java.util.ArrayList;
import java.util.List;

/**
 * The host frameworks the agent knows, one folder each under {@code dev.pools.hosts}. Adding one:
 * a folder with its {@link HostClass} declarations (and the static entry points its hooks call),
 * and its list here.
 */
final class HostFrameworks {

    /** Every host class with hooks or a note, across frameworks. */
    static final List<HostClass> CLASSES = concat(Djl.CLASSES, OnnxRuntime.CLASSES);

    private HostFrameworks() {}

    @SafeVarargs
    private static List<HostClass> concat(List<HostClass>... lists) {
        List<HostClass> all = new ArrayList<>();
        for (List<HostClass> l : lists) {
            all.addAll(l);
        }
        return List.copyOf(all);
    }
}
