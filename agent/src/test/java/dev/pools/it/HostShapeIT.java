package dev.pools.it;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.pools.it.apps.OtherShape;
import dev.pools.it.apps.UnusualCalls;
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

    /**
     * The less usual ways a host class asks for direct memory are served by the pools too, with
     * allocateDirect's contract: a method reference ({@code ByteBuffer::allocateDirect}, an
     * invokedynamic), the call named through {@code MappedByteBuffer}, and a class a loader defined
     * with no name given. Before, each kept its own allocation, and nothing was said.
     */
    @Test
    void method_references_calls_through_mapped_byte_buffer_and_unnamed_definitions_are_served() throws Exception {
        Files.writeString(
                dir.resolve("layout.yaml"),
                "layout: sliced\npools:\n  - page_size: 1 MiB\nintercept:\n  packages: [it.host]\nreport:\n"
                        + "  file: none\n");
        Forked.Result r = Forked.app(dir, List.of(Forked.agent(Path.of("layout.yaml"))), UnusualCalls.class);
        assertEquals(0, r.exit(), r.toString());
        assertEquals(
                List.of(
                        "method reference: pooled 1, capacity 24, position 0, zero true, direct true",
                        "through MappedByteBuffer: pooled 1, capacity 40, position 0, zero true, direct true",
                        "defined without a name: pooled 1, capacity 56, position 0, zero true, direct true"),
                r.out().lines().toList());
        assertEquals(List.of(), r.errLines());
    }
}
