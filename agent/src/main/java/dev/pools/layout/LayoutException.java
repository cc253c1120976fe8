package dev.pools.layout;

/**
 * A layout that cannot be honoured, with where the problem is: a key path such as
 * {@code pools[1].max_slice} and, for a file, its name and line. {@link #getMessage()} is the one
 * line a user reads.
 */
public final class LayoutException extends Exception {

    private static final long serialVersionUID = 1L;

    private final String source;
    private final int line;
    private final String rule;

    public LayoutException(String source, int line, String rule) {
        super(format(source, line, rule));
        this.source = source;
        this.line = line;
        this.rule = rule;
    }

    /** A rule broken by a layout that did not come from a file (the API). */
    public LayoutException(String rule) {
        this(null, 0, rule);
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
