package dev.pools.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.pools.it.apps.SeededWorkload;
import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The html page, opened in headless Chromium: the charts are there, drawn, and not empty. */
class HtmlIT {

    static final Path CHROMIUM = Path.of("/usr/bin/chromium");

    @TempDir
    Path dir;

    private List<String> chromium(String... args) {
        List<String> cmd = new ArrayList<>(List.of(
                CHROMIUM.toString(),
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--hide-scrollbars",
                "--user-data-dir=" + dir.resolve("profile")));
        cmd.addAll(List.of(args));
        return cmd;
    }

    @Test
    void the_page_renders_its_charts_in_a_browser() throws Exception {
        Requirements.require(Files.isExecutable(CHROMIUM), "Chromium (/usr/bin/chromium, Debian package chromium)");
        Files.writeString(
                dir.resolve("layout.yaml"),
                CliIT.GROWABLE.formatted("html").replace("period: 100 ms", "period: 50 ms"));
        Forked.Result run = Forked.app(dir, List.of(Forked.agent(Path.of("layout.yaml"))), SeededWorkload.class, "5");
        assertEquals(0, run.exit(), run.toString());
        Forked.Result html = Forked.cli(dir, "html", "seed-html.jfr", "-o", "report.html");
        assertEquals(0, html.exit(), html.toString());
        String page = Files.readString(dir.resolve("report.html"));
        assertTrue(!page.contains("<script"), "no scripts");
        assertTrue(
                !page.replace("http://www.w3.org/2000/svg", "").contains("http"), "self-contained: nothing to fetch");

        Forked.Result dom = Forked.run(
                dir, chromium("--dump-dom", dir.resolve("report.html").toUri().toString()));
        assertEquals(0, dom.exit(), dom.toString());
        String rendered = dom.out();
        int charts = count(rendered, "<svg class=\"chart\"");
        assertTrue(charts >= 5, "usage, one per pool, peaks, sizes, call sites: " + charts);
        Matcher series = Pattern.compile("<polyline class=\"series\" data-series=\"([^\"]+)\"[^>]* points=\"([^\"]*)\"")
                .matcher(rendered);
        int drawn = 0;
        while (series.find()) {
            String[] points = series.group(2).trim().split(" ");
            assertTrue(points.length >= 2, "series " + series.group(1) + " has points");
            drawn++;
        }
        assertTrue(drawn >= 4, "reserved, in use, and pages of three pools: " + drawn);
        assertTrue(count(rendered, "<rect class=\"bar\"") >= 5, "bars for peaks, sizes and call sites");
        assertTrue(rendered.contains("it.host.Tensors#allocate"));
        readable(rendered);

        Path png = dir.resolve("report.png");
        Forked.Result shot = Forked.run(
                dir,
                chromium(
                        "--screenshot=" + png,
                        "--window-size=1000,2600",
                        dir.resolve("report.html").toUri().toString()));
        assertEquals(0, shot.exit(), shot.toString());
        BufferedImage image = ImageIO.read(png.toFile());
        assertEquals(1000, image.getWidth());
        int blue = 0;
        int red = 0;
        int ink = 0;
        for (int y = 0; y < image.getHeight(); y++) {
            for (int x = 0; x < image.getWidth(); x++) {
                int rgb = image.getRGB(x, y) & 0xFFFFFF;
                if (rgb != 0xFFFFFF) {
                    ink++;
                }
                if (close(rgb, 0x3b7dd8)) {
                    blue++;
                }
                if (close(rgb, 0xc0392b)) {
                    red++;
                }
            }
        }
        assertTrue(ink > image.getWidth() * image.getHeight() / 50, "the page is not blank: " + ink + " pixels of ink");
        assertTrue(blue > 2000, "blue lines and bars are drawn: " + blue);
        // The red line's length in pixels depends on how the workload's reserved bytes moved in time
        // (a run's timing), so only its presence is asserted: a drawn line is far more than 40 pixels.
        assertTrue(red > 40, "red reserved line and caps are drawn: " + red);
    }

    /**
     * What makes the page readable: round axis ticks (whole pages, round sizes), times as people
     * write them, one time axis for every chart over time, a value under the pointer, and the
     * process's memory stacked by part.
     */
    private static void readable(String page) {
        assertTrue(!page.matches("(?s).*\\d{4}-\\d\\d-\\d\\dT\\d\\d:.*"), "no ISO-8601 timestamps");
        Matcher chart = Pattern.compile("(?s)<svg class=\"chart\" role=\"img\" aria-label=\"([^\"]+)\".*?</svg>")
                .matcher(page);
        List<String> lastTimes = new ArrayList<>();
        int pageCharts = 0;
        while (chart.find()) {
            String label = chart.group(1);
            List<String> y = all(chart.group(), "<text class=\"ytick\"[^>]*>([^<]*)</text>");
            List<String> x = all(chart.group(), "<text class=\"xtick\"[^>]*>([^<]*)</text>");
            if (label.startsWith("pages of pool")) {
                pageCharts++;
                assertTrue(y.stream().allMatch(v -> v.matches("\\d+")), "whole pages on " + label + ": " + y);
            } else if (!x.isEmpty()) {
                assertTrue(
                        y.stream().allMatch(v -> v.matches("\\d+ (B|KiB|MiB|GiB)")),
                        "round sizes on " + label + ": " + y);
            }
            if (!x.isEmpty()) {
                assertTrue(
                        x.stream().allMatch(v -> v.matches("\\d+ s|\\d+ min( \\d+ s)?|\\d+ h( \\d+ min)?")),
                        label + ": " + x);
                lastTimes.add(x.get(x.size() - 1));
                assertTrue(
                        chart.group().contains("<circle class=\"hover\"")
                                && chart.group()
                                        .matches(
                                                "(?s).*<title>[^<]+: [^<]+ at [^<]+ \\(\\d\\d:\\d\\d:\\d\\d UTC\\)</title>.*"),
                        "a value under the pointer on " + label);
            }
        }
        assertTrue(pageCharts >= 3, "a pages chart per pool");
        assertTrue(lastTimes.size() >= 5 && lastTimes.stream().distinct().count() == 1, "one time axis: " + lastTimes);
        assertEquals(6, count(page, "<polygon class=\"layer\""), "the process's memory in six stacked parts");
    }

    private static List<String> all(String text, String regex) {
        List<String> out = new ArrayList<>();
        Matcher m = Pattern.compile(regex).matcher(text);
        while (m.find()) {
            out.add(m.group(1));
        }
        return out;
    }

    private static boolean close(int rgb, int target) {
        for (int shift = 0; shift <= 16; shift += 8) {
            if (Math.abs(((rgb >> shift) & 0xFF) - ((target >> shift) & 0xFF)) > 24) {
                return false;
            }
        }
        return true;
    }

    private static int count(String text, String needle) {
        int n = 0;
        for (int i = text.indexOf(needle); i >= 0; i = text.indexOf(needle, i + 1)) {
            n++;
        }
        return n;
    }
}
