package dev.pools.it;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.pools.it.apps.OtherShape;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A host class left to the collector under release: close says so once; the host runs on. */
class HostShapeIT {

    @TempDir
    Path dir;

    /**
     * Under release: close, ONNX Runtime's tensor class (here a stand-in of another shape) is still
     * routed to the pools, and why its buffers stay with the collector is said once.
     */
    @Test
    void under_release_at_close_an_onnx_tensor_keeps_working_and_the_collector_line_is_said_once() throws Exception {
        Files.writeString(
                dir.resolve("layout.yaml"),
                "release: close\nintercept:\n  packages: [ai.onnxruntime]\nreport:\n  file: none\n");
        Forked.Result r = Forked.app(dir, List.of(Forked.agent(Path.of("layout.yaml"))), OtherShape.class);
        assertEquals(0, r.exit(), r.toString());
        assertEquals(
                List.of("first 0.0", "pooled 1", "closed"),
                r.out().lines().toList(),
                "its allocation is routed to the pools");
        assertEquals(
                List.of("pools: release: close leaves ai.onnxruntime.OnnxTensor to the collector: a session's output"
                        + " may share an input tensor's memory (a graph output that is an input, an aliasing operator"
                        + " such as Reshape) and outlive the tensor's close"),
                r.errLines());
    }
}
