package dev.pools.cli;

import dev.pools.memory.Sizes;
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

    /** A line chart over time; {@code bytes} labels the axis in binary units, otherwise as counts. */
    static String lines(String title, List<Series> series, boolean bytes) {
        double maxX = 1;
        double maxY = 1;
        for (Series s : series) {
            for (double v : s.x()) {
                maxX = Math.max(maxX, v);
            }
            for (double v : s.y()) {
                maxY = Math.max(maxY, v);
            }
        }
        maxY *= 1.08;
        StringBuilder b = open(title);
        axes(b, maxX, maxY, bytes);
        for (Series s : series) {
            double[][] r = reduce(s.x(), s.y());
            StringBuilder points = new StringBuilder();
            for (int i = 0; i < r[0].length; i++) {
                if (i > 0) {
                    // A sample holds until the next one: draw steps, not slopes that invent values in between.
                    points.append(fmt(px(r[0][i], maxX)))
                            .append(',')
                            .append(fmt(py(r[1][i - 1], maxY)))
                            .append(' ');
                }
                points.append(fmt(px(r[0][i], maxX)))
                        .append(',')
                        .append(fmt(py(r[1][i], maxY)))
                        .append(' ');
            }
            b.append("<polyline class=\"series\" data-series=\"")
                    .append(esc(s.name()))
                    .append("\" fill=\"none\" stroke=\"")
                    .append(s.color())
                    .append("\" stroke-width=\"2\"")
                    .append(s.dashed() ? " stroke-dasharray=\"6 4\"" : "")
                    .append(" points=\"")
                    .append(points.toString().strip())
                    .append("\"/>\n");
        }
        legend(b, series);
        return b.append("</svg>\n").toString();
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

    private static void axes(StringBuilder b, double maxX, double maxY, boolean bytes) {
        int x0 = LEFT;
        int y0 = HEIGHT - BOTTOM;
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
        for (int i = 0; i <= 4; i++) {
            double v = maxY * i / 4;
            double y = py(v, maxY);
            b.append("<text x=\"")
                    .append(x0 - 6)
                    .append("\" y=\"")
                    .append(fmt(y + 4))
                    .append("\" font-size=\"11\" text-anchor=\"end\">")
                    .append(esc(bytes ? Sizes.human((long) v) : fmtCount(v)))
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
        for (int i = 0; i <= 4; i++) {
            double t = maxX * i / 4;
            b.append("<text x=\"")
                    .append(fmt(px(t, maxX)))
                    .append("\" y=\"")
                    .append(y0 + 18)
                    .append("\" font-size=\"11\" text-anchor=\"")
                    .append(i == 4 ? "end" : "middle")
                    .append("\">")
                    .append(fmtCount(t))
                    .append(" s</text>\n");
        }
    }

    private static void legend(StringBuilder b, List<Series> series) {
        int x = LEFT + 10;
        for (Series s : series) {
            b.append("<rect x=\"")
                    .append(x)
                    .append("\" y=\"")
                    .append(TOP)
                    .append("\" width=\"12\" height=\"4\" fill=\"")
                    .append(s.color())
                    .append("\"/><text x=\"")
                    .append(x + 16)
                    .append("\" y=\"")
                    .append(TOP + 6)
                    .append("\" font-size=\"11\">")
                    .append(esc(s.name()))
                    .append("</text>\n");
            x += 24 + 7 * s.name().length();
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
