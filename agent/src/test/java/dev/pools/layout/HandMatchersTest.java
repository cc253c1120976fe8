package dev.pools.layout;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
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
