package dev.pools.cli;

import dev.pools.layout.LayoutPrinter;
import dev.pools.layout.Layouts;
import dev.pools.layout.PoolsConfig;
import dev.pools.memory.PoolKind;
import dev.pools.memory.PoolSpec;
import dev.pools.memory.Sizes;
import dev.pools.recording.EventNames;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/** The capped layout, with a comment on every decision that is not just "peak plus headroom". */
final class CappedLayout {
    private final PoolsConfig config;
    private final List<RecordingSummary> runs;
    private final double headroom;
    private final StringBuilder b = new StringBuilder();
    /** Bytes of the capped pools' pages: what they may reserve, for the direct memory limit; -1 when uncapped. */
    private long cappedBytes;

    /** The page-size search of {@code --fit}, or null for caps only. */
    private final PageFit.Search search;

    CappedLayout(PoolsConfig config, List<RecordingSummary> runs, double headroom, PageFit.Search search) {
        this.config = config;
        this.runs = runs;
        this.headroom = headroom;
        this.search = search;
    }

    String write() {
        RecordingSummary first = runs.get(0);
        b.append("# Suggested by 'pools.jar suggest' from ")
                .append(runs.size())
                .append(runs.size() == 1 ? " recording" : " recordings")
                .append(" of layout ")
                .append(first.layoutKind)
                .append(", headroom ")
                .append(percent(headroom))
                .append(".\n");
        if (search == null && !first.layoutKind.equals(PoolKind.DIRECT.label())) {
            b.append("# Each pool is capped at the most pages it held, plus headroom.\n");
        }
        for (RecordingSummary r : runs) {
            if (r.recoveredFrom != null) {
                b.append("# ")
                        .append(r.file.getFileName())
                        .append(
                                r.running
                                        ? ": read while its JVM runs, up to its last batch.\n"
                                        : ": recovered from a JVM that did not exit cleanly, up to its last batch.\n");
            }
            if (r.attachedLate) {
                b.append("# ")
                        .append(r.name())
                        .append(' ')
                        .append(missesStart(r))
                        .append(".\n");
            }
        }
        if (search != null) {
            fitted();
        } else if (first.layoutKind.equals(PoolKind.DIRECT.label())) {
            growableFromDirect();
        } else {
            capped();
        }
        refusals();
        budget();
        return b.append(LayoutPrinter.printSettings(config)).toString();
    }

    private long peak(int index) {
        long peak = 0;
        for (RecordingSummary r : runs) {
            peak = Math.max(peak, r.pools.get(index).pagesPeak());
        }
        return peak;
    }

    /**
     * The most live allocations an exclusive pool held at once, over the runs; -1 if a recording does
     * not say (an agent before the field).
     */
    private long allocsPeak(int index) {
        long peak = 0;
        for (RecordingSummary r : runs) {
            long p = r.pools.get(index).allocsPeak();
            if (p < 0) {
                return -1;
            }
            peak = Math.max(peak, p);
        }
        return peak;
    }

    private long largest(int index) {
        long largest = 0;
        for (RecordingSummary r : runs) {
            largest = Math.max(largest, r.pools.get(index).largestAlloc());
        }
        return largest;
    }

    private long cap(long peak) {
        return Math.min(Layouts.MAX_PAGES, Math.max(1, (long) Math.ceil(peak * (1 + headroom) - 1e-9)));
    }

