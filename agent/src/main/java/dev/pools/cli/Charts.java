package dev.pools.cli;

import dev.pools.memory.Sizes;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Inline SVG charts for the HTML report: no script, no network, readable at a glance. Long series
 * are reduced to at most {@link #MAX_POINTS} points, keeping the largest value of each stretch so
 * that no peak disappears.
 */
final class Charts {

    static final int MAX_POINTS = 1200;
    private static final int WIDTH = 860;
    private static final int HEIGHT = 220;
    private static final int LEFT = 80;
    private static final int BOTTOM = 30;
    private static final int TOP = 12;

    /** A named series of (seconds, value) points, drawn in {@code color}, dashed if asked. */
    record Series(String name, String color, boolean dashed, double[] x, double[] y) {}

    private Charts() {}

    /** The largest value of each stretch of points, so that the series has at most {@link #MAX_POINTS}. */
    static double[][] reduce(double[] x, double[] y) {
        if (x.length <= MAX_POINTS) {
            return new double[][] {x, y};
        }
        int stretch = (x.length + MAX_POINTS - 1) / MAX_POINTS;
        int n = (x.length + stretch - 1) / stretch;
        double[] rx = new double[n];
        double[] ry = new double[n];
        for (int i = 0; i < n; i++) {
            int from = i * stretch;
            int to = Math.min(x.length, from + stretch);
            double max = Double.NEGATIVE_INFINITY;
            for (int j = from; j < to; j++) {
                max = Math.max(max, y[j]);
            }
            rx[i] = x[from];
            ry[i] = max;
        }
        return new double[][] {rx, ry};
    }

    /** What a chart's values are: bytes (binary units), a count, or a whole number (pages). */
    enum Kind {
        BYTES,
        COUNT,
        WHOLE
    }

    /**
     * A line chart over time, on a time axis of {@code duration} seconds shared by every chart of
     * the page. Each sample holds until the next (steps); hovering a sample shows its value.
     * {@code start} names the wall-clock time of second 0 in the hover text.
     */
    static String lines(String title, List<Series> series, Kind kind, double duration, Instant start) {
        double maxY = 0;
        for (Series s : series) {
            for (double v : s.y()) {
                maxY = Math.max(maxY, v);
            }
        }
        double[] yTicks = ticks(maxY, kind);
        double top = yTicks[yTicks.length - 1];
        double maxX = timeTicks(duration)[timeTicks(duration).length - 1];
        StringBuilder b = open(title);
        axes(b, yTicks, kind, timeTicks(duration), maxX);
        for (Series s : series) {
            double[][] r = reduce(s.x(), s.y());
            b.append(polyline(s, r, maxX, top));
        }
        for (Series s : series) {
            double[][] r = reduce(s.x(), s.y());
            hoverTargets(b, s.name(), r[0], r[1], r[1], maxX, top, kind, start);
        }
        legend(b, series);
        return b.append("</svg>\n").toString();
    }

    /**
     * Stacked areas over time: each layer's values sit on the sum of the layers before it, and the
     * lines (a total, a peak) are drawn over them; hovering a layer shows its own value.
     */
    static String stacked(String title, List<Series> layers, List<Series> lines, double duration, Instant start) {
        int n = layers.get(0).x().length;
        double[][] tops = new double[layers.size()][n];
        double maxY = 0;
        for (int i = 0; i < n; i++) {
            double sum = 0;
            for (int l = 0; l < layers.size(); l++) {
                sum += Math.max(0, layers.get(l).y()[i]);
                tops[l][i] = sum;
            }
            maxY = Math.max(maxY, sum);
        }
        for (Series s : lines) {
            for (double v : s.y()) {
                maxY = Math.max(maxY, v);
            }
        }
        double[] yTicks = ticks(maxY, Kind.BYTES);
        double top = yTicks[yTicks.length - 1];
        double[] xTicks = timeTicks(duration);
        double maxX = xTicks[xTicks.length - 1];
        StringBuilder b = open(title);
        axes(b, yTicks, Kind.BYTES, xTicks, maxX);
        double[] x = layers.get(0).x();
        for (int l = layers.size() - 1; l >= 0; l--) {
            // Drawn from the top layer down, each as the area under its running sum.
            StringBuilder points = new StringBuilder();
            points.append(fmt(px(x[0], maxX)))
                    .append(',')
                    .append(fmt(py(0, top)))
                    .append(' ');
            for (int i = 0; i < n; i++) {
                if (i > 0) {
                    points.append(fmt(px(x[i], maxX)))
                            .append(',')
                            .append(fmt(py(tops[l][i - 1], top)))
                            .append(' ');
                }
                points.append(fmt(px(x[i], maxX)))
                        .append(',')
                        .append(fmt(py(tops[l][i], top)))
                        .append(' ');
            }
            points.append(fmt(px(x[n - 1], maxX))).append(',').append(fmt(py(0, top)));
            b.append("<polygon class=\"layer\" data-series=\"")
                    .append(esc(layers.get(l).name()))
                    .append("\" fill=\"")
                    .append(layers.get(l).color())
                    .append("\" fill-opacity=\"0.75\" points=\"")
                    .append(points)
                    .append("\"/>\n");
        }
        for (Series s : lines) {
            b.append(polyline(s, reduce(s.x(), s.y()), maxX, top));
        }
        for (int l = 0; l < layers.size(); l++) {
            hoverTargets(b, layers.get(l).name(), x, tops[l], layers.get(l).y(), maxX, top, Kind.BYTES, start);
        }
        for (Series s : lines) {
            hoverTargets(b, s.name(), s.x(), s.y(), s.y(), maxX, top, Kind.BYTES, start);
        }
        List<Series> all = new ArrayList<>(layers);
        all.addAll(lines);
        legend(b, all);
        return b.append("</svg>\n").toString();
    }

    private static String polyline(Series s, double[][] r, double maxX, double top) {
        StringBuilder points = new StringBuilder();
        for (int i = 0; i < r[0].length; i++) {
            if (i > 0) {
                // A sample holds until the next one: draw steps, not slopes that invent values in between.
                points.append(fmt(px(r[0][i], maxX)))
                        .append(',')
                        .append(fmt(py(r[1][i - 1], top)))
                        .append(' ');
            }
            points.append(fmt(px(r[0][i], maxX)))
                    .append(',')
                    .append(fmt(py(r[1][i], top)))
                    .append(' ');
        }
        return "<polyline class=\"series\" data-series=\"" + esc(s.name()) + "\" fill=\"none\" stroke=\"" + s.color()
                + "\" stroke-width=\"2\"" + (s.dashed() ? " stroke-dasharray=\"6 4\"" : "") + " points=\""
                + points.toString().strip() + "\"/>\n";
    }

    /**
     * A transparent dot on each sample (at {@code ys}) whose title, shown by the browser under the
     * pointer, gives the time and the value ({@code values}); no script.
     */
    private static void hoverTargets(
            StringBuilder b,
            String name,
            double[] xs,
            double[] ys,
            double[] values,
            double maxX,
            double top,
            Kind kind,
            Instant start) {
        int stride = Math.max(1, (xs.length + MAX_POINTS - 1) / MAX_POINTS);
        for (int i = 0; i < xs.length; i += stride) {
            b.append("<circle class=\"hover\" cx=\"")
                    .append(fmt(px(xs[i], maxX)))
                    .append("\" cy=\"")
                    .append(fmt(py(ys[i], top)))
                    .append("\" r=\"5\" fill=\"transparent\" pointer-events=\"all\"><title>")
                    .append(esc(name + ": " + value(values[i], kind) + " at " + elapsed(xs[i]) + " ("
                            + CLOCK.format(start.plusMillis(Math.round(xs[i] * 1000))) + ")"))
                    .append("</title></circle>\n");
        }
    }

    private static final DateTimeFormatter CLOCK =
            DateTimeFormatter.ofPattern("HH:mm:ss 'UTC'").withZone(ZoneOffset.UTC);

    /**
     * Axis ticks at round values from 0 to at least {@code max}: 1, 2 or 5 times a power of ten of
     * the unit (for bytes, of B, KiB, MiB or GiB), whole numbers for pages; four to eight steps.
     */
    static double[] ticks(double max, Kind kind) {
        double unit = 1;
        if (kind == Kind.BYTES) {
            while (unit < (1L << 30) && max / unit >= 1024) {
                unit *= 1024;
            }
        }
        double m = Math.max(max / unit, kind == Kind.BYTES ? 1 : 1);
        double step = Math.pow(10, Math.floor(Math.log10(m / 4)));
        for (double f : new double[] {1, 2, 5, 10}) {
            if (m / (step * f) <= 8) {
                step *= f;
                break;
            }
        }
        if (kind == Kind.WHOLE) {
            step = Math.max(1, Math.round(step));
        }
        int n = (int) Math.ceil(m / step - 1e-9);
        n = Math.max(n, 1);
        double[] out = new double[n + 1];
        for (int i = 0; i <= n; i++) {
            out[i] = i * step * unit;
        }
        return out;
    }

    /** Time ticks in seconds at round steps (1, 2, 5, 10, 15, 30 s, 1, 2, 5, 10, 15, 30 min, hours). */
    static double[] timeTicks(double duration) {
        double[] steps = {1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 3 * 3600, 6 * 3600, 12 * 3600};
        double d = Math.max(duration, 1);
        double step = steps[steps.length - 1];
        for (double s : steps) {
            if (d / s <= 8) {
                step = s;
                break;
            }
        }
        int n = (int) Math.ceil(d / step - 1e-9);
        double[] out = new double[Math.max(n, 1) + 1];
        for (int i = 0; i < out.length; i++) {
            out[i] = i * step;
        }
        return out;
    }

    /** Seconds as people read them: 45 s, 2 min, 2 min 30 s, 1 h 5 min. */
    static String elapsed(double seconds) {
        long s = Math.round(seconds);
        if (s < 60 && Math.abs(seconds - s) > 0.05) {
            return String.format(Locale.ROOT, "%.1f s", seconds);
        }
        if (s < 60) {
            return s + " s";
        }
        if (s < 3600) {
            return s / 60 + " min" + (s % 60 == 0 ? "" : " " + s % 60 + " s");
        }
        return s / 3600 + " h" + (s % 3600 / 60 == 0 ? "" : " " + s % 3600 / 60 + " min");
    }

    static String value(double v, Kind kind) {
        return kind == Kind.BYTES ? Sizes.human((long) v) : fmtCount(v);
    }

    /** Horizontal bars: one row per label, a value and an optional limit drawn as a tick. */
    static String bars(String title, List<String> labels, double[] values, double[] limits, boolean bytes) {
        int rowHeight = 26;
        int height = TOP + BOTTOM + rowHeight * Math.max(1, labels.size());
        double max = 1;
        for (int i = 0; i < values.length; i++) {
            max = Math.max(max, Math.max(values[i], limits == null ? 0 : limits[i]));
        }
        StringBuilder b = new StringBuilder();
        b.append("<svg class=\"chart\" role=\"img\" aria-label=\"")
                .append(esc(title))
                .append("\" width=\"")
                .append(WIDTH)
                .append("\" height=\"")
                .append(height)
                .append("\" viewBox=\"0 0 ")
                .append(WIDTH)
                .append(' ')
                .append(height)
                .append("\" xmlns=\"http://www.w3.org/2000/svg\">\n");
        int labelWidth = 260;
        double span = WIDTH - labelWidth - 90;
        for (int i = 0; i < labels.size(); i++) {
            int y = TOP + i * rowHeight;
            double w = Math.max(1, values[i] / max * span);
            b.append("<text x=\"4\" y=\"")
                    .append(y + 17)
                    .append("\" font-size=\"12\">")
                    .append(esc(labels.get(i)))
                    .append("</text>\n");
            b.append("<rect class=\"bar\" x=\"")
                    .append(labelWidth)
                    .append("\" y=\"")
                    .append(y + 4)
                    .append("\" width=\"")
                    .append(fmt(w))
                    .append("\" height=\"18\" fill=\"#3b7dd8\"/>\n");
            b.append("<text x=\"")
                    .append(fmt(labelWidth + w + 6))
                    .append("\" y=\"")
                    .append(y + 17)
                    .append("\" font-size=\"12\">")
                    .append(esc(bytes ? Sizes.human((long) values[i]) : fmtCount(values[i])))
                    .append("</text>\n");
            if (limits != null && limits[i] > 0) {
                double lx = labelWidth + limits[i] / max * span;
                b.append("<line class=\"limit\" x1=\"")
                        .append(fmt(lx))
                        .append("\" x2=\"")
                        .append(fmt(lx))
                        .append("\" y1=\"")
                        .append(y + 1)
                        .append("\" y2=\"")
                        .append(y + 25)
                        .append("\" stroke=\"#c0392b\" stroke-width=\"3\"/>\n");
            }
        }
        return b.append("</svg>\n").toString();
    }

    private static StringBuilder open(String title) {
        StringBuilder b = new StringBuilder();
        b.append("<svg class=\"chart\" role=\"img\" aria-label=\"")
                .append(esc(title))
                .append("\" width=\"")
                .append(WIDTH)
                .append("\" height=\"")
                .append(HEIGHT)
                .append("\" viewBox=\"0 0 ")
                .append(WIDTH)
                .append(' ')
                .append(HEIGHT)
                .append("\" xmlns=\"http://www.w3.org/2000/svg\">\n");
        return b;
    }

    private static void axes(StringBuilder b, double[] yTicks, Kind kind, double[] xTicks, double maxX) {
        int x0 = LEFT;
        int y0 = HEIGHT - BOTTOM;
        double top = yTicks[yTicks.length - 1];
        b.append("<line x1=\"")
                .append(x0)
                .append("\" y1=\"")
                .append(TOP)
                .append("\" x2=\"")
                .append(x0)
                .append("\" y2=\"")
                .append(y0)
                .append("\" stroke=\"#888\"/>\n");
        b.append("<line x1=\"")
                .append(x0)
                .append("\" y1=\"")
                .append(y0)
                .append("\" x2=\"")
                .append(WIDTH - 10)
                .append("\" y2=\"")
                .append(y0)
                .append("\" stroke=\"#888\"/>\n");
        for (double v : yTicks) {
            double y = py(v, top);
            b.append("<text class=\"ytick\" x=\"")
                    .append(x0 - 6)
                    .append("\" y=\"")
                    .append(fmt(y + 4))
                    .append("\" font-size=\"11\" text-anchor=\"end\">")
                    .append(esc(value(v, kind)))
                    .append("</text>\n");
            b.append("<line x1=\"")
                    .append(x0)
                    .append("\" y1=\"")
                    .append(fmt(y))
                    .append("\" x2=\"")
                    .append(WIDTH - 10)
                    .append("\" y2=\"")
                    .append(fmt(y))
                    .append("\" stroke=\"#eee\"/>\n");
        }
        for (int i = 0; i < xTicks.length; i++) {
            double t = xTicks[i];
            b.append("<text class=\"xtick\" x=\"")
                    .append(fmt(px(t, maxX)))
                    .append("\" y=\"")
                    .append(y0 + 18)
                    .append("\" font-size=\"11\" text-anchor=\"")
                    .append(i == xTicks.length - 1 ? "end" : "middle")
                    .append("\">")
                    .append(esc(elapsed(t)))
                    .append("</text>\n");
        }
    }

    /** The series' names in a row over the chart, wrapped onto more rows when they do not fit. */
    private static void legend(StringBuilder b, List<Series> series) {
        int x = LEFT + 10;
        int y = TOP;
        for (Series s : series) {
            int width = 24 + 7 * s.name().length();
            if (x > LEFT + 10 && x + width > WIDTH - 10) {
                x = LEFT + 10;
                y += 14;
            }
            b.append("<rect x=\"")
                    .append(x)
                    .append("\" y=\"")
                    .append(y)
                    .append("\" width=\"12\" height=\"4\" fill=\"")
                    .append(s.color())
                    .append("\"/><text x=\"")
                    .append(x + 16)
                    .append("\" y=\"")
                    .append(y + 6)
                    .append("\" font-size=\"11\">")
                    .append(esc(s.name()))
                    .append("</text>\n");
            x += width;
        }
    }

    private static double px(double x, double maxX) {
        return LEFT + x / maxX * (WIDTH - LEFT - 10);
    }

    private static double py(double y, double maxY) {
        return HEIGHT - BOTTOM - y / maxY * (HEIGHT - BOTTOM - TOP - 10);
    }

    private static String fmt(double v) {
        return String.format(Locale.ROOT, "%.1f", v);
    }

    private static String fmtCount(double v) {
        return v == Math.rint(v) ? String.valueOf((long) v) : String.format(Locale.ROOT, "%.1f", v);
    }

    static String esc(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }
}
