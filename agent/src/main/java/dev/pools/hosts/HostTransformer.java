package dev.pools.hosts;

import dev.pools.log.Log;
import dev.pools.memory.CallSites;
import java.lang.instrument.ClassFileTransformer;
import java.security.ProtectionDomain;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.WeakHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import net.bytebuddy.jar.asm.ClassReader;

/**
 * The transformer the agent installs. For a class of an intercepted package it substitutes the
 * {@code allocateDirect} call sites, adds the hooks its host folder declares that keep pool memory
 * (in every release mode) and, under {@code release: close}, the release hooks ({@link HostClass}).
 * Every other class is left alone after one prefix check;
 * the agent's own classes never change, whatever the layout names; a class that cannot be
 * instrumented keeps its own allocations (said once).
 *
 * <p>A rewritten class calls into the agent's classes, so it is rewritten only if its class loader
 * finds them, the agent's own and not copies: a loader that sees neither the boot nor the
 * application class path (where the agent is when its jar could not be put on the boot path) would
 * turn the host's first allocation into a {@code NoClassDefFoundError}. Its classes keep their own
 * allocations, said once per class of loader.
 */
public final class HostTransformer implements ClassFileTransformer {

    /** The agent's own classes: never rewritten (the shaded dependencies live below it too). */
    static final String OWN_PACKAGE = "dev/pools/";

    private final String[] prefixes;
    private final CallSites sites;
    private final List<HostClass> hostClasses;
    private final boolean releaseAtClose;
    private final boolean onlyRetransforms;
    private final AtomicInteger changed = new AtomicInteger();
    /** The agent's classes a rewritten class may call, by binary name. */
    private final Set<String> called;
    /** Whether each class loader seen finds {@link #called} as the agent's own. Guarded by itself. */
    private final Map<ClassLoader, Boolean> loaders = new WeakHashMap<>();

    private volatile boolean warming;

    /**
     * @param packages       Java package names; their classes and those of their sub-packages are instrumented
     * @param hostClasses    what the host frameworks declare of their classes
     * @param releaseAtClose whether to add the hosts' release hooks ({@code release: close})
     */
    public HostTransformer(
            List<String> packages, CallSites sites, List<HostClass> hostClasses, boolean releaseAtClose) {
        this(packages, sites, hostClasses, releaseAtClose, false);
    }

    private HostTransformer(
            List<String> packages,
            CallSites sites,
            List<HostClass> hostClasses,
            boolean releaseAtClose,
            boolean onlyRetransforms) {
        this.prefixes = new String[packages.size()];
        for (int i = 0; i < prefixes.length; i++) {
            prefixes[i] = packages.get(i).replace('.', '/') + "/";
        }
        this.sites = sites;
        this.hostClasses = List.copyOf(hostClasses);
        this.releaseAtClose = releaseAtClose;
        this.onlyRetransforms = onlyRetransforms;
        this.called = new LinkedHashSet<>();
        called.add(CallSiteRewriter.RUNTIME.replace('/', '.'));
        for (HostClass c : hostClasses) {
            for (HostClass.MethodHook hook : c.keep()) {
                called.add(hook.owner().replace('/', '.'));
            }
            if (releaseAtClose) {
                for (HostClass.MethodHook hook : c.hooks()) {
                    called.add(hook.owner().replace('/', '.'));
                }
            }
        }
    }

    /**
     * The same instrumentation for classes loaded before this transformer was added, to be
     * registered as retransformation-capable: it acts only on retransformed classes, so a class loaded
     * meanwhile is not changed twice (and the JVM keeps no copy of the class files it loads).
     */
    public HostTransformer forRetransformation() {
        List<String> packages = new ArrayList<>();
        for (String p : prefixes) {
            packages.add(p.substring(0, p.length() - 1).replace('/', '.'));
        }
        return new HostTransformer(packages, sites, hostClasses, releaseAtClose, true);
    }

    /** The class a class file defines, or null if it cannot be read (the JVM will say why). */
    private static String nameOf(byte[] classFile) {
        try {
            return new ClassReader(classFile).getClassName();
        } catch (RuntimeException e) {
            return null;
        }
    }

    /** How many classes this transformer changed (call sites substituted or hooks added). */
    public int changed() {
        return changed.get();
    }

    /** Whether a class (internal or binary name) is in an intercepted package, and not the agent's own. */
    public boolean intercepts(String className) {
        String internal = className.replace('.', '/');
        if (internal.startsWith(OWN_PACKAGE)) {
            return false;
        }
        for (String p : prefixes) {
            if (internal.startsWith(p)) {
                return true;
            }
        }
        return false;
    }

