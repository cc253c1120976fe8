package dev.pools.hosts.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.pools.hosts.it.apps.OrtEmbeddingService;
import dev.pools.it.Forked;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An ONNX Runtime embedding service of four request threads under the agent with no layout file:
 * the default layout (host) computes the same embeddings and reserves at most twice what the
 * service held plus 1 MiB, where the seed's GPU ladder reserved a 16 MiB page.
 */
class OrtEmbeddingIT {

    @TempDir
    Path dir;

    private static final Pattern CHECKSUM = Pattern.compile("served \\d+ sentences in .* checksum (\\p{XDigit}{16})");
    /** A sliced pool's row of report: index, page size, its unit, peak pages. */
    private static final Pattern POOL_ROW =
            Pattern.compile("(?m)^ +(\\d+) +sliced +([0-9.]+) (B|KiB|MiB) +\\S+ \\S+ +\\S+ +\\d+ +(\\d+) ");
    /** A call site's row of report: peak live bytes and unit. */
    private static final Pattern SITE_ROW =
            Pattern.compile("(?m)^ +ai\\.onnxruntime\\.\\S+ +\\d+ +[0-9.]+ \\S+ +([0-9.]+) (B|KiB|MiB) +\\d+$");

    @Test
    void the_default_layout_reserves_at_most_twice_the_peak_in_use_plus_one_mib() throws Exception {
        Forked.Result plain = HostJvm.run(dir, List.of(), OrtEmbeddingService.class, "4", "60");
        assertEquals(0, plain.exit(), plain.toString());
        Matcher expected = CHECKSUM.matcher(plain.out());
        assertTrue(expected.find(), plain.toString());

        Forked.Result pooled = HostJvm.run(dir, List.of(Forked.agent(null)), OrtEmbeddingService.class, "4", "60");
        assertEquals(0, pooled.exit(), pooled.toString());
        Matcher got = CHECKSUM.matcher(pooled.out());
        assertTrue(got.find(), pooled.toString());
        assertEquals(expected.group(1), got.group(1), "the same embeddings under the pools");

        Forked.Result report = Forked.reportOfDefaultRecording(dir);
        assertEquals(0, report.exit(), report.toString());
        assertTrue(report.out().contains("layout host (default: no layout file given)"), report.out());
        assertTrue(report.out().contains("fallbacks:         0 (0 B)   refusals: 0"), report.out());
        // Peaks the agent keeps exactly, not samples: each pool's most pages, each call site's most live bytes.
        double reserved = 0;
        Matcher pool = POOL_ROW.matcher(report.out());
        while (pool.find()) {
            reserved += bytes(pool.group(2), pool.group(3)) * Long.parseLong(pool.group(4));
        }
        double inUse = 0;
        Matcher site = SITE_ROW.matcher(report.out());
        while (site.find()) {
            inUse = Math.max(inUse, bytes(site.group(1), site.group(2)));
        }
        assertTrue(reserved > 0 && inUse > 0, report.out());
        assertTrue(
                reserved <= 2 * inUse + (1 << 20),
                "reserved " + reserved + " B for " + inUse + " B in use:\n" + report.out());
    }

    private static double bytes(String number, String unit) {
        double v = Double.parseDouble(number);
        return switch (unit) {
            case "KiB" -> v * 1024;
            case "MiB" -> v * 1024 * 1024;
            default -> v;
        };
    }
}