    private void capped() {
        b.append("layout: sliced\npools:\n");
        for (RecordingSummary.Pool p : runs.get(0).pools.values()) {
            long peak = peak(p.index());
            long largest = largest(p.index());
            if (p.kind().equals(PoolKind.EXCLUSIVE.label())) {
                if (peak == 0) {
                    b.append("  # pool ")
                            .append(p.index())
                            .append(": the exclusive pool for requests up to ")
                            .append(Sizes.human(p.maxSlice()))
                            .append(" was never used; left out (such requests go to the next pool"
                                    + " that takes them, or are exhausted)\n");
                    continue;
                }
                long page = Sizes.roundUp(largest);
                b.append("  # pool ")
                        .append(p.index())
                        .append(": was an exclusive pool (one page per allocation, up to ")
                        .append(Sizes.human(p.maxSlice()))
                        .append("); as a sliced pool its pages are sized to the largest request\n");
                // Its pages peak also counts free pages of other sizes waiting to be reused or to age
                // out. A sliced pool of pages of the largest request needs at most one page per live
                // allocation (it makes a page only when no free room fits, and an empty page always
                // fits): the peak of live allocations bounds it.
                long live = allocsPeak(p.index());
                if (live >= 0 && live < peak) {
                    b.append("  # it held ")
                            .append(peak)
                            .append(" pages at its peak, for at most ")
                            .append(live)
                            .append(" live allocations at once: capped at those\n");
                    peak = live;
                }
                pool(page, page, peak, largest);
                continue;
            }
            if (peak == 0) {
                b.append("  # pool ")
                        .append(p.index())
                        .append(" was never used in the recordings; it keeps one page,"
                                + " allocated only if a request comes\n");
            }
            if (largest > p.maxSlice()) {
                b.append("  # pool ")
                        .append(p.index())
                        .append(" also took requests above its max_slice, up to ")
                        .append(Sizes.human(largest))
                        .append(", by the near-page rule of uncapped pools: no pool takes them by")
                        .append(
                                " size. Capped, they find no pool; to keep them, raise max_slice or add a pool for them, and")
                        .append(" measure again\n");
            }
            pool(p.pageSize(), p.maxSlice(), peak, largest);
        }
    }

    /** The layout the search chose, capped at the pages it held in the replays. */
    private void fitted() {
        PageFit.Outcome best = search.best();
        b.append("# Page sizes fitted to the traces: ")
                .append(search.tried())
                .append(" layouts of one to three pools replayed in ")
                .append(search.millis())
                .append(" ms; this one reserves ")
                .append(Sizes.human(best.peakReserved()))
                .append(" at its peak for ")
                .append(Sizes.human(best.peakInUse()))
                .append(" in use (")
                .append(String.format(Locale.ROOT, "%.2f", best.ratio()))
                .append(")");
        PageFit.Outcome recorded = search.recorded();
        if (recorded != null && recorded.peakReserved() != Long.MAX_VALUE) {
            b.append("; the measured layout's pools, ")
                    .append(Sizes.human(recorded.peakReserved()))
                    .append(" (")
                    .append(String.format(Locale.ROOT, "%.2f", recorded.ratio()))
                    .append(")");
        }
        b.append(".\n# Caps: the pages each pool held in the replays, plus headroom.\n");
        b.append("layout: sliced\npools:\n");
        for (int i = 0; i < best.pools().size(); i++) {
            PoolSpec.Sliced p = best.pools().get(i);
            pool(p.pageSize(), p.maxSlice(), best.pagesPeak()[i], 0);
        }
    }

    private void pool(long pageSize, long maxSlice, long peak, long largest) {
        cappedBytes += cap(peak) * pageSize;
        b.append("  - ").append(LayoutPrinter.sizeLine("page_size", pageSize));
        b.append("    ").append(LayoutPrinter.sizeLine("max_slice", maxSlice));
        b.append("    pages: ")
                .append(cap(peak))
                .append("  # peak ")
                .append(peak)
                .append(largest > 0 ? ", largest request " + Sizes.human(largest) : "")
                .append('\n');
        if (Math.ceil(peak * (1 + headroom) - 1e-9) > Layouts.MAX_PAGES) {
            // Said on stderr too: a cap below the measured need is not what suggest promises.
            String why = "a pool of " + Sizes.human(pageSize) + " pages held " + peak + " pages (with headroom "
                    + (long) Math.ceil(peak * (1 + headroom) - 1e-9) + "), more than a pool can have ("
                    + Layouts.MAX_PAGES + "): capped, it holds less than measured; choose larger pages for it";
            b.append("    # ").append(why).append('\n');
            System.err.println("pools: " + why);
        }
    }

