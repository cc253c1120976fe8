package dev.pools.it.apps;

import java.util.Map;

/**
 * Returns from {@code main} once an agent's thread is inside the recording's start, asleep
 * in the test hook whose property is set (such as {@code pools.test.recordingStartDelayMs}): the
 * JVM then ends in the middle of that start, whatever the machine's speed.
 */
public final class EndDuringRecordingStart {

    /**
     * With {@code hold-exit}, a shutdown hook keeps the JVM until the agent's thread that was held ended
     * (at most 60 s), so that whatever that thread does after a test hook's delay happens before the
     * JVM halts.
     */
    public static void main(String[] args) throws InterruptedException {
        if (args.length > 0 && args[0].equals("hold-exit")) {
            Runtime.getRuntime().addShutdownHook(new Thread(EndDuringRecordingStart::awaitStartThread));
        }
        String held = null;
        for (int i = 0; i < 60_000 && (held = startHeld()) == null; i++) {
            Thread.sleep(1);
        }
        heldThread = held;
        System.out.println(held != null ? "ending during the recording's start" : "the start was never held");
    }

    /** The agent's thread that was held, by name. */
    private static volatile String heldThread;

    private static void awaitStartThread() {
        String name = heldThread;
        for (int i = 0;
                i < 60_000
                        && Thread.getAllStackTraces().keySet().stream()
                                .anyMatch(t -> t.getName().equals(name));
                i++) {
            try {
                Thread.sleep(1);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    /** The name of the agent's thread asleep in a test hook of the recording's start, or null. */
    private static String startHeld() {
        for (Map.Entry<Thread, StackTraceElement[]> e :
                Thread.getAllStackTraces().entrySet()) {
            if (e.getKey().getName().startsWith("pools-")) {
                // Asleep in a test hook: every hook passes through delayForTests, and only the one whose
                // property is set sleeps. A thread seen in another hook (a busy machine can stop it there)
                // is not held.
                boolean asleep = false;
                for (StackTraceElement frame : e.getValue()) {
                    if (frame.getClassName().equals("java.lang.Thread")
                            && frame.getMethodName().startsWith("sleep")) {
                        asleep = true;
                    } else if (frame.getMethodName().equals("delayForTests")) {
                        if (asleep) {
                            return e.getKey().getName();
                        }
                        break;
                    }
                }
            }
        }
        return null;
    }
}
