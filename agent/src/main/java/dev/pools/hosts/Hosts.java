package dev.pools.hosts;

import dev.pools.hosts.djl.Djl;
import dev.pools.hosts.onnxruntime.OnnxRuntime;
import java.util.ArrayList;
import java.util.List;

/**
 * The host frameworks the agent knows, one folder each. Adding one: a folder with its
 * {@link HostClass} declarations (and the static entry points its hooks call), and a line here.
 */
public final class Hosts {

    /** Every host class with hooks or a note, across frameworks. */
    public static final List<HostClass> CLASSES = concat(Djl.CLASSES, OnnxRuntime.CLASSES);

    private Hosts() {
    }

    /** The declaration of a class (internal name), or null. */
    public static HostClass find(String internalName) {
        for (HostClass c : CLASSES) {
            if (c.name().equals(internalName)) {
                return c;
            }
        }
        return null;
    }

    @SafeVarargs
    private static List<HostClass> concat(List<HostClass>... lists) {
        List<HostClass> all = new ArrayList<>();
        for (List<HostClass> l : lists) {
            all.addAll(l);
        }
        return List.copyOf(all);
    }
}