    /** A direct layout measured request sizes but no pages: propose size classes from the histogram, uncapped. */
    private void growableFromDirect() {
        cappedBytes = -1;
        Map<Long, Long> sizes = new TreeMap<>();
        for (RecordingSummary r : runs) {
            for (Map<Long, Long> h : r.requestSizes.values()) {
                h.forEach((bucket, count) -> sizes.merge(bucket, count, Long::sum));
            }
        }
        long largest = 0;
        for (RecordingSummary r : runs) {
            for (RecordingSummary.Pool p : r.pools.values()) {
                largest = Math.max(largest, p.largestAlloc());
            }
        }
        b.append("# A direct layout has no pages to cap. These size classes come from its request sizes;\n");
        b.append("# run on them (they grow), then suggest again to cap them.\n");
        b.append("layout: sliced\npools:\n");
        long[][] classes = {{64 * 1024, 1 << 20}, {1 << 20, 16 << 20}, {16 << 20, 128 << 20}};
        long covered = 0;
        for (long[] c : classes) {
            if (covered >= Math.max(largest, 1)) {
                break;
            }
            long requests = 0;
            for (Map.Entry<Long, Long> e : sizes.entrySet()) {
                if (e.getKey() > covered && e.getKey() <= c[0]) {
                    requests += e.getValue();
                }
            }
            long maxSlice = Math.min(c[0], Sizes.roundUp(Math.max(largest, 1)));
            b.append("  # requests above ")
                    .append(Sizes.human(covered))
                    .append(" up to ")
                    .append(Sizes.human(maxSlice))
                    .append(": about ")
                    .append(requests)
                    .append('\n');
            b.append("  - ").append(LayoutPrinter.sizeLine("page_size", Math.max(c[1], maxSlice)));
            b.append("    ").append(LayoutPrinter.sizeLine("max_slice", maxSlice));
            covered = maxSlice;
        }
        if (covered < largest) {
            long page = Sizes.roundUp(largest);
            b.append("  # the largest requests, up to ")
                    .append(Sizes.human(largest))
                    .append(", a page each\n");
            b.append("  - ").append(LayoutPrinter.sizeLine("page_size", page));
        }
    }

    /**
     * The limits the process needs beside the layout, from the recordings' process memory (the
     * largest JVM): the JDK's direct memory limit, which the pool pages count against, and the
     * container's memory limit.
     */
    /** Why a recording misses its JVM's start, as the comments say it. */
    static String missesStart(RecordingSummary late) {
        String after = late.jvmStart >= 0 && late.start != null
                ? " " + (late.start.toEpochMilli() - late.jvmStart) / 1000 + " s after its JVM started"
                : "";
        return late.attachedLate
                ? "was made by an agent attached to a running JVM" + after
                        + ": what the process held before is not in it, in the pools' caps as in its memory"
                : "begins" + after + ": set aside at report.max_size more than once; the process's memory before is"
                        + " not in it";
    }

    /** The headroom as given: 10%, 10.5%. */
    static String percent(double headroom) {
        BigDecimal p = BigDecimal.valueOf(headroom * 100).setScale(6, RoundingMode.HALF_UP);
        return p.stripTrailingZeros().toPlainString() + "%";
    }

