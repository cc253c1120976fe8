package dev.pools.hosts.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.pools.hosts.it.apps.OrtSession;
import dev.pools.it.Forked;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** ONNX Runtime's own copies of heap buffers are served from the pools, and the session computes the same. */
class OrtSessionIT {

    @TempDir
    Path dir;

    private Forked.Result run(String release, String api) throws Exception {
        Files.writeString(dir.resolve("layout.yaml"), """
                layout: sliced
                pools:
                  - page_size: 64 KiB
                report:
                  file: none
                release: %s
                """.formatted(release));
        Forked.Result r = HostJvm.run(dir, List.of(Forked.agent(Path.of("layout.yaml"))), OrtSession.class, api);
        assertEquals(0, r.exit(), r.toString());
        return r;
    }

    @Test
    void a_session_over_heap_buffer_tensors_computes_correctly_from_pool_copies() throws Exception {
        Forked.Result r = run("gc", "raw");
        assertEquals(List.of("[[11.0, 22.0, 33.0], [44.0, 55.0, 66.0]]"), HostJvm.values(r, "result").stream().distinct().toList());
        assertEquals(List.of("true", "true", "true"), HostJvm.values(r, "pooled-input"), "ONNX Runtime's input copies are pool memory");
        assertEquals("2 48 0", HostJvm.values(r, "usage-live").get(0), "two 24-byte copies: " + r);
        assertEquals("0 0 0", HostJvm.value(r, "usage-end"));
    }

    @Test
    void release_close_gives_the_copies_back_when_the_tensors_close() throws Exception {
        Forked.Result r = run("close", "raw");
        assertEquals(List.of("0 0 0", "0 0 0", "0 0 0"), HostJvm.values(r, "usage-after-close"), r.toString());
    }

    @Test
    void djl_onnxruntime_engine_runs_the_model_on_pool_memory() throws Exception {
        Forked.Result r = run("close", "djl");
        assertEquals(List.of("[11.0, 22.0, 33.0, 44.0, 55.0, 66.0]"), HostJvm.values(r, "result").stream().distinct().toList());
        assertTrue(HostJvm.values(r, "usage-live").stream().allMatch(u -> !u.startsWith("0 ")), "inputs were pooled: " + r);
        assertEquals(List.of("0 0 0", "0 0 0", "0 0 0"), HostJvm.values(r, "usage-after-close"),
                "closing the sub-manager closes the arrays, their tensors, and gives the copies back: " + r);
        assertEquals("0 0 0", HostJvm.value(r, "usage-end"));
    }
}
