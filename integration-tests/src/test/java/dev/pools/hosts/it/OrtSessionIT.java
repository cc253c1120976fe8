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
        Files.writeString(
                dir.resolve("layout.yaml"),
                """
                layout: sliced
                pools:
                  - page_size: 64 KiB
                report:
                  file: none
                release: %s
                """
                        .formatted(release));
        Forked.Result r = HostJvm.run(dir, List.of(Forked.agent(Path.of("layout.yaml"))), OrtSession.class, api);
        assertEquals(0, r.exit(), r.toString());
        return r;
    }

    @Test
    void a_session_over_heap_buffer_tensors_computes_correctly_from_pool_copies() throws Exception {
        Forked.Result r = run("gc", "raw");
        assertEquals(
                List.of("[[11.0, 22.0, 33.0], [44.0, 55.0, 66.0]]"),
                HostJvm.values(r, "result").stream().distinct().toList());
        assertEquals(
                List.of("true", "true", "true"),
                HostJvm.values(r, "pooled-input"),
                "ONNX Runtime's input copies are pool memory");
        assertEquals("2 48 0", HostJvm.values(r, "usage-live").get(0), "two 24-byte copies: " + r);
        assertEquals("0 0 0", HostJvm.value(r, "usage-end"));
    }

    @Test
    void release_close_gives_the_copies_back_when_the_tensors_close() throws Exception {
        Forked.Result r = run("close", "raw");
        assertEquals(List.of("0 0 0", "0 0 0", "0 0 0"), HostJvm.values(r, "usage-after-close"), r.toString());
    }

    @Test
    void release_close_frees_only_buffers_the_tensor_made_itself_and_never_handed_out() throws Exception {
        Forked.Result r = run("close", "ownership");
        assertEquals("true", HostJvm.value(r, "pooled-caller-buffer"), r.toString());
        assertEquals(List.of("false", "false"), HostJvm.values(r, "owns-caller-buffer"));
        assertEquals(
                List.of("true", "true"),
                HostJvm.values(r, "caller-buffer-live-after-close"),
                "a caller's buffer stays the caller's after the tensor over it closes");
        assertEquals(
                List.of("[[11.0, 22.0, 33.0], [44.0, 55.0, 66.0]]"),
                HostJvm.values(r, "result").stream().distinct().toList(),
                "the caller's buffer, rewritten and reused, still holds the caller's data");
        assertEquals(
                "[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]",
                HostJvm.value(r, "view-after-close"),
                "a view from getBufferRef outlives close");
        assertEquals("true", HostJvm.value(r, "view-live-after-close"));
        assertEquals(
                "false",
                HostJvm.value(r, "owned-live-after-close"),
                "an owned buffer never handed out goes back at close");
        assertEquals("false", HostJvm.value(r, "buffer-ref-after-close"), "no view of released memory after close");
        assertEquals("0", HostJvm.value(r, "double-releases"), "a second close is not a double release");
        assertEquals("0 0 0", HostJvm.value(r, "usage-end"));
    }

    @Test
    void djl_onnxruntime_engine_runs_the_model_on_pool_memory() throws Exception {
        Forked.Result r = run("close", "djl");
        assertEquals(
                List.of("[11.0, 22.0, 33.0, 44.0, 55.0, 66.0]"),
                HostJvm.values(r, "result").stream().distinct().toList());
        assertTrue(
                HostJvm.values(r, "usage-live").stream().allMatch(u -> !u.startsWith("0 ")),
                "inputs were pooled: " + r);
        // DJL hands ONNX Runtime direct buffers of its own: the tensors do not own them, so even under
        // release: close they go back when the collector finds them unreachable (usage-end, after a collection).
        assertEquals("0 0 0", HostJvm.value(r, "usage-end"));
    }
}