    private void budget() {
        Budget budget = Budget.largest(runs);
        if (budget.samples() == 0) {
            b.append("# No process memory in the recordings (an older agent): no limits suggested.\n");
            return;
        }
        b.append("# Limits for the process, from the same recordings (the largest JVM), headroom ")
                .append(percent(headroom))
                .append(":\n");
        RecordingSummary late = Budget.beganLate(runs);
        if (late != null) {
            b.append("#   (")
                    .append(late.name())
                    .append(' ')
                    .append(missesStart(late))
                    .append(": these limits may be low)\n");
        }
        RecordingSummary once = Budget.sampledOnce(runs);
        if (cappedBytes >= 0 && Budget.sampledOnceOnly(runs)) {
            // The direct memory outside the pools is sampled (the resident set's peak is the kernel's).
            b.append("#   -XX:MaxDirectMemorySize: none suggested: ")
                    .append(once.name())
                    .append(' ')
                    .append(Budget.sampledOnceWhy(once))
                    .append('\n');
        } else if (cappedBytes < 0) {
            // A direct layout's measure: the pools it becomes grow, and their pages are not known yet.
            b.append("#   -XX:MaxDirectMemorySize: none suggested: the layout above grows (from a direct layout, which"
                    + " has no pages); measure it, then suggest from that recording\n");
        } else {
            if (once != null) {
                b.append("#   (")
                        .append(once.name())
                        .append(' ')
                        .append(Budget.sampledOnceWhy(once))
                        .append(": the limit counts that sample with the others' peaks)\n");
            }
            long direct = budget.maxDirectMemory(cappedBytes, headroom);
            b.append("#   -XX:MaxDirectMemorySize=")
                    .append(direct >> 20)
                    .append("m   the capped pages (")
                    .append(Sizes.human(cappedBytes))
                    .append(") and the direct memory outside the pools at its peak (")
                    .append(Sizes.human(Math.max(0, budget.peak(Budget.DIRECT_OUTSIDE_POOLS))))
                    .append(headroom > 0 ? ", plus headroom" : "")
                    .append(")\n");
        }
        long limit = budget.containerLimit(headroom);
        if (limit > 0) {
            b.append("#   container memory limit ")
                    .append(limit >> 20)
                    .append(" MiB   the peak resident set (")
                    .append(Sizes.human(budget.peak(EventNames.RSS_PEAK)))
                    .append("): docker run -m ")
                    .append(limit >> 20)
                    .append("m, Kubernetes resources.limits.memory: ")
                    .append(limit >> 20)
                    .append("Mi\n");
            if (headroom == 0) {
                b.append(
                        "#   (no headroom: a limit at the measured peak leaves nothing for a larger input; see --headroom)\n");
            }
        } else {
            b.append("#   container memory limit: unknown (the resident set could not be read: no /proc)\n");
        }
    }

    /** Requests no pool could serve: say how many, and which pool would take them. */
    private void refusals() {
        long count = 0;
        long largest = 0;
        long full = 0;
        long countedOnly = 0;
        for (RecordingSummary r : runs) {
            countedOnly += r.refusals() - r.refusedCount(null);
            for (RecordingSummary.Refusals x : r.refusals.values()) {
                if (x.reason() != null && x.reason().startsWith("every pool that takes")) {
                    // A pool took the size, and was at its cap: not a request no pool would take.
                    full += x.count();
                    continue;
                }
                count += x.count();
                largest = Math.max(largest, x.size());
            }
        }
        if (full > 0) {
            b.append("# ")
                    .append(full)
                    .append(" requests found the pools that take them full, at their caps, during the measurement")
                    .append(" (see 'report'): the pages above are those held, not those the requests needed;")
                    .append(" measure with the pools uncapped to cap them at what the workload holds.\n");
        }
        if (countedOnly > 0) {
            b.append("# ")
                    .append(countedOnly)
                    .append(" more requests the pools did not serve are counted only, not recorded one by one with")
                    .append(" their sizes and reasons (see 'report'): what follows is of those recorded.\n");
        }
        if (count == 0) {
            return;
        }
        long maxSlice = Sizes.roundUp(largest);
        long page = Math.min(Sizes.MAX_PAGE & -Sizes.ALIGNMENT, Long.highestOneBit(Math.max(1, maxSlice - 1)) << 3);
        b.append("# ")
                .append(count)
                .append(" requests of up to ")
                .append(Sizes.human(largest))
                .append(
                        " found no pool during the measurement (see 'report'). To pool them, measure again with a pool such as:\n")
                .append("#   - page_size: ")
                .append(Sizes.human(Math.max(page, maxSlice)))
                .append('\n')
                .append("#     max_slice: ")
                .append(Sizes.human(maxSlice))
                .append('\n');
    }
}
