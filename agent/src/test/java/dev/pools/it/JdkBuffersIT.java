package dev.pools.it;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.pools.it.apps.JdkBuffers;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The JDK's own direct buffers (file and socket I/O) keep working under the agent and are not counted. */
class JdkBuffersIT {

    @TempDir
    Path dir;

    @Test
    void file_and_socket_io_of_heap_buffers_work_and_stay_out_of_the_pools() throws Exception {
        Files.writeString(dir.resolve("layout.yaml"), "intercept:\n  packages: [it.host]\nreport:\n  file: none\n");
        Forked.Result r = Forked.app(dir, List.of(Forked.agent(Path.of("layout.yaml"))), JdkBuffers.class);
        assertEquals(0, r.exit(), r.toString());
        assertEquals(
                List.of(
                        "host-pooled 1",
                        "file-roundtrip true",
                        "socket-roundtrip true",
                        "pooled-after-io 1",
                        "tensor 4096"),
                r.out().lines().toList(),
                "only the host's allocation is pooled");
        assertEquals("", r.err());
    }
}
