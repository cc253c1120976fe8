package dev.pools.it.apps;

import it.host.Tensors;

/** Asks for requests no pool takes, about one a millisecond, until it is killed: its recording grows. */
public final class RefuseUntilKilled {

    public static void main(String[] args) throws Exception {
        System.out.println("refusing");
        System.out.flush();
        for (long i = 0; ; i++) {
            try {
                Tensors.allocate(2 << 20);
            } catch (OutOfMemoryError e) {
                // refused, and recorded
            }
            if ((i & 7) == 0) {
                Thread.sleep(1);
            }
        }
    }
}
