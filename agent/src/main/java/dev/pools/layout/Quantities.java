package dev.pools.layout;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;

/**
 * Sizes and durations as a layout file writes them: {@code 65536}, {@code 64 KiB}, {@code 1.5MiB},
 * {@code 1 GB}; {@code 500 ms}, {@code 1 s}, {@code 2 min}, {@code 0}.
 */
public final class Quantities {

    /**
     * {@code text} as {number, unit} (the unit possibly empty), or null: what the regular expression
     * {@code \s*(-?[0-9]+(?:\.[0-9]+)?)\s*([A-Za-z]*)\s*} matches, read by hand because the first
     * regular expression of a JVM costs premain milliseconds ({@code QuantitiesTest} compares both).
     */
    static String[] quantity(String text) {
        int n = text.length();
        int i = spaces(text, 0);
        int start = i;
        if (i < n && text.charAt(i) == '-') {
            i++;
        }
        int digits = digits(text, i);
        if (digits == 0) {
            return null;
        }
        i += digits;
        if (i < n && text.charAt(i) == '.') {
            int fraction = digits(text, i + 1);
            if (fraction == 0) {
                return null;
            }
            i += 1 + fraction;
        }
        String number = text.substring(start, i);
        i = spaces(text, i);
        int unitStart = i;
        while (i < n
                && (text.charAt(i) >= 'A' && text.charAt(i) <= 'Z' || text.charAt(i) >= 'a' && text.charAt(i) <= 'z')) {
            i++;
        }
        String unit = text.substring(unitStart, i);
        return spaces(text, i) == n ? new String[] {number, unit} : null;
    }

    /** {@code number} (as {@link #quantity} returns it) as a long when it is a whole number of at most 18 digits; else -1. */
    static long wholeNumber(String number) {
        int n = number.length();
        if (n == 0 || n > 18 || digits(number, 0) != n) {
            return -1;
        }
        return Long.parseLong(number);
    }

    private static int digits(String text, int from) {
        int i = from;
        while (i < text.length() && text.charAt(i) >= '0' && text.charAt(i) <= '9') {
            i++;
        }
        return i - from;
    }

    /** The index after the white space ({@code \s}: space, tab, line feed, vertical tab, form feed, return) from {@code from}. */
    private static int spaces(String text, int from) {
        int i = from;
        while (i < text.length() && " \t\n\u000B\f\r".indexOf(text.charAt(i)) >= 0) {
            i++;
        }
        return i;
    }

    private static final Map<String, Long> SIZE_UNITS = Map.of(
            "B",
            1L,
            "KiB",
            1L << 10,
            "MiB",
            1L << 20,
            "GiB",
            1L << 30,
            "KB",
            1_000L,
            "MB",
            1_000_000L,
            "GB",
            1_000_000_000L);

    private static final Map<String, Long> DURATION_UNITS_MS = Map.of("ms", 1L, "s", 1_000L, "min", 60_000L);

    private Quantities() {}

    /** Bytes for {@code text}; the message of the exception is the rule broken, for {@code key}. */
    public static long size(String key, String text) throws IllegalArgumentException {
        return size(key, text, false);
    }

    /**
     * As above; {@code exactOnly}: in {@code BigDecimal} arithmetic even for a whole number (the
     * tests' reference). A whole number is read in {@code long} arithmetic: the first use of
     * {@code BigDecimal} in a JVM costs {@code premain} milliseconds (tens on JDK 25, whose class-data
     * archive does not hold it).
     */
    static long size(String key, String text, boolean exactOnly) throws IllegalArgumentException {
        String[] m = quantity(text);
        if (m == null) {
            throw new IllegalArgumentException(key + ": '" + text + "' is not a size (expected bytes or a number"
                    + " with a unit: B, KiB, MiB, GiB, KB, MB, GB)");
        }
        String unit = m[1].isEmpty() ? "B" : m[1];
        Long multiplier = SIZE_UNITS.get(unit);
        if (multiplier == null) {
            String near = DidYouMean.closest(unit, SIZE_UNITS.keySet());
            throw new IllegalArgumentException(key + ": unknown unit '" + unit + "' in '" + text.trim() + "'"
                    + (near == null ? "" : " (did you mean '" + near + "'?)")
                    + "; expected B, KiB, MiB, GiB, KB, MB or GB");
        }
        long whole = wholeNumber(m[0]);
        if (whole >= 0 && !exactOnly) {
            try {
                return Math.multiplyExact(whole, multiplier);
            } catch (ArithmeticException e) {
                throw new IllegalArgumentException(
                        key + ": '" + text.trim() + "' is too large (the largest size is 2 GiB)");
            }
        }
        BigDecimal bytes = new BigDecimal(m[0]).multiply(BigDecimal.valueOf(multiplier));
        if (bytes.signum() < 0) {
            throw new IllegalArgumentException(
                    key + ": '" + text.trim() + "' is negative (expected a size of at least 1 byte)");
        }
        if (bytes.compareTo(BigDecimal.valueOf(Long.MAX_VALUE)) > 0) {
            throw new IllegalArgumentException(
                    key + ": '" + text.trim() + "' is too large (the largest size is 2 GiB)");
        }
        try {
            return bytes.longValueExact();
        } catch (ArithmeticException e) {
            throw new IllegalArgumentException(key + ": '" + text.trim() + "' is not a whole number of bytes");
        }
    }

    public static Duration duration(String key, String text) throws IllegalArgumentException {
        return duration(key, text, false);
    }

    /** As above; {@code exactOnly} as for {@link #size(String, String, boolean)}. */
    static Duration duration(String key, String text, boolean exactOnly) throws IllegalArgumentException {
        String[] m = quantity(text);
        if (m == null) {
            throw new IllegalArgumentException(
                    key + ": '" + text + "' is not a duration (expected e.g. 500 ms, 1 s, 2 min, or 0)");
        }
        String unit = m[1].toLowerCase(Locale.ROOT);
        long whole = exactOnly ? -1 : wholeNumber(m[0]);
        BigDecimal amount = whole >= 0 ? null : new BigDecimal(m[0]);
        if (amount != null && amount.signum() < 0) {
            throw new IllegalArgumentException(key + ": '" + text.trim() + "' is negative");
        }
        if (unit.isEmpty()) {
            if (amount == null ? whole == 0 : amount.signum() == 0) {
                return Duration.ZERO;
            }
            throw new IllegalArgumentException(key + ": '" + text.trim() + "' has no unit (expected ms, s or min)");
        }
        Long ms = DURATION_UNITS_MS.get(unit);
        if (ms == null) {
            throw new IllegalArgumentException(
                    key + ": unknown unit '" + m[1] + "' in '" + text.trim() + "' (expected ms, s or min)");
        }
        try {
            return Duration.ofMillis(
                    amount == null
                            ? Math.multiplyExact(whole, ms)
                            : amount.multiply(BigDecimal.valueOf(ms)).longValueExact());
        } catch (ArithmeticException e) {
            throw new IllegalArgumentException(
                    key + ": '" + text.trim() + "' is not a whole number of milliseconds or is too large");
        }
    }

    /** A duration as a layout file would write it. */
    public static String duration(Duration d) {
        long ms = d.toMillis();
        if (ms == 0) {
            return "0";
        }
        if (ms % 60_000 == 0) {
            return ms / 60_000 + " min";
        }
        if (ms % 1000 == 0) {
            return ms / 1000 + " s";
        }
        return ms + " ms";
    }
}
