package dev.pools.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.pools.it.apps.EarlyLoader;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.jar.Attributes;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A class of an intercepted package loaded before the pools' premain is instrumented all the same. */
class EarlyClassesIT {

    @TempDir
    Path dir;

    @Test
    void a_class_another_agent_loaded_first_is_retransformed_and_said() throws Exception {
        Manifest manifest = new Manifest();
        manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        manifest.getMainAttributes().put(new Attributes.Name("Premain-Class"), EarlyLoader.class.getName());
        try (OutputStream out = Files.newOutputStream(dir.resolve("early.jar"));
                JarOutputStream jar = new JarOutputStream(out, manifest)) {
            // The manifest alone: the agent class comes from the application's class path.
        }
        Files.writeString(dir.resolve("layout.yaml"), "intercept:\n  packages: [it.host]\nreport:\n  file: none\n");
        Forked.Result r = Forked.app(
                dir,
                List.of("-javaagent:" + dir.resolve("early.jar"), Forked.agent(Path.of("layout.yaml"))),
                EarlyLoader.class);
        assertEquals(0, r.exit(), r.toString());
        assertEquals(List.of("pooled 1"), r.out().lines().toList(), r.toString());
        assertTrue(r.err().contains("pools: 1 already loaded class re-instrumented (1 changed"), r.err());
    }
}
