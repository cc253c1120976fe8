package dev.pools.bench;

/** B4's hello world. */
public final class Hello {

    private Hello() {}

    public static void main(String[] args) {
        System.out.println("hello");
    }
}
