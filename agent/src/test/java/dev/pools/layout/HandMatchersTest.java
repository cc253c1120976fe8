package dev.pools.layout;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The matchers written by hand for start-up agree with the regular expressions they stand for. */
class HandMatchersTest {

    private static final Pattern QUANTITY = Pattern.compile("\\s*(-?[0-9]+(?:\\.[0-9]+)?)\\s*([A-Za-z]*)\\s*");
    private static final Pattern PACKAGE = Pattern.compile("[A-Za-z_$][A-Za-z0-9_$]*(\\.[A-Za-z_$][A-Za-z0-9_$]*)*");
    private static final Pattern PLACEHOLDERS = Pattern.compile("([^%]|%[pth%])*");

    private static String random(Random r, String alphabet, int max) {
        StringBuilder b = new StringBuilder();
        for (int i = r.nextInt(max + 1); i > 0; i--) {
            b.append(alphabet.charAt(r.nextInt(alphabet.length())));
        }
        return b.toString();
    }

    @Test
    void quantities_as_the_regular_expression_reads_them() {
        Random r = new Random(14);
        int matched = 0;
        for (int i = 0; i < 200_000; i++) {
            String s = random(r, " \t\n\r\f\u000B-.0123456789KMGiBmsinxZ_", 8);
            Matcher m = QUANTITY.matcher(s);
            String[] hand = Quantities.quantity(s);
            if (m.matches()) {
                matched++;
                assertArrayEquals(new String[] {m.group(1), m.group(2)}, hand, "'" + s + "'");
            } else {
                assertEquals(null, hand, "'" + s + "'");
            }
        }
        assertTrue(matched > 1000, "matched " + matched);
    }

    /** What {@code read} gives, or the message it refuses with. */
    private static String outcome(Supplier<Object> read) {
        try {
            return "= " + read.get();
        } catch (IllegalArgumentException e) {
            return "! " + e.getMessage();
        }
    }

    @Test
    void whole_numbers_in_long_arithmetic_read_as_in_big_decimal_arithmetic() {
        Random r = new Random(14);
        String[] units = {"", " B", "KiB", " MiB", "GiB", " KB", "MB", "GB", " ms", "s", " min", " kb", " Mi"};
        int whole = 0;
        for (int i = 0; i < 100_000; i++) {
            // Up to 20 digits: across the 18 read as a long, and past the largest long.
            String number = (r.nextInt(10) == 0 ? "-" : "")
                    + random(r, "0123456789", 1 + r.nextInt(20))
                    + (r.nextInt(8) == 0 ? "." + random(r, "0123456789", 3) : "");
            String text = number + units[r.nextInt(units.length)];
            whole += Quantities.wholeNumber(number) >= 0 ? 1 : 0;
            assertEquals(
                    outcome(() -> Quantities.size("k", text, true)),
                    outcome(() -> Quantities.size("k", text, false)),
                    "size '" + text + "'");
            assertEquals(
                    outcome(() -> Quantities.duration("k", text, true)),
                    outcome(() -> Quantities.duration("k", text, false)),
                    "duration '" + text + "'");
        }
        assertTrue(whole > 30_000, "whole numbers among them: " + whole);
        assertEquals(9_223_372_036_854_775_807L, Quantities.size("k", "9223372036854775807"));
        assertEquals(-1, Quantities.wholeNumber("9223372036854775807"), "19 digits: in BigDecimal arithmetic");
        assertEquals(8L << 30, Quantities.size("k", "8 GiB"));
    }

    @Test
    void package_names_and_placeholders_as_the_regular_expressions_read_them() {
        Random r = new Random(14);
        int packages = 0;
        int placeholders = 0;
        for (int i = 0; i < 200_000; i++) {
            String p = random(r, "aZ_$09.-é ", 8);
            boolean isPackage = PACKAGE.matcher(p).matches();
            packages += isPackage ? 1 : 0;
            assertEquals(isPackage, LayoutFile.isPackageName(p), "'" + p + "'");
            String f = random(r, "%pth%xa.-/", 8);
            boolean known = PLACEHOLDERS.matcher(f).matches();
            placeholders += known ? 1 : 0;
            assertEquals(known, LayoutFile.knownPlaceholders(f), "'" + f + "'");
        }
        assertTrue(packages > 1000 && placeholders > 1000, packages + " " + placeholders);
    }
}
