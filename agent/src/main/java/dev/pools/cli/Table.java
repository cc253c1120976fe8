package dev.pools.cli;

import java.util.ArrayList;
import java.util.List;

/** A plain-text table: a header row and data rows, columns padded to their widest cell; numbers right-aligned. */
final class Table {

    private final List<String[]> rows = new ArrayList<>();
    private final boolean[] right;

    Table(String... header) {
        rows.add(header);
        right = new boolean[header.length];
    }

    Table rightAligned(int... columns) {
        for (int c : columns) {
            right[c] = true;
        }
        return this;
    }

    Table row(Object... cells) {
        String[] r = new String[cells.length];
        for (int i = 0; i < cells.length; i++) {
            r[i] = String.valueOf(cells[i]);
        }
        rows.add(r);
        return this;
    }

    @Override
    public String toString() {
        int[] width = new int[right.length];
        for (String[] r : rows) {
            for (int i = 0; i < r.length; i++) {
                width[i] = Math.max(width[i], r[i].length());
            }
        }
        StringBuilder b = new StringBuilder();
        for (String[] r : rows) {
            StringBuilder line = new StringBuilder();
            for (int i = 0; i < r.length; i++) {
                String pad = " ".repeat(width[i] - r[i].length());
                line.append(i == 0 ? "  " : "  ").append(right[i] ? pad + r[i] : r[i] + pad);
            }
            b.append(line.toString().stripTrailing()).append('\n');
        }
        return b.toString();
    }
}
