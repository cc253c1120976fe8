package dev.pools.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.pools.it.apps.IsolatedHost;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A host class whose class loader does not see pools.jar (its parent is the platform loader) keeps
 * its own allocations, said once for all loaders of that loader's class, instead of failing with
 * {@code NoClassDefFoundError} at its first allocation; the same class loaded by a loader that
 * delegates to the application's is served by the pools. At start-up ({@code -javaagent}) and
 * attached late ({@code Agent-Class}).
 */
class IsolatedLoaderIT {

    private static final List<String> SERVED_ONLY_WHERE_SEEN = List.of(
            "isolated: allocated 1000, pooled 0",
            "another isolated: allocated 1000, pooled 0",
            "delegating: allocated 1000, pooled 1");

    @TempDir
    Path dir;

    @BeforeEach
    void layout() throws Exception {
        Files.writeString(dir.resolve("layout.yaml"), "intercept:\n  packages: [it.host]\nreport:\n  file: none\n");
    }

    @Test
    void at_start_up_an_isolated_host_class_keeps_its_own_allocations_and_it_is_said() throws Exception {
        Forked.Result r = Forked.app(dir, List.of(Forked.agent(Path.of("layout.yaml"))), IsolatedHost.class);
        assertEquals(0, r.exit(), r.toString());
        assertEquals(SERVED_ONLY_WHERE_SEEN, r.out().lines().toList(), r.toString());
        assertSaidOnce(r);
    }

    @Test
    void attached_late_an_isolated_host_class_keeps_its_own_allocations_and_it_is_said() throws Exception {
        Forked.Result r = Forked.app(
                dir,
                List.of("-Djdk.attach.allowAttachSelf=true", "-XX:+EnableDynamicAgentLoading"),
                IsolatedHost.class,
                "attach",
                Forked.JAR.toString(),
                dir.resolve("layout.yaml").toString());
        assertEquals(0, r.exit(), r.toString());
        assertEquals(SERVED_ONLY_WHERE_SEEN, r.out().lines().toList(), r.toString());
        assertSaidOnce(r);
    }

    private static void assertSaidOnce(Forked.Result r) {
        List<String> said = r.errLines().stream()
                .filter(l -> l.startsWith("pools: cannot instrument the classes of java.net.URLClassLoader@"))
                .toList();
        assertEquals(1, said.size(), r.toString());
        assertTrue(
                said.get(0)
                        .endsWith("(it.host.Tensors first), which do not see pools.jar's classes (it does not find"
                                + " dev.pools.hosts.Allocations); they keep their own allocations"),
                said.get(0));
    }
}
