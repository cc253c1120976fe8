package dev.pools.hosts;

import dev.pools.agent.AgentLog;
import dev.pools.memory.CallSites;
import java.lang.instrument.ClassFileTransformer;
import java.security.ProtectionDomain;
import java.util.List;

/**
 * The one transformer the agent installs. For a class of an intercepted package it substitutes the
 * {@code allocateDirect} call sites, and, under {@code release: close}, adds the release hooks of
 * the host framework it belongs to. Every other class is left alone after one prefix check, and
 * a class that cannot be instrumented keeps its own allocations (said once).
 */
public final class HostTransformer implements ClassFileTransformer {

    private final String[] prefixes;
    private final CallSites sites;
    private final CloseHooks closeHooks;

    /**
     * @param packages   Java package names; their classes and those of their sub-packages are instrumented
     * @param closeHooks the release-at-close instrumentation, or null under {@code release: gc}
     */
    public HostTransformer(List<String> packages, CallSites sites, CloseHooks closeHooks) {
        this.prefixes = new String[packages.size()];
        for (int i = 0; i < prefixes.length; i++) {
            prefixes[i] = packages.get(i).replace('.', '/') + "/";
        }
        this.sites = sites;
        this.closeHooks = closeHooks;
    }

    /** Whether a class (internal or binary name) is in an intercepted package. */
    public boolean intercepts(String className) {
        String internal = className.replace('.', '/');
        for (String p : prefixes) {
            if (internal.startsWith(p)) {
                return true;
            }
        }
        return false;
    }

    @Override
    public byte[] transform(ClassLoader loader, String className, Class<?> redefined, ProtectionDomain domain, byte[] classFile) {
        if (className == null || !intercepts(className)) {
            return null;
        }
        byte[] out = classFile;
        try {
            if (CallSiteRewriter.mayCall(out)) {
                out = CallSiteRewriter.rewrite(out, className, sites);
            }
        } catch (Throwable t) {
            AgentLog.once("transform:" + className, "cannot instrument " + className.replace('/', '.')
                    + "; it keeps its own allocations: " + t);
            return null;
        }
        if (closeHooks != null && closeHooks.hooks(className)) {
            try {
                out = closeHooks.apply(className, out);
            } catch (Throwable t) {
                AgentLog.once("hooks:" + className, "release: close is not available for " + className.replace('/', '.')
                        + "; its buffers are released by the collector: " + t);
            }
        }
        return out == classFile ? null : out;
    }
}