    @Override
    public byte[] transform(
            ClassLoader loader, String className, Class<?> redefined, ProtectionDomain domain, byte[] classFile) {
        if (className == null && classFile != null && !(onlyRetransforms && redefined == null)) {
            // ClassLoader.defineClass(null, ...): the JVM names the class only once it has read it.
            className = nameOf(classFile);
        }
        if (className == null
                || (onlyRetransforms && redefined == null)
                || !intercepts(className)
                || !seesAgent(loader, className)) {
            return null;
        }
        if (!warming) {
            warmUp();
        }
        byte[] out = classFile;
        try {
            if (CallSiteRewriter.mayCall(out)) {
                out = CallSiteRewriter.rewrite(out, className, sites);
            }
        } catch (Throwable t) {
            Log.once(
                    "transform:" + className,
                    "cannot instrument " + className.replace('/', '.') + "; it keeps its own allocations: " + t);
            return null;
        }
        out = addHooks(className, out);
        if (out == classFile) {
            return null;
        }
        changed.incrementAndGet();
        return out;
    }

    /**
     * At the first class of an intercepted package: rewrites a class of its own on a thread of its own,
     * so that ASM's classes are loaded and resolved off the loading thread before the host's first
     * class with a call needs them (DJL loads dozens of its classes before that one). A JVM that never
     * loads a host class never pays for it.
     */
    private synchronized void warmUp() {
        if (warming) {
            return;
        }
        warming = true;
        Thread t = new WarmUp();
        t.setDaemon(true);
        t.start();
    }

    /** Whether the warm-up has started (tests). */
    boolean warming() {
        return warming;
    }

    /**
     * Whether {@code loader} resolves every class a rewritten class calls to the agent's own. Checked
     * once per loader, without initialising anything; said once for a loader that does not.
     */
    boolean seesAgent(ClassLoader loader, String className) {
        ClassLoader own = HostTransformer.class.getClassLoader();
        if (loader == own) {
            return true;
        }
        synchronized (loaders) {
            Boolean known = loaders.get(loader);
            if (known != null) {
                return known;
            }
        }
        String missing = null;
        for (String name : called) {
            try {
                if (Class.forName(name, false, loader) != Class.forName(name, false, own)) {
                    missing = "it has a copy of its own of " + name;
                    break;
                }
            } catch (ClassNotFoundException | LinkageError | RuntimeException e) {
                // A loader of the host's may refuse in its own way (closed, say): it does not serve the agent either.
                missing = "it does not find " + name + (e instanceof ClassNotFoundException ? "" : ": " + e);
                break;
            }
        }
        synchronized (loaders) {
            loaders.put(loader, missing == null);
        }
        if (missing != null) {
            // Once per class of loader, not per loader: a host that makes a loader per plugin or per
            // request would otherwise add a line for each.
            Log.once(
                    "loader:" + (loader == null ? "boot" : loader.getClass().getName()),
                    "cannot instrument the classes of " + name(loader)
                            + " (" + className.replace('/', '.') + " first), which do not see pools.jar's classes ("
                            + missing + "); they keep their own allocations");
        }
        return missing == null;
    }

    /** A loader's class and identity: its own {@code toString} is the host's code, which may fail. */
    private static String name(ClassLoader loader) {
        return loader == null
                ? "the boot class loader"
                : loader.getClass().getName() + "@" + Integer.toHexString(System.identityHashCode(loader));
    }

    /** A named class, not a lambda: the first lambda of a JVM costs milliseconds. */
    private static final class WarmUp extends Thread {
        WarmUp() {
            super("pools-warm-up");
        }

        @Override
        public void run() {
            try {
                CallSiteRewriter.warmUp();
            } catch (Throwable t) {
                // Nothing lost: the first class with a call loads what it needs itself.
            }
        }
    }

    private byte[] addHooks(String className, byte[] classFile) {
        HostClass declared = null;
        for (HostClass c : hostClasses) {
            if (c.name().equals(className)) {
                declared = c;
            }
        }
        if (declared == null) {
            return classFile;
        }
        if (releaseAtClose && declared.noReleaseAtClose() != null) {
            Log.once(
                    "close-hook:" + className,
                    "release: close leaves " + declared.javaName() + " to the collector: "
                            + declared.noReleaseAtClose());
        }
        List<HostClass.MethodHook> hooks = new ArrayList<>(declared.keep());
        boolean releases = releaseAtClose && !declared.hooks().isEmpty();
        if (releases) {
            hooks.addAll(declared.hooks());
        }
        if (hooks.isEmpty()) {
            return classFile;
        }
        String missing;
        try {
            missing = MethodHooks.missing(classFile, declared, hooks);
            if (missing == null) {
                return MethodHooks.apply(classFile, declared, hooks);
            }
        } catch (Throwable t) {
            missing = t.toString();
        }
        // Neither kind of hook then: the class stays as its framework made it.
        Log.once(
                "close-hook:" + className,
                (releases
                                ? "release: close is not available for " + declared.javaName()
                                        + "; its buffers are released by the collector"
                                : declared.javaName() + " is of another shape than the agent knows: "
                                        + declared.keepLost())
                        + " (" + missing + ")");
        return classFile;
    }
}
