package dev.pools.bench;

/** B4's hello world; with an argument, it then stays idle that many milliseconds (the agent's start-up CPU in full). */
public final class Hello {

    private Hello() {}

    public static void main(String[] args) throws InterruptedException {
        System.out.println("hello");
        if (args.length > 0) {
            Thread.sleep(Long.parseLong(args[0]));
        }
    }
}
