package dev.pools.it;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.pools.it.apps.OtherShape;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** An instrumentation that does not find the shape it expects skips itself with one line; the host runs on. */
class HostShapeIT {

    @TempDir
    Path dir;

    @Test
    void a_host_class_of_another_shape_keeps_working_and_the_skip_is_said_once() throws Exception {
        Files.writeString(
                dir.resolve("layout.yaml"),
                "release: close\nintercept:\n  packages: [ai.onnxruntime]\nreport:\n  file: none\n");
        Forked.Result r = Forked.app(dir, List.of(Forked.agent(Path.of("layout.yaml"))), OtherShape.class);
        assertEquals(0, r.exit(), r.toString());
        assertEquals(
                List.of("first 0.0", "pooled 1", "closed"),
                r.out().lines().toList(),
                "its allocation is still routed to the pools; only the close hook is skipped");
        assertEquals(
                List.of("pools: release: close is not available for ai.onnxruntime.OnnxTensor"
                        + " (no field buffer of type java.nio.Buffer); its buffers are released by the collector"),
                r.errLines());
    }
}
