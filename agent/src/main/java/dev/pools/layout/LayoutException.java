package dev.pools.layout;

/**
 * A layout that cannot be honoured, with where the problem is: a key path such as
 * {@code pools[1].max_slice} and, for a file, its name and line. {@link #getMessage()} is the one
 * line a user reads.
 */
public final class LayoutException extends Exception {

    /** Exit status for a user's mistake, the same for the agent (before {@code main}) and the CLI. */
    public static final int EXIT_STATUS = 2;

    private static final long serialVersionUID = 1L;

    private final String source;
    private final int line;
    private final String path;
    private final String rule;

    public LayoutException(String source, int line, String rule) {
        this(source, line, null, rule);
    }

    private LayoutException(String source, int line, String path, String rule) {
        super(oneLine(format(source, line, rule)));
        this.source = source;
        this.line = line;
        this.path = path;
        this.rule = oneLine(rule);
    }

    /**
     * {@code text} on one line: line breaks and other control characters written as escapes. A value
     * with a line break in it ({@code poison_on_free: |}) made the one line of an error two.
     */
    static String oneLine(String text) {
        if (text == null) {
            return null;
        }
        StringBuilder b = null;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            boolean breaks = Character.isISOControl(c) || c == '\u2028' || c == '\u2029';
            if (breaks && b == null) {
                b = new StringBuilder(text.length() + 8).append(text, 0, i);
            }
            if (b != null) {
                if (c == '\n') {
                    b.append("\\n");
                } else if (c == '\r') {
                    b.append("\\r");
                } else if (c == '\t') {
                    b.append("\\t");
                } else if (breaks) {
                    b.append(String.format("\\u%04x", (int) c));
                } else {
                    b.append(c);
                }
            }
        }
        return b == null ? text : b.toString();
    }

    /** A rule broken by a layout that did not come from a file (the API). */
    public LayoutException(String rule) {
        this(null, 0, null, rule);
    }

    /** A rule broken at a key path such as {@code pools[1].max_slice}; the rule's text starts with the path. */
    static LayoutException at(String path, String rule) {
        return new LayoutException(null, 0, path, rule);
    }

    /** The same rule, placed in a file. */
    LayoutException in(String source, int line) {
        return new LayoutException(source, line, path, rule);
    }

    /** The key path the rule is about, or null. */
    public String path() {
        return path;
    }

    private static String format(String source, int line, String rule) {
        if (source == null) {
            return rule;
        }
        return line > 0 ? source + ":" + line + ": " + rule : source + ": " + rule;
    }

    /** What is wrong, without file and line. */
    public String rule() {
        return rule;
    }

    public String source() {
        return source;
    }

    /** 1-based line, or 0 when unknown. */
    public int line() {
        return line;
    }
}
