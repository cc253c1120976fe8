package dev.pools.it.apps;

import java.util.Map;

/**
 * Returns from {@code main} once the agent's start thread is inside the recording's start, asleep
 * in the test hook whose property is set (such as {@code pools.test.recordingStartDelayMs}): the
 * JVM then ends in the middle of that start, whatever the machine's speed.
 */
public final class EndDuringRecordingStart {

    /**
     * With {@code hold-exit}, a shutdown hook keeps the JVM until the agent's start thread ended
     * (at most 60 s), so that whatever that thread does after a test hook's delay happens before the
     * JVM halts.
     */
    public static void main(String[] args) throws InterruptedException {
        if (args.length > 0 && args[0].equals("hold-exit")) {
            Runtime.getRuntime().addShutdownHook(new Thread(EndDuringRecordingStart::awaitStartThread));
        }
        for (int i = 0; i < 60_000 && !startHeld(); i++) {
            Thread.sleep(1);
        }
        System.out.println(startHeld() ? "ending during the recording's start" : "the start was never held");
    }

    private static void awaitStartThread() {
        for (int i = 0;
                i < 60_000
                        && Thread.getAllStackTraces().keySet().stream()
                                .anyMatch(t -> t.getName().equals("pools-start"));
                i++) {
            try {
                Thread.sleep(1);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    private static boolean startHeld() {
        for (Map.Entry<Thread, StackTraceElement[]> e :
                Thread.getAllStackTraces().entrySet()) {
            if (e.getKey().getName().equals("pools-start")) {
                // Asleep in a test hook: every hook passes through delayForTests, and only the one whose
                // property is set sleeps. A thread seen in another hook (a busy machine can stop it there)
                // is not held.
                boolean asleep = false;
                for (StackTraceElement frame : e.getValue()) {
                    if (frame.getClassName().equals("java.lang.Thread")
                            && frame.getMethodName().startsWith("sleep")) {
                        asleep = true;
                    } else if (frame.getMethodName().equals("delayForTests")) {
                        return asleep;
                    }
                }
            }
        }
        return false;
    }
}
