package dev.pools.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.pools.it.apps.DropAndAllocate;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One capped 320 MiB page and twenty 300 MiB buffers, each dropped before the next, under
 * {@code on_exhausted: fail}: every request is served, because the exhausted path waits until the
 * collector's releases are back in the pool before it refuses.
 */
class ExhaustionIT {

    @TempDir
    Path dir;

    @Test
    void a_capped_page_full_of_unreachable_buffers_never_refuses() throws Exception {
        Files.writeString(
                dir.resolve("layout.yaml"),
                """
                layout: sliced
                pools:
                  - page_size: 320 MiB
                    pages: 1
                intercept:
                  packages: [it.host]
                on_exhausted: fail
                report:
                  file: none
                """);
        Forked.Result r = Forked.app(
                dir,
                List.of(Forked.agent(Path.of("layout.yaml")), "-Xmx256m", "-XX:MaxDirectMemorySize=1g"),
                DropAndAllocate.class,
                "20",
                "300");
        assertEquals(0, r.exit(), r.toString());
        assertTrue(r.out().startsWith("served 20, "), r.out());
        assertTrue(r.err().isBlank(), r.err());
    }
}
