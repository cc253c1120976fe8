package dev.pools.recording;

import dev.pools.log.Log;
import dev.pools.memory.AllocationListener;
import dev.pools.memory.CallSites;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The refusals that come before the recording's file exists (it is created one {@code report.period}
 * after the agent starts, or at the JVM's end if that comes first): each is kept with its time, its
 * thread and the stack of the code that asked, and written to the file first when the recording
 * starts ({@link #forwardTo}). From then on every refusal goes straight to the recording, including
 * one that reached this listener just after the switch.
 *
 * <p>At most {@link #KEPT} are kept (a stack is up to 64 frames): the ones after that are counted in
 * the usage's fallbacks as every refusal is, and their number is said once when the recording starts.
 */
public final class EarlyRefusals implements AllocationListener {

    public static final int KEPT = 256;

    private final CallSites sites;
    /** Guarded by this. */
    private List<Kept> kept = new ArrayList<>();
    /** Guarded by this. */
    private int dropped;
    /** Where refusals go once the recording runs; guarded by this. */
    private AllocationListener then;

    private record Kept(AllocationRefusedEvent event, List<EventFile.Frame> stack, Thread thread, long ticks) {}

    /** By {@link System#nanoTime}, which may wrap: compared by difference. A named class, not a lambda. */
    private static final class ByTime implements Comparator<Kept> {
        @Override
        public int compare(Kept a, Kept b) {
            return Long.signum(a.ticks() - b.ticks());
        }
    }

    private static final Comparator<Kept> BY_TIME = new ByTime();

    public EarlyRefusals(CallSites sites) {
        this.sites = sites;
    }

    @Override
    public void refused(int size, int site, String reason, boolean fellBack) {
        try {
            AllocationListener to;
            synchronized (this) {
                to = then;
            }
            if (to == null) {
                long ticks = System.nanoTime();
                // The stack outside the lock: threads that are refused at once do not wait for each other's walk.
                List<EventFile.Frame> stack = EventFile.callerStack();
                synchronized (this) {
                    to = then;
                    if (to == null) {
                        if (kept.size() < KEPT) {
                            kept.add(new Kept(
                                    Recorder.refusal(size, sites.name(site), reason, fellBack),
                                    stack,
                                    Thread.currentThread(),
                                    ticks));
                        } else {
                            dropped++;
                        }
                        return;
                    }
                }
            }
            to.refused(size, site, reason, fellBack);
        } catch (RuntimeException x) {
            // On the host's thread: never into the host.
            Log.once("recording-refusal", "a refusal could not be recorded: " + x);
        }
    }

    /**
     * Writes the refusals kept so far to {@code out}, in time order, and hands every later one to
     * {@code live}. Once only.
     */
    synchronized void forwardTo(EventFile out, AllocationListener live) {
        // In time order: a thread takes its time before its stack, and another may be kept first meanwhile.
        List<Kept> inOrder = new ArrayList<>(kept);
        inOrder.sort(BY_TIME);
        for (Kept k : inOrder) {
            out.add(k.event(), k.stack(), k.thread(), k.ticks());
        }
        if (dropped > 0) {
            Log.once(
                    "early-refusals",
                    dropped + " refusals before the recording's start are only counted (the first " + KEPT
                            + " are recorded with their stacks)");
        }
        kept = List.of();
        then = live;
    }

    /** How many refusals are kept for the recording (tests). */
    synchronized int kept() {
        return kept.size();
    }
}
